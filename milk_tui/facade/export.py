"""A session written out for people and tools: Markdown, JSON and plain text.

Built from the session's records (never from what a screen shows), so the TUI's
``/export`` and the command line render the same document.  Every string from the session
is made inert first (model/terminal_text.py): a reply holding ``ESC ]52`` shows it as
``␛]52`` in the file and cannot act on the terminal that later ``cat``s it.  The JSON is the
``sessions show --json`` document (Go milk's session keys, model/gojson.py) — one session
format, not two.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Literal

from milk_tui.model.gojson import rfc3339
from milk_tui.model.session import ESCALATION, PRIMARY, Session, Turn
from milk_tui.model.terminal_text import inert, inert_json

ExportFormat = Literal["md", "json", "txt"]
SUFFIXES: dict[str, ExportFormat] = {".md": "md", ".markdown": "md", ".json": "json",
                                     ".txt": "txt", ".text": "txt"}  # fmt: skip
"""A path's suffix chooses its format; any other suffix gets Markdown."""


def render(s: Session, fmt: ExportFormat, *, now: float) -> str:
    if fmt == "json":
        return session_json(s)
    if fmt == "txt":
        return session_text(s.history)
    return session_markdown(s, now=now)


def session_json(s: Session) -> str:
    return inert_json(json.dumps(s.to_go_json(), indent=2, ensure_ascii=False)) + "\n"


def _is_handoff(history: list[Turn], i: int) -> bool:
    """The escalation's half of a hand-off: the same prompt the primary just got."""
    t = history[i]
    if t.role != "user" or t.agent != ESCALATION:
        return False
    for prev in reversed(history[:i]):
        if prev.role == "user":
            return prev.agent == PRIMARY and prev.content == t.content
    return False


def _fence(text: str, lang: str = "") -> str:
    """``text`` in a code fence longer than any backtick run inside it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    bar = "`" * max(3, longest + 1)
    return f"{bar}{lang}\n{text.rstrip()}\n{bar}"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}".rstrip() for line in text.rstrip().split("\n"))


def _slot(t: Turn) -> str:
    return f" ({t.agent})" if t.agent in (PRIMARY, ESCALATION) else ""


def _markdown_blocks(history: list[Turn]) -> Iterator[str]:
    n = 0
    for i, t in enumerate(history):
        if t.role == "user":
            if _is_handoff(history, i):
                yield f"*⇢ handed off to **{inert(t.agent_name) or 'escalation'}**{_slot(t)}*"
                continue
            n += 1
            to = f" → {inert(t.agent_name)}{_slot(t)}" if t.agent_name else ""
            yield f"---\n\n### ❯ Prompt {n}{to}"
            yield _quote(inert(t.content))
            if t.attachments:  # what was sent, not its bytes (docs/adr/0027-attachments.md)
                yield "\n".join(f"- attached: {inert(a.chip())}" for a in t.attachments)
        elif t.role == "assistant":
            for c in t.tool_calls:
                yield f"⚙ **{inert(c.name)}**\n\n{_fence(inert(c.arguments), 'json')}"
            if t.content.strip():
                yield f"**{inert(t.agent_name) or 'assistant'}**{_slot(t)}:"
                yield inert(t.content).rstrip()
        elif t.role == "tool_result":
            yield f"result:\n\n{_fence(inert(t.content))}"


def session_markdown(s: Session, *, now: float) -> str:
    title = inert(s.name) or s.id[:8]
    head = [
        f"# milk-tui session {title}",
        "",
        f"- session: `{s.id}`",
        f"- folder: `{inert(s.cwd)}`",
        f"- started: {rfc3339(s.created_at)}",
        f"- exported: {rfc3339(now)}",
        f"- prompts: {s.user_turn_count()}",
    ]
    if s.current_need:
        head.append(f"- need: {inert(s.current_need)}")
    return "\n".join(head) + "\n\n" + "\n\n".join(_markdown_blocks(s.history)) + "\n"


def session_text(history: list[Turn]) -> str:
    """Plain text, no markup and no thinking: the prompt, who answered, the answer."""
    lines: list[str] = []
    for i, t in enumerate(history):
        if t.role == "user":
            if _is_handoff(history, i):
                lines.append(f"[handed off to {inert(t.agent_name)}]")
            else:
                to = f"    [→ {inert(t.agent_name)}]" if t.agent_name else ""
                lines.append(f"❯ {inert(t.content)}{to}")
                lines += [f"  attached: {inert(a.chip())}" for a in t.attachments]
        elif t.role == "assistant":
            lines += [f"⚙ {inert(c.name)} {inert(c.arguments)}".rstrip() for c in t.tool_calls]
            if t.content.strip():
                lines.append(f"{inert(t.agent_name)}:\n{inert(t.content).rstrip()}")
        elif t.role == "tool_result":
            lines.append("⚙ result")
        else:
            continue
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
