"""Building the need and escalation panes, and telling them about the session.

The panes build their view from ``SessionChanged`` (forwarded like every bus event).  Until
the pane classes drop their ``session`` constructor argument and ``set_session``, this module
also feeds them the session the old way; it detects which kind it has, so the main screen
works with both.  Delete ``_legacy_*`` and the ``LEGACY`` checks once every pane is on the
event.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from milk_tui.tui.widgets.escalation_pane import EscalationPane
from milk_tui.tui.widgets.need_pane import NeedPane

if TYPE_CHECKING:
    from milk_tui.tui.app import MilkApp
    from milk_tui.tui.widgets.status_line import StatusLine

LEGACY = "session" in inspect.signature(NeedPane.__init__).parameters
"""True while the panes still take a live session (they read it; the event is then extra)."""


def need_pane(app: MilkApp) -> NeedPane:
    if LEGACY:
        return _legacy_pane(NeedPane)(app.runtime.dispatcher.session, id="need")
    return _legacy_pane(NeedPane)(id="need")


def escalation_pane(app: MilkApp) -> EscalationPane:
    name = app.facade.startup_info().escalation.name
    if LEGACY:
        return _legacy_pane(EscalationPane)(app.runtime.dispatcher.session, name, id="escalation")
    return _legacy_pane(EscalationPane)(agent_name=name, id="escalation")


def session_loaded(app: MilkApp, need: NeedPane, esc: EscalationPane, status: StatusLine) -> None:
    """After a load or switch (the ``SessionChanged`` itself is forwarded by the caller)."""
    if LEGACY:
        session = app.runtime.dispatcher.session
        _legacy_pane(need).set_session(session)
        _legacy_pane(esc).set_session(session)
        turn_completed(app, status)


def turn_completed(app: MilkApp, status: StatusLine) -> None:
    if LEGACY:
        _legacy_pane(status).set_tokens_from_session(app.runtime.dispatcher.session.tokens)


def _legacy_pane(obj: Any) -> Any:
    """The pane (class) untyped: the call matches only one of the two pane versions."""
    return obj
