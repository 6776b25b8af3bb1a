"""The application facade: what the TUI and the CLI do, as intent-named methods.

``Application`` wraps the engine's ``Runtime`` (config, database, agents, dispatcher, bus).
Commands return typed values; everything that happens during a turn arrives as bus events
through ``add_listener``.  With every finished or failed turn (just before its
``TurnCompleted``/``TurnFailed``) and after a session switch the facade publishes a
``SessionChanged`` with the session's committed values (tokens included), so no view reads
the live session.  Mid-turn changes arrive as their own events (``Usage``,
``NeedChanged``, ``StateChanged``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal, ParamSpec

from milk_tui.agents.base import PermissionAnswer
from milk_tui.engine.runtime import Runtime, build_runtime
from milk_tui.engine.turn_lifecycle import BusyError, Force
from milk_tui.facade import services
from milk_tui.facade.agents import Agents
from milk_tui.facade.attachments import Attachments
from milk_tui.facade.changes import ChangeWatch
from milk_tui.facade.facts import Facts
from milk_tui.facade.services import Service
from milk_tui.facade.sessions import SessionCatalog
from milk_tui.facade.shell import DirectShell
from milk_tui.facade.turn_result import TurnResult, as_result
from milk_tui.facade.views import StartupInfo, agent_info, held_turns, older_turns, session_view
from milk_tui.model import events as ev
from milk_tui.model.session import Session, Turn

if TYPE_CHECKING:
    from milk_tui.engine.telemetry import TelemetryStatus
    from milk_tui.facade.remote_oversight import RemoteOversight

Listener = Callable[[ev.BusEvent], None]
P = ParamSpec("P")

SHUTDOWN_WAIT_S = 1.0
"""How long leaving waits for a cancelled turn to unwind before consolidating anyway."""


def _opening_application(build: Callable[P, Runtime]) -> Callable[P, Application]:
    def start(*args: P.args, **kwargs: P.kwargs) -> Application:
        return Application(build(*args, **kwargs))

    return start


start = _opening_application(build_runtime)
"""``start(cwd=…, config_path=…, new=…, session_name=…, demo=…, debug=…, permission_policy=…,
config=…, cooperative=…)``: open config, database, session and agents (``build_runtime``'s
options) and wrap them.  ``cooperative=True`` makes the agents' streams yield to the event
loop every few ms: an interactive UI asks for it, print mode not.  Raises ``ConfigError``
or ``StorageError``."""


def as_application(target: Application | Runtime, *, cooperative: bool = False) -> Application:
    """An ``Application`` for ``target`` (a runtime built elsewhere, e.g. by a test)."""
    app = target if isinstance(target, Application) else Application(target)
    if cooperative:
        app.runtime.make_cooperative()
    return app


class Application:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        """The engine underneath; the UI never touches it (tests and benchmarks may)."""
        self.sessions = SessionCatalog(runtime.store)
        self.facts = Facts(runtime.memory)
        self.attachments = Attachments(runtime.dispatcher.cwd)
        """Files staged for the next prompt; ``submit`` sends them (facade/attachments.py)."""
        self.startup_notes: list[str] = list(runtime.startup_notes)
        """Said once in the welcome text; the UI adds its own (keymap, themes)."""
        self._listeners: list[Listener] = []
        self._finished = False
        self._remove = runtime.bus.add_listener(self._on_event)
        self._changes = ChangeWatch(runtime)
        self.agents = Agents(runtime)
        """The configured agents: list, probe, switch, add, remove, reload (``/agent``)."""
        self.shell = DirectShell(runtime, self.attachments)
        """Typed shell commands (``direct_bash``) and their output (facade/shell.py)."""
        from milk_tui.facade.workflow import Workflows

        self.workflow = Workflows(runtime)
        """The dev workflow: start, resume, clear (``/workflow``, ``milk-tui workflow``)."""
        if line := self.workflow.live_line():
            self.startup_notes.append(line)
        self.remote: RemoteOversight | None = None
        """Remote oversight over Telegram, once ``start_remote`` found it switched on."""

    # ----- events -------------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` inline for every bus event, in publication order; returns its
        remover.  A turn's ``SessionChanged`` comes right before its ``TurnCompleted`` or
        ``TurnFailed`` (for bus listeners added after this application too)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _on_event(self, event: ev.BusEvent) -> None:
        match event:
            case ev.TurnCompleted() | ev.TurnFailed():
                # The turn is committed (or rolled back) when this is published: announce the
                # session's new view first, so every listener has it when the end arrives.
                self.publish_session()
        for listener in list(self._listeners):
            listener(event)

    def publish_session(self) -> None:
        """Publish the session's current view as a ``SessionChanged``."""
        self.runtime.bus.publish(self.session_view())

    def session_view(self) -> ev.SessionChanged:
        s = self.runtime.dispatcher.session
        # A session held tail first (model/turn_history.py): its counts from the store, which
        # holds every turn the session holds (a turn is published once it is committed).
        return session_view(s, self.runtime.store.history_counts(s) if s.unread else None)

    async def check_external_changes(self) -> bool:
        """Pick up what another process (the CLI, a ``-p`` run) wrote: publishes
        ``SessionChanged`` when the live session was reloaded, then ``StoreChanged``; True
        when it published.  Cheap when nothing changed; waits while a turn runs."""
        change = await self._changes.check()
        if change is None:
            return False
        if change.session_reloaded:
            self.publish_session()
        self.runtime.bus.publish(change)
        return True

    # ----- what the UI shows --------------------------------------------------------------

    @property
    def keymap(self) -> dict[str, str]:
        return dict(self.runtime.config.keymap)

    @property
    def update_url(self) -> str:
        """Where the daily version check asks ("" when ``update_check`` is false)."""
        c = self.runtime.config
        return c.update_url if c.update_check else ""

    @property
    def config_editors(self) -> list[str]:
        """The config's ``config_editors``: tried first by ``/config open`` and ``/open``."""
        return list(self.runtime.config.config_editors)

    @property
    def theme(self) -> str:
        """The configured theme ("" when the config names none)."""
        return self.runtime.config.theme

    @property
    def cwd(self) -> str:
        return self.runtime.dispatcher.cwd

    @property
    def session_id(self) -> str:
        return self.runtime.dispatcher.session.id

    def startup_info(self) -> StartupInfo:
        d, rt = self.runtime.dispatcher, self.runtime
        return StartupInfo(
            primary=agent_info(d.primary.config if d.primary else None, d.primary_name),
            escalation=agent_info(d.escalation.config if d.escalation else None, d.escalation_name),
            demo=rt.demo,
            notes=tuple(self.startup_notes),
            config_path=str(rt.config_path) if rt.config_path else None,
        )

    def history(self) -> list[Turn]:
        """The live session's turns held in memory (a copy; turns are plain values): a long
        session's newest ones, ``history_start()`` before them (model/turn_history.py)."""
        return held_turns(self.runtime.dispatcher.session)

    def history_start(self) -> int:
        return self.runtime.dispatcher.session.unread

    def older_turns(self, stop: int, count: int) -> list[Turn]:
        """Up to ``count`` turns before 1-based position ``stop + 1``, read from the store."""
        return older_turns(self.runtime.dispatcher.session, stop, count)

    # ----- turns --------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.runtime.dispatcher.busy

    def submit(self, prompt: str, force: Force | None = None) -> asyncio.Task[TurnResult] | None:
        """Start a turn in the background; None when one is already running."""
        files = self.attachments.for_turn()
        try:
            inner = self.runtime.dispatcher.submit(prompt, force=force, attachments=files)
        except BusyError:
            return None
        task = as_result(inner)
        if files:  # answered: unstaged; failed: kept with the prompt that goes back
            task.add_done_callback(lambda t: self.attachments.sent_by(t, files))
        return task

    def pace_first_text(self, shown: Callable[[], Awaitable[None]]) -> None:
        """An interactive front end's wait for a reply's first text, just published, to be
        on screen: the agents read the rest of the reply once it returns (or after a frame
        or two, engine/cooperative.py), so the first token is painted before the rest of a
        fast reply is parsed."""
        self.runtime.pacing.first_text_shown = shown

    async def start_remote(self) -> None:
        """Start remote oversight when ``remote_oversight`` switches it on (once; never
        raises; a problem is one notice).  Off, nothing changes."""
        if self.remote is None:
            from milk_tui.facade.remote_oversight import start_remote_oversight

            self.remote = await start_remote_oversight(self)

    async def restart_remote(self) -> None:
        """Stop remote oversight and start it again from the config now held (``/setup``)."""
        if self.remote is not None:
            remote, self.remote = self.remote, None
            await remote.stop()
        await self.start_remote()

    async def preconnect(self) -> None:
        """Open the configured HTTP agents' connections ahead of the first prompt (call it once
        the UI is up; it never raises and never delays a turn)."""
        await self.runtime.preconnect()

    async def run_turn(self, prompt: str, force: Force | None = None) -> TurnResult:
        """Run one turn to its end (print mode).  Raises ``BusyError`` if one runs."""
        task = self.submit(prompt, force)
        if task is None:
            raise BusyError("a turn is already running")
        return await task

    def start_sitting(self) -> None:
        """Count repeated prompts from here on only (print mode, before its one turn).  A
        headless run is one prompt on its own: sending a prompt an earlier run sent is that
        run again (often with other flags, e.g. ``--allow-tools`` as a refusal advised), not
        a user repeating a question at an answer just read, which the repeated-prompt guard
        hands to the escalation agent (engine/repeat_guard.py)."""
        s = self.runtime.dispatcher.session
        s.repetition_baseline = s.user_turn_count()

    def cancel(self) -> bool:
        """Stop the running turn (it records nothing); False when none runs."""
        return self.runtime.dispatcher.cancel()

    def answer_permission(
        self,
        request_id: str,
        allow: bool,
        *,
        always: bool = False,
        wide: bool = False,
        reason: str = "",
        answered_from: str = "",
    ) -> None:
        """Answer a ``PermissionRequested``: ``always`` stores its ``grant`` for this folder
        (with ``wide``, its ``grant_all``); a denial's ``reason`` is told to the model.  The
        first answer wins (a later one is ignored); ``answered_from`` names a remote side."""
        always = allow and always
        answer = PermissionAnswer(
            allow, always=always, wide=always and wide, reason=reason, answered_from=answered_from
        )
        self.runtime.dispatcher.answer_permission(request_id, answer)

    def answer_question(self, request_id: str, answers: dict[str, str] | None) -> None:
        """Answer a ``QuestionAsked``: question text → chosen label(s) or free text; None
        declines (the agent is told the user did not answer)."""
        self.runtime.dispatcher.answer_question(request_id, answers)

    def grant_and_retry(self) -> asyncio.Task[TurnResult] | None:
        """Allow the calls of the last ``PermissionsDenied`` for this folder and resume the
        agent asking it to retry; None when there is nothing to grant or a turn runs."""
        try:
            inner = self.runtime.dispatcher.grant_and_retry()
        except BusyError:
            return None
        return None if inner is None else as_result(inner)

    # The smaller facades, each built over the live session at every access (facade/services.py).
    mcp = Service(services.mcp)
    tasks = Service(services.tasks)
    servers = Service(services.servers)
    transcript = Service(services.transcript)
    local_metrics = Service(services.local_metrics)
    usage = Service(services.usage)
    permissions = Service(services.permissions)
    project_trust = Service(services.project_trust)

    def telemetry_status(self) -> TelemetryStatus:
        """``/otel``: whether turns are exported over OpenTelemetry, where, how it went."""
        from milk_tui.engine.telemetry import inactive_status

        t = self.runtime.telemetry
        return t.status() if t is not None else inactive_status(self.runtime.config.otel)

    def escalate_command(self, arg: str) -> str | None:
        """``/escalate [fresh] [prompt]``: the prompt to send forced, or None (now pinned)."""
        return self.runtime.dispatcher.escalate_command(arg)

    def primary_command(self, arg: str) -> str | None:
        """``/primary [prompt]``: the prompt to send forced, or None (now pinned)."""
        return self.runtime.dispatcher.primary_command(arg)

    def auto_command(self, arg: str = "") -> None:
        """``/auto``: no pin; the router picks the agent for each prompt again (and lists what
        it learned); ``/auto reset [--global]`` forgets the learned examples."""
        self.runtime.dispatcher.auto_command(arg)

    @property
    def pinned(self) -> Literal["", "primary", "escalation"]:
        """ "primary" or "escalation" while ``/primary`` or ``/escalate`` pins; else ""."""
        return self.runtime.dispatcher.pinned

    def set_need(self, text: str) -> bool:
        """``/need TEXT``: record the need as set by the user; False when unchanged."""
        return self.runtime.dispatcher.set_need(text)

    # ----- the live session ---------------------------------------------------------------

    async def new_session(self, name: str = "") -> ev.SessionChanged:
        """Start a session in this folder and make it the live one (consolidates the old)."""
        await self._switch(self.sessions.create(self.cwd, name))
        return self.session_view()

    async def switch_session(self, session_id: str) -> ev.SessionChanged | None:
        """Make ``session_id`` the live session; None when it no longer exists.
        Raises ``BusyError`` while a turn runs."""
        if self.busy:
            raise BusyError("cannot switch sessions while a turn is running")
        s = await asyncio.to_thread(self.sessions.load, session_id)  # a long history: ms
        for warning in self.sessions.take_warnings():
            self.runtime.bus.publish(ev.Notice(level="warning", message=warning))
        if s is None:
            return None
        await asyncio.to_thread(self.runtime.store.touch, s.id)  # now the folder's latest
        await self._switch(s)
        return self.session_view()

    async def _switch(self, session: Session) -> None:
        await self.runtime.dispatcher.switch_session(session)
        for line in self.agents.session_opened():  # the agents and the pin it chose
            self.runtime.bus.publish(ev.Notice(level="info", message=line))
        self.runtime.bus.publish(ev.RoutingPinned(pinned=self.pinned))
        self.publish_session()

    def add_input(self, text: str) -> None:
        """Remember a typed prompt in the live session's input history."""
        self.sessions.add_input(text, self.session_id)

    def input_history(self) -> tuple[list[str], list[str]]:
        """(this session's prompts, every session's prompts), oldest first."""
        return self.sessions.inputs(self.session_id), self.sessions.inputs(None)

    # ----- leaving ------------------------------------------------------------------------

    async def consolidate(self) -> None:
        """Consolidate the live session's facts (session end); never raises."""
        await self.runtime.dispatcher.end_session()

    async def finish(self) -> None:
        """Leave once: cancel a running turn, wait for it briefly, consolidate memory."""
        if self._finished:
            return
        self._finished = True
        if self.cancel():
            for _ in range(int(SHUTDOWN_WAIT_S / 0.02)):
                if not self.busy:
                    break
                await asyncio.sleep(0.02)
        await self.consolidate()

    async def aclose(self) -> None:
        """Close the agents' connections and the database (on the loop they were opened on)."""
        if self.remote is not None:
            remote, self.remote = self.remote, None
            await remote.stop()
        await self.runtime.close_telemetry()  # its last warning still reaches our listeners
        if self.runtime.servers is not None:  # so does the run's `server_stopped`
            await self.runtime.servers.stop_started()
        self._remove()
        await self.runtime.aclose()

    def close_database(self) -> None:
        """Last resort after the event loop is gone; closing twice is harmless."""
        with contextlib.suppress(Exception):
            self.runtime.db.close()
