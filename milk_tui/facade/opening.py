"""The application while it opens: what the main screen paints before the agents exist.

``open_application`` runs the first half of start-up (``engine/boot.py``: config, database,
session, facts, which agents) and returns an ``Opening``, which answers the read-only
questions the main screen asks to paint — the same names as on ``Application`` (the
``StartView`` protocol).  ``Opening.finish`` builds the agents, router and dispatcher over the
same database, bus and memory and returns the ``Application``; the TUI calls it in a thread
after the main screen's first frame.  Everything else (turns, commands) waits for it.

With ``from_card`` the config is read in ``finish`` too, when the last start's card
(facade/start_card.py) was written for the same config, or when there is no card and no
config to read (a home's first start: ``HOME_DEFAULTS``): the opening paints from the
card, and ``card_matched`` says afterwards whether it was right.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, Protocol, Unpack

from milk_tui.engine.boot_options import BootOptions, split_options
from milk_tui.engine.open_store import OpenedStore, open_store, start_notes
from milk_tui.facade.facts import Facts
from milk_tui.facade.sessions import SessionCatalog
from milk_tui.facade.start_card import (
    HOME_DEFAULTS,
    StartCard,
    card_of,
    home_defaults_apply,
    new_key,
    read_card,
    write_card,
)
from milk_tui.facade.views import StartupInfo, held_turns, older_turns, session_view
from milk_tui.model.events import SessionChanged
from milk_tui.model.session import Turn

if TYPE_CHECKING:
    from milk_tui.engine.boot import Configured
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
    def older_turns(self, stop: int, count: int) -> list[Turn]: ...
    def input_history(self) -> tuple[list[str], list[str]]: ...


class Opening:
    def __init__(
        self,
        opened: OpenedStore,
        card: StartCard,
        *,
        configure: Callable[[], Configured],
        configured: Configured | None = None,
        rewrite_card: Callable[[StartCard], None] | None = None,
        write_card_after: bool = False,
        permission_policy: Literal["ask", "allow", "deny"] = "ask",
        cooperative: bool = False,
    ) -> None:
        self._opened = opened
        self._card = card
        self._configure = configure
        self._configured = configured
        self._rewrite_card = rewrite_card
        self._write_card_after = write_card_after
        self._permission_policy: Literal["ask", "allow", "deny"] = permission_policy
        self._cooperative = cooperative
        self.facts = Facts(opened.memory)
        """The same memory the application's ``facts`` will use: the facts pane keeps it."""
        self.sessions = SessionCatalog(opened.store)
        self.startup_notes: list[str] = start_notes(card.notes, opened, card.agent_notes)
        """Said once in the welcome text; the UI adds its own (keymap, themes) and the
        application carries them on."""
        self.from_card = configured is None
        """Painted from the last start's card; the config is read in ``finish``."""
        self.from_defaults = card is HOME_DEFAULTS
        """Painted from a new home's defaults: no card yet, and no config to read first."""
        self.card_matched = True
        """After ``finish``: what was painted from the card is what the config says."""

    @property
    def keymap(self) -> dict[str, str]:
        return dict(self._card.keymap)

    @property
    def theme(self) -> str:
        return self._card.theme

    @property
    def session_id(self) -> str:
        return self._opened.session.id

    def startup_info(self) -> StartupInfo:
        c = self._card
        return StartupInfo(
            primary=c.primary,
            escalation=c.escalation,
            demo=c.demo,
            notes=tuple(self.startup_notes),
            config_path=c.config_path,
        )

    def session_view(self) -> SessionChanged:
        s = self._opened.session
        return session_view(s, self._opened.store.history_counts(s) if s.unread else None)

    def history(self) -> list[Turn]:
        """The session's turns read so far: its last ones when opened tail first."""
        return held_turns(self._opened.session)

    def history_start(self) -> int:
        """How many turns come before ``history()`` (read when something reaches them)."""
        return self._opened.session.unread

    def older_turns(self, stop: int, count: int) -> list[Turn]:
        """Up to ``count`` turns before 1-based position ``stop + 1``, read from the store."""
        return older_turns(self._opened.session, stop, count)

    def input_history(self) -> tuple[list[str], list[str]]:
        return self.sessions.inputs(self.session_id), self.sessions.inputs(None)

    def finish(self) -> Application:
        """Build the agents, router and dispatcher (imports most of the engine; run it off
        the event loop), reading the config first when the opening painted from the card.
        The application's notes are this opening's, then any the second half found (custom
        prompt files).  Closes the database if it fails."""
        # ``facade.mcp`` here, off the event loop: the TUI reads ``application.mcp`` as soon
        # as it installs the application, and the module loads the MCP manager's (~5 ms).
        from milk_tui.engine.boot import joined
        from milk_tui.engine.runtime import finish_runtime
        from milk_tui.facade import mcp  # noqa: F401
        from milk_tui.facade.application import Application

        if self._configured is None:
            try:
                self._configured = self._configure()
            except BaseException:
                self._opened.db.close()
                raise
            self._check_card(card_of(self._configured))
        b = joined(self._opened, self._configured)
        runtime = finish_runtime(
            b, permission_policy=self._permission_policy, cooperative=self._cooperative
        )
        application = Application(runtime)
        later = runtime.startup_notes[len(b.notes) :]
        application.startup_notes = [*self.startup_notes, *later]
        return application

    def _check_card(self, real: StartCard) -> None:
        """The config as read against the card painted from: a card that was wrong is
        rewritten, and its notes give way to the real ones."""
        self.card_matched = real == self._card
        if self.card_matched:
            if self._write_card_after and self._rewrite_card is not None:
                self._rewrite_card(real)  # the defaults painted: the next start has a card
            return
        said = start_notes(self._card.notes, self._opened, self._card.agent_notes)
        self.startup_notes[: len(said)] = start_notes(real.notes, self._opened, real.agent_notes)
        self._card = real
        if self._rewrite_card is not None:
            self._rewrite_card(real)

    def close(self) -> None:
        """Close the database when the application is never built (a quit while opening)."""
        self._opened.db.close()


def open_application(
    *,
    permission_policy: Literal["ask", "allow", "deny"] = "ask",
    cooperative: bool = False,
    from_card: bool = False,
    **options: Unpack[BootOptions],
) -> Opening:
    """The first half of ``start``, with its options (``engine/boot.py`` ``open_boot``'s).
    ``from_card``: read the config in ``finish`` when the last start's card was written for
    the same one (the TUI; facade/start_card.py).  Raises ``ConfigError`` or
    ``StorageError``."""
    store, config = split_options(options)
    # A given config object is not a file the card could be checked against.
    use_card = from_card and config.get("config") is None
    card = read_card(config) if use_card else None
    salt_key = new_key(config) if use_card and card is None else None
    defaults = card is None and use_card and home_defaults_apply(config)

    def read_config() -> Configured:
        from milk_tui.engine.boot import configure

        return configure(**config)

    def rewrite(card: StartCard) -> None:
        # The defaults' card is keyed as things were before the config was read: a config
        # written meanwhile leaves a card that does not match.
        write_card(salt_key if defaults and salt_key else new_key(config), card)

    if defaults:
        card = HOME_DEFAULTS
    configured = None if card is not None else read_config()
    opened = open_store(**store)
    if configured is not None:
        card = card_of(configured)
        if salt_key is not None:
            write_card(salt_key, card)
    assert card is not None
    return Opening(
        opened,
        card,
        configure=read_config,
        configured=configured,
        rewrite_card=rewrite if use_card else None,
        write_card_after=defaults,
        permission_policy=permission_policy,
        cooperative=cooperative,
    )
