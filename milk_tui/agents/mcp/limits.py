"""Bounds on what MCP servers offer a model: every tool's name, description and schema go in
every request, so a server listing thousands of tools, or one tool with a 5 MB description,
would fill the model's window (and the bill) on every turn.

Per server (when its list arrives): a description longer than ``MAX_DESCRIPTION_CHARS`` is
cut with a visible "…", a tool whose input schema is over ``MAX_SCHEMA_BYTES`` (as JSON)
or whose name is over ``MAX_TOOL_NAME_CHARS`` is skipped, and tools past
``MAX_TOOLS_PER_SERVER`` are dropped.  Across the servers an agent gets, tools past
``MAX_TOOLS_TOTAL`` are dropped.  Each cut is one notice naming the server and what was cut.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MAX_TOOLS_PER_SERVER = 128
MAX_TOOLS_TOTAL = 256
MAX_DESCRIPTION_CHARS = 2_000
MAX_SCHEMA_BYTES = 16 * 1024
MAX_TOOL_NAME_CHARS = 256
"""A tool's own name is shown in ``/mcp`` and sent back on each call; a longer one is noise."""
ELLIPSIS = "…"


@dataclass(frozen=True, slots=True)
class Bounded:
    tools: list[Any]
    """The ``mcp_types.Tool`` kept, descriptions cut."""
    notice: str
    """One line naming the server and what was cut; empty when nothing was."""


def bound_server_tools(server: str, tools: Sequence[Any]) -> Bounded:
    kept: list[Any] = []
    cut, big_schema, long_name = [], [], []
    for t in tools:
        name = str(t.name)
        if len(name) > MAX_TOOL_NAME_CHARS:
            long_name.append(name[:40] + ELLIPSIS)
            continue
        if _schema_bytes(t.input_schema) > MAX_SCHEMA_BYTES:
            big_schema.append(name)
            continue
        fields = {}
        for key in ("description", "title"):
            text = getattr(t, key, None)
            if isinstance(text, str) and len(text) > MAX_DESCRIPTION_CHARS:
                fields[key] = text[: MAX_DESCRIPTION_CHARS - 1] + ELLIPSIS
        if fields:
            cut.append(name)
            t = t.model_copy(update=fields)
        kept.append(t)
    dropped = len(kept) - MAX_TOOLS_PER_SERVER
    kept = kept[:MAX_TOOLS_PER_SERVER]
    parts = []
    if dropped > 0:
        parts.append(f"{dropped} tools past the first {MAX_TOOLS_PER_SERVER} dropped")
    if big_schema:
        parts.append(
            f"{_some(big_schema)} skipped (input schema over {MAX_SCHEMA_BYTES // 1024} KiB)"
        )
    if long_name:
        parts.append(f"{_some(long_name)} skipped (name over {MAX_TOOL_NAME_CHARS} characters)")
    if cut:
        parts.append(f"the description of {_some(cut)} cut to {MAX_DESCRIPTION_CHARS:,} characters")
    notice = f"mcp server '{server}': " + "; ".join(parts) if parts else ""
    return Bounded(kept, notice)


def total_notice(dropped: dict[str, int]) -> str:
    """The line for tools dropped past ``MAX_TOOLS_TOTAL`` (server → how many)."""
    servers = ", ".join(f"'{s}' ({n})" for s, n in dropped.items())
    return (
        f"mcp: more than {MAX_TOOLS_TOTAL} tools in all; "
        f"{sum(dropped.values())} not offered, of mcp server {servers}"
    )


def _some(names: list[str], shown: int = 3) -> str:
    """``tool 'a'`` / ``tools 'a', 'b' and 3 more``."""
    quoted = ", ".join(repr(n) for n in names[:shown])
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return f"tool{'s' if len(names) > 1 else ''} {quoted}{more}"


def _schema_bytes(schema: Any) -> int:
    try:
        return len(json.dumps(schema, ensure_ascii=False, default=str).encode())
    except (TypeError, ValueError):  # a cycle cannot come from JSON; be safe anyway
        return MAX_SCHEMA_BYTES + 1
