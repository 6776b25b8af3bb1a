"""Hostile MCP servers for tests: newline-delimited JSON-RPC over stdio written by hand (no
SDK import, so each starts in a few milliseconds), each bad in one way.

``python -m milk_tui.testing.mcp_hostile MODE [ARG]``

- ``mute``: reads its input and never answers anything (not even ``initialize``).
- ``no-list``: answers ``initialize``, never ``tools/list``.
- ``many N``: lists N small tools, plus ``huge`` (a 5 MB description) and ``wide`` (a
  20 KiB input schema).
- ``flood BYTES``: writes BYTES of lines to stderr and ``FLOOD_END``, then serves the tool
  ``ok``.
- ``leak VAR``: writes ``$VAR`` to stderr (split over two writes), and its tool ``leak``
  returns ``$VAR`` in its result.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

HUGE_DESCRIPTION_CHARS = 5 * 1024 * 1024
WIDE_SCHEMA_PROPERTIES = 400
FLOOD_END = "flood: the end"


def _tool(name: str, description: str = "", properties: dict[str, Any] | None = None) -> dict:
    return {
        "name": name,
        "description": description or f"The tool {name}.",
        "inputSchema": {"type": "object", "properties": properties or {}},
    }


def _tools(mode: str, arg: str) -> list[dict]:
    if mode == "many":
        tools = [_tool(f"t{i:04d}") for i in range(int(arg))]
        wide = {
            f"field_{i:03d}": {"type": "string", "description": "x" * 40}
            for i in range(WIDE_SCHEMA_PROPERTIES)
        }
        return [
            _tool("huge", "h" * HUGE_DESCRIPTION_CHARS),
            _tool("wide", properties=wide),
            *tools,
        ]
    if mode == "leak":
        return [_tool("leak", "Returns the secret it was given.")]
    return [_tool("ok")]


def _result(mode: str, arg: str, name: str) -> dict:
    text = f"the secret is {os.environ.get(arg, '')}." if mode == "leak" else f"{name}: fine"
    return {"content": [{"type": "text", "text": text}]}


def _send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> None:
    mode, arg = ((argv or sys.argv[1:]) + [""])[:2]
    if mode == "flood":
        line = "E" * 1023 + "\n"
        for _ in range(int(arg) // 1024):
            sys.stderr.write(line)
        sys.stderr.write(FLOOD_END + "\n")
        sys.stderr.flush()
    if mode == "leak":
        secret = os.environ.get(arg, "")
        half = len(secret) // 2
        sys.stderr.write(f"starting with {secret[:half]}")
        sys.stderr.flush()
        sys.stderr.write(f"{secret[half:]} in my environment\n")
        sys.stderr.flush()
    for raw in sys.stdin:
        try:
            msg = json.loads(raw)
        except ValueError:
            continue
        method, mid = msg.get("method"), msg.get("id")
        if mid is None or mode == "mute":
            continue  # a notification; or a server that never answers
        if method == "initialize":
            version = msg.get("params", {}).get("protocolVersion", "2025-06-18")
            info = {"name": f"hostile-{mode}", "version": "0"}
            result = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
        elif method == "tools/list":
            if mode == "no-list":
                continue
            result = {"tools": _tools(mode, arg)}
        elif method == "tools/call":
            result = _result(mode, arg, str(msg.get("params", {}).get("name", "")))
        else:
            result = {}
        _send({"jsonrpc": "2.0", "id": mid, "result": result})


if __name__ == "__main__":
    main()
