"""What the model is told about each built-in tool: name, description, argument schema,
effect and path arguments.  Names and argument names are the ones Go milk configs, prompts
and tool filters use, so those keep working."""

from __future__ import annotations

from typing import Any

from milk_tui.agents.base import ToolEffect, ToolSpec


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


def _str(description: str = "") -> dict[str, Any]:
    return {"type": "string", "description": description} if description else {"type": "string"}


def _spec(
    name: str,
    description: str,
    props: dict[str, Any],
    required: list[str],
    effect: ToolEffect,
    path_args: tuple[str, ...] = (),
) -> ToolSpec:
    return ToolSpec(name, description, _obj(props, required), effect, path_args)


SPECS: dict[str, ToolSpec] = {
    s.name: s
    for s in [
        _spec(
            "escalate",
            "Hand this task to the escalation agent. Use only for architecture, complex "
            "multi-file refactors or work beyond your capability. Ends your turn.",
            {"reason": _str("brief for the escalation agent")},
            ["reason"],
            "read",
        ),
        _spec(
            "current_need",
            "Record the user's current goal whenever they state a new one.",
            {"goal": _str("the goal in one sentence")},
            ["goal"],
            "read",
        ),
        _spec(
            "record_memory",
            "Remember a durable fact or preference the user stated.",
            {
                "content": _str("the fact, one sentence"),
                "consumer": {
                    "type": "string",
                    "enum": ["primary", "escalation", "all", ""],
                    "description": "which agent needs it (default all)",
                },
            },
            ["content"],
            "read",
        ),
        _spec(
            "read_file",
            "Read a text file; lines are numbered. Use offset (0-based line) and limit to "
            "page through long files.",
            {"path": _str(), "offset": {"type": "integer"}, "limit": {"type": "integer"}},
            ["path"],
            "read",
            path_args=("path",),
        ),
        _spec(
            "list_dir",
            "List one directory (top level only).",
            {"path": _str("default .")},
            [],
            "read",
            path_args=("path",),
        ),
        _spec(
            "grep",
            "Search file contents under a path (default .) with a regular expression; prints "
            "path:line:text.",
            {"pattern": _str(), "path": _str()},
            ["pattern"],
            "read",
            path_args=("path",),
        ),
        _spec(
            "find_files",
            "Find files by name glob (e.g. *.py) under a folder; skips .git, .venv, node_modules.",
            {"path": _str("folder to search, e.g. ."), "pattern": _str("glob, e.g. *.py")},
            ["path", "pattern"],
            "read",
            path_args=("path",),
        ),
        _spec(
            "write_file",
            "Create or overwrite a file with the given content (parent folders are created).",
            {"path": _str(), "content": _str("the whole new content")},
            ["path", "content"],
            "write",
            ("path",),
        ),
        _spec(
            "edit_file",
            "Replace an exact substring of a file. old_string must match exactly once unless "
            "replace_all is true; include surrounding lines to make it unique.",
            {
                "path": _str(),
                "old_string": _str("exact text to replace"),
                "new_string": _str("replacement text"),
                "replace_all": {"type": "boolean", "description": "replace every match"},
            },
            ["path", "old_string", "new_string"],
            "write",
            ("path",),
        ),
        _spec(
            "delete_file",
            "Delete one file.",
            {"path": _str()},
            ["path"],
            "write",
            ("path",),
        ),
        _spec(
            "move_file",
            "Move or rename a file (destination folders are created).",
            {"source": _str(), "destination": _str()},
            ["source", "destination"],
            "write",
            ("source", "destination"),
        ),
        _spec(
            "bash",
            "Run a shell command (sh -c) in the working directory; returns stdout, stderr and "
            "the exit code. Default timeout 120 s, at most 600 s.",
            {
                "command": _str(),
                "timeout_seconds": {"type": "integer", "description": "default 120, max 600"},
            },
            ["command"],
            "run",
        ),
        _spec(
            "http_get",
            "Fetch a URL with GET; returns the status and the start of the body.",
            {"url": _str(), "max_bytes": {"type": "integer", "description": "default 8192"}},
            ["url"],
            "network",
        ),
        _spec(
            "http_request",
            "Send an HTTP request; returns the status and the start of the body.",
            {
                "url": _str(),
                "method": _str("GET (default), POST, PUT, PATCH, DELETE, HEAD, OPTIONS"),
                "headers": {"type": "object", "description": "header name → value"},
                "body": _str("request body"),
                "max_bytes": {"type": "integer", "description": "default 8192"},
            },
            ["url"],
            "network",
        ),
    ]
}

ACTION_TOOLS = (
    "read_file",
    "list_dir",
    "grep",
    "find_files",
    "write_file",
    "edit_file",
    "delete_file",
    "move_file",
    "bash",
    "http_get",
    "http_request",
    "get_session_context",
)
"""The tools ``included_tools`` chooses among (the agent's own-state tools, escalate,
current_need and the memory tools, stay offered); ``excluded_tools`` may remove any."""
