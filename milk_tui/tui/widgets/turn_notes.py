"""The one-line notes the conversation shows between replies for events that are not a
reply: a local server starting or stopping, a reply cut at its token limit, a fact an agent
recorded and a goal an agent set (so neither happens unseen).  A fact or goal is shown
under the turn's reply once the turn is committed; a failed turn's are dropped with it."""

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


class TurnNotes:
    """Which lines the conversation adds for each event, in the order a reader wants them."""

    def __init__(self) -> None:
        self._held: list[tuple[Kind, str]] = []

    def feed(self, e: ev.BusEvent, names: dict[str, str]) -> list[tuple[Kind, str]]:
        match e:
            case ev.TurnCompleted():
                out, self._held = self._held, []
                return out
            case ev.TurnFailed() | ev.TurnStarted():
                self._held = []  # a failed turn recorded nothing: neither fact nor goal
                return []
            case ev.PerceptRecorded() | ev.NeedChanged():
                note = note_line(e, names)
                if note is not None:
                    self._held.append(note)
                return []
        note = note_line(e, names)
        return [] if note is None else [note]
