"""The one-line notes the conversation shows between replies for events that are not a
reply: a local server starting or stopping, a reply cut at its token limit, a fact an agent
recorded and a goal an agent set (so neither happens unseen)."""

from __future__ import annotations

from milk_tui.facade.servers import event_line
from milk_tui.model import events as ev
from milk_tui.model.session import ESCALATION, PRIMARY
from milk_tui.tui.transcript import Kind

_AGENTS = (PRIMARY, ESCALATION)


def note_line(e: ev.BusEvent, names: dict[str, str]) -> tuple[Kind, str] | None:
    """(the line's kind, its text) for ``e``, or None when it shows no line."""
    match e:
        case ev.ServerStarting() | ev.ServerReady() | ev.ServerStopped():
            return "notice", event_line(e) or ""
        case ev.ServerFailed():
            return "error", event_line(e) or ""
        case ev.ReplyTruncated():
            return "warning", e.line()
        case ev.PerceptRecorded(producer=who) if who in _AGENTS and not e.reinforced:
            return "notice", f"{names.get(who, who)} remembered: {e.content}"
        case ev.NeedChanged(producer=who) if who in _AGENTS and e.need and not e.rolled_back:
            return "notice", f"{names.get(who, who)} set the goal: {e.need}"
    return None
