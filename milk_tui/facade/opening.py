"""The application while it opens: what the main screen paints before the agents exist.

``open_application`` runs the first half of start-up (``engine/boot.py``: config, database,
session, facts, which agents) and returns an ``Opening``, which answers the read-only
questions the main screen asks to paint — the same names as on ``Application`` (the
``StartView`` protocol).  ``Opening.finish`` builds the agents, router and dispatcher over the
same database, bus and memory and returns the ``Application``; the TUI calls it in a thread
after the main screen's first frame.  Everything else (turns, commands) waits for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol, Unpack

from milk_tui.engine.boot import Boot, BootOptions, open_boot
from milk_tui.facade.facts import Facts
from milk_tui.facade.sessions import SessionCatalog
from milk_tui.facade.views import StartupInfo, agent_info, session_view
from milk_tui.model.events import SessionChanged
from milk_tui.model.session import Turn

if TYPE_CHECKING:
    from milk_tui.facade.application import Application


class StartView(Protocol):
    """What the main screen reads to paint a session: an ``Opening`` or an ``Application``."""

    startup_notes: list[str]
    facts: Facts

    @property
    def keymap(self) -> dict[str, str]: ...
    @property
    def theme(self) -> str: ...
    @property
    def session_id(self) -> str: ...
    def startup_info(self) -> StartupInfo: ...
    def session_view(self) -> SessionChanged: ...
    def history(self) -> list[Turn]: ...
    def history_start(self) -> int: ...
    def input_history(self) -> tuple[list[str], list[str]]: ...


class Opening:
    def __init__(
        self,
        boot: Boot,
        *,
        permission_policy: Literal["ask", "allow", "deny"] = "ask",
        cooperative: bool = False,
    ) -> None:
        self._boot = boot
        self._permission_policy: Literal["ask", "allow", "deny"] = permission_policy
        self._cooperative = cooperative
        self.facts = Facts(boot.memory)
        """The same memory the application's ``facts`` will use: the facts pane keeps it."""
        self.sessions = SessionCatalog(boot.store)
        self.startup_notes: list[str] = list(boot.notes)
        """Said once in the welcome text; the UI adds its own (keymap, themes) and the
        application carries them on."""

    @property
    def keymap(self) -> dict[str, str]:
        return dict(self._boot.config.keymap)

    @property
    def theme(self) -> str:
        return self._boot.config.theme

    @property
    def session_id(self) -> str:
        return self._boot.session.id

    def startup_info(self) -> StartupInfo:
        b = self._boot
        return StartupInfo(
            primary=agent_info(b.primary, "primary"),
            escalation=agent_info(b.escalation, "escalation"),
            demo=b.demo,
            notes=tuple(self.startup_notes),
            config_path=str(b.config_path) if b.config_path else None,
        )

    def session_view(self) -> SessionChanged:
        s = self._boot.session
        return session_view(s, self._boot.store.history_counts(s) if s.unread else None)

    def history(self) -> list[Turn]:
        """The session's turns read so far: its last ones when opened tail first."""
        return list(self._boot.session.history)

    def history_start(self) -> int:
        """How many turns come before ``history()`` (read once the agents are built)."""
        return self._boot.session.unread

    def input_history(self) -> tuple[list[str], list[str]]:
        return self.sessions.inputs(self.session_id), self.sessions.inputs(None)

    def finish(self) -> Application:
        """Build the agents, router and dispatcher (imports most of the engine; run it off
        the event loop).  The application's notes are this opening's, then any the second
        half found (custom prompt files).  Closes the database if it fails."""
        # ``facade.mcp`` here, off the event loop: the TUI reads ``application.mcp`` as soon
        # as it installs the application, and the module loads the MCP manager's (~5 ms).
        from milk_tui.engine.runtime import finish_runtime
        from milk_tui.facade import mcp  # noqa: F401
        from milk_tui.facade.application import Application

        b = self._boot
        runtime = finish_runtime(
            b, permission_policy=self._permission_policy, cooperative=self._cooperative
        )
        application = Application(runtime)
        later = runtime.startup_notes[len(b.notes) :]
        application.startup_notes = [*self.startup_notes, *later]
        return application

    def close(self) -> None:
        """Close the database when the application is never built (a quit while opening)."""
        self._boot.db.close()


def open_application(
    *,
    permission_policy: Literal["ask", "allow", "deny"] = "ask",
    cooperative: bool = False,
    **options: Unpack[BootOptions],
) -> Opening:
    """The first half of ``start``, with its options (``engine/boot.py`` ``open_boot``'s).
    Raises ``ConfigError`` or ``StorageError``."""
    boot = open_boot(**options)
    return Opening(boot, permission_policy=permission_policy, cooperative=cooperative)
