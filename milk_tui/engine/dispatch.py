"""The dispatcher: one turn at a time, and the only place that changes a session.

It wires the parts and keeps the commands the UI and the CLI call.  The parts, each
handed the one shared ``DispatchState``:

* ``turn_lifecycle.TurnRunner`` — start, route, run, cancel, roll back;
* ``request_builder.RequestBuilder`` — what each agent is handed;
* ``turn_commit.TurnCommitter`` — recording a turn that succeeded;
* ``permissions.PermissionBroker`` — tool permission questions;
* ``handoff.plan_escalation`` — the escalation's context mode and the fresh-start downgrade.
"""

from __future__ import annotations

import asyncio
from typing import Generic, Literal, TypeVar, overload

from milk_tui.agents.base import PermissionAnswer, PermissionQuestion
from milk_tui.config.paths import permissions_dir
from milk_tui.config.settings import MilkConfig
from milk_tui.engine.agent_slot import AgentSlot
from milk_tui.engine.availability import AvailabilityCache
from milk_tui.engine.bus import EventBus
from milk_tui.engine.dispatch_state import DispatchState, PermissionPolicy
from milk_tui.engine.permissions import PermissionBroker
from milk_tui.engine.request_builder import RequestBuilder
from milk_tui.engine.router import RouteFlags, Router
from milk_tui.engine.router_learning import LearnedRoutes, learned_summary
from milk_tui.engine.task_board import TaskBoard
from milk_tui.engine.turn_commit import TurnCommitter
from milk_tui.engine.turn_lifecycle import BusyError, Files, Force, TurnRunner
from milk_tui.engine.turn_publisher import TurnPublisher
from milk_tui.engine.turn_scratch import TurnOutcome
from milk_tui.engine.workflow.control import WorkflowControl
from milk_tui.engine.workflow.files import WorkflowFiles
from milk_tui.engine.workflow.role_turn import RoleTurns
from milk_tui.memory.service import MemoryService
from milk_tui.model import events as ev
from milk_tui.model.nonce import new_nonce
from milk_tui.model.session import Session
from milk_tui.storage.permission_grants import GrantStore
from milk_tui.storage.route_examples import RouteExampleStore
from milk_tui.storage.sessions import SessionStore
from milk_tui.storage.tasks import TaskStore

T = TypeVar("T")

RETRY_PROMPT = "Permission granted for the tool calls that were denied; please retry them."


class _OnState(Generic[T]):
    """A Dispatcher attribute kept on its ``DispatchState``: an assignment (a new session,
    a replaced agent) reaches every part at once."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, obj: None, objtype: type | None = None) -> _OnState[T]: ...
    @overload
    def __get__(self, obj: Dispatcher, objtype: type | None = None) -> T: ...
    def __get__(self, obj: Dispatcher | None, objtype: type | None = None) -> T | _OnState[T]:
        if obj is None:
            return self
        value: T = getattr(obj.state, self._name)
        return value

    def __set__(self, obj: Dispatcher, value: T) -> None:
        setattr(obj.state, self._name, value)


class Dispatcher:
    config = _OnState[MilkConfig]()
    store = _OnState[SessionStore]()
    session = _OnState[Session]()
    bus = _OnState[EventBus]()
    cwd = _OnState[str]()
    primary = _OnState[AgentSlot | None]()
    escalation = _OnState[AgentSlot | None]()
    memory = _OnState[MemoryService | None]()
    router = _OnState[Router]()
    availability = _OnState[AvailabilityCache | None]()
    permission_policy = _OnState[PermissionPolicy]()
    flags = _OnState[RouteFlags]()

    def __init__(
        self,
        *,
        config: MilkConfig,
        store: SessionStore,
        session: Session,
        bus: EventBus,
        cwd: str,
        primary: AgentSlot | None,
        escalation: AgentSlot | None,
        memory: MemoryService | None = None,
        router: Router | None = None,
        availability: AvailabilityCache | None = None,
        permission_policy: PermissionPolicy = "ask",
        grants: GrantStore | None = None,
    ) -> None:
        router = router or Router(config, cwd)
        if router.learned is None:
            router.learned = LearnedRoutes(RouteExampleStore(store.db), cwd)
        self.state = DispatchState(config, store, session, bus, cwd, primary, escalation, router)
        self.state.memory, self.state.availability = memory, availability
        self.state.permission_policy = permission_policy
        self.state.tasks = TaskBoard(TaskStore(store.db), bus, lambda: self.state.session.id)
        self._publisher = TurnPublisher(self.state)
        self.permissions = PermissionBroker(
            self.state, self._publisher, grants or GrantStore(permissions_dir())
        )
        requests = RequestBuilder(
            self.state, self._publisher, self.permissions.ask, self.permissions.ask_user
        )
        self.workflow = WorkflowControl(
            self.state,
            RoleTurns(self.state, requests, self.permissions.ask, self.permissions.ask_user),
            WorkflowFiles,
        )
        """The dev workflow (engine/workflow/): while it runs, no turn starts."""
        self._turns = TurnRunner(
            self.state,
            self._publisher,
            requests,
            TurnCommitter(self.state, self._publisher),
            on_denials=self.permissions.record_denials,
        )
        self._restore_pin()

    # ----- the turn -------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._turns.busy or self.workflow.running

    @property
    def primary_name(self) -> str:
        return self.state.primary_name

    @property
    def escalation_name(self) -> str:
        return self.state.escalation_name

    def submit(
        self, prompt: str, *, force: Force | None = None, attachments: Files = ()
    ) -> asyncio.Task[TurnOutcome]:
        """Start a turn in the background (the TUI path); ``cancel()`` stops it."""
        if self.workflow.running:
            raise BusyError("a workflow is running")
        return self._turns.submit(prompt, force=force, attachments=attachments)

    async def run_turn(
        self, prompt: str, *, force: Force | None = None, attachments: Files = ()
    ) -> TurnOutcome:
        if self.workflow.running:
            raise BusyError("a workflow is running")
        return await self._turns.run_turn(prompt, force=force, attachments=attachments)

    def cancel(self) -> bool:
        if self.workflow.running and self.workflow.task is not None:
            return self.workflow.task.cancel()
        return self._turns.cancel()

    def answer_permission(self, request_id: str, answer: PermissionAnswer) -> None:
        self.permissions.answer(request_id, answer)

    async def _ask_permission(self, q: PermissionQuestion) -> PermissionAnswer:
        return await self.permissions.ask(q)

    def answer_question(self, request_id: str, answers: dict[str, str] | None) -> None:
        self.permissions.answer_question(request_id, answers)

    def grant_and_retry(self) -> asyncio.Task[TurnOutcome] | None:
        """Allow the last turn's refused calls for this folder and resume the agent that was
        refused, asking it to retry; None when there is nothing to grant."""
        if self.busy:
            raise BusyError("a turn is running")
        granted = self.permissions.grant_denied()
        if not granted:
            return None
        names = ", ".join(dict.fromkeys(d.tool_name for d in granted))
        self._publisher.notice(f"granted {names} for this folder; retrying")
        return self.submit(RETRY_PROMPT, force="escalate")

    # ----- commands -------------------------------------------------------------------

    def escalate_command(self, arg: str) -> str | None:
        """``/escalate [fresh] [prompt]`` → the prompt to run forced, or None (pinned)."""
        words = arg.strip()
        fresh = words == "fresh" or words.startswith("fresh ")
        if fresh:
            words = words[len("fresh") :].strip()
        taught = self.router.learn_from_escalate(self.session, words)
        if taught:
            self._publisher.notice(taught)
        if fresh:
            self.session.force_fresh_escalation = True
            self.session.escalation_nonce = new_nonce()  # a fresh start gets a new nonce too
            self._publisher.notice("next escalation starts fresh (new session, new nonce)")
        if words:
            return words
        if not fresh:
            self.router.escalate_command(self.flags, pin=True)
            self._publisher.notice(f"pinned to {self.escalation_name}; /auto routes by rules again")
            self._publish_pin()
        return None

    def primary_command(self, arg: str) -> str | None:
        """``/primary [prompt]``: drop escalation stickiness; bare, it pins the primary."""
        taught = self.router.learn_from_primary(self.session, arg)
        if taught:
            self._publisher.notice(taught)
        prev = self.session.state
        self.router.primary_command(self.flags, self.session, pin=not arg.strip())
        self._publisher.state_changed_from(prev)
        if arg.strip():
            self._keep_pin()  # a pinned escalation ends here too
            return arg.strip()
        self._publisher.notice(f"pinned to {self.primary_name}; /auto routes by rules again")
        self._publish_pin()
        return None

    def auto_command(self, arg: str = "") -> None:
        """``/auto``: drop the pin; the router picks the agent for each prompt again, and what
        it learned from the user is listed.  ``/auto reset`` forgets this folder's examples,
        ``/auto reset --global`` every folder's."""
        words = arg.split()
        if words[:1] == ["reset"]:
            everywhere = any(w in ("--global", "global", "--all", "all") for w in words[1:])
            n = self.router.learned.reset(everywhere) if self.router.learned else 0
            where = "in every folder" if everywhere else "for this folder"
            self._publisher.notice(f"routing: forgot {n} learned example(s) {where}")
            return
        self.router.auto_command(self.flags)
        self._publisher.notice("automatic routing: the router picks the agent for each prompt")
        self._publisher.notice(learned_summary(self.router.learned))
        self._publish_pin()

    @property
    def pinned(self) -> Literal["", "primary", "escalation"]:
        """The slot ``/primary`` or ``/escalate`` pinned; "" while routing is automatic."""
        if self.flags.pinned_escalate:
            return "escalation"
        return "primary" if self.flags.pinned_primary else ""

    def _publish_pin(self) -> None:
        self._keep_pin()
        self._publisher.publish(ev.RoutingPinned(pinned=self.pinned))

    def _keep_pin(self) -> None:
        """The pin is the session's: stored with it, so a resumed session routes as it did."""
        if self.session.routing_pin != self.pinned:
            self.session.routing_pin = self.pinned
            self.store.save_meta(self.session)

    def _restore_pin(self) -> None:
        """The flags of a session just opened: its stored pin, no one-turn force."""
        pin = self.session.routing_pin
        self.flags = RouteFlags(
            pinned_escalate=pin == "escalation", pinned_primary=pin == "primary"
        )

    def set_need(self, text: str) -> bool:
        """``/need TEXT``: the user states the need; recorded as set by the user and saved.
        False when it is the need already recorded."""
        if self.busy:
            raise BusyError("a turn is running")
        if not self.session.record_need(text, producer="user"):
            return False
        self._publisher.need_changed()
        self.store.save_meta(self.session)
        return True

    async def end_session(self) -> None:
        """Consolidate memory when a session ends (exit, /new, switching sessions)."""
        if self.memory is None:
            return
        try:
            await asyncio.to_thread(
                self.memory.consolidate, self.session.id, self.config.percept_store_max
            )
        except Exception as e:  # noqa: BLE001 — consolidation must never block leaving
            self._publisher.notice(f"memory consolidation failed: {e}", level="warning")

    async def switch_session(self, session: Session) -> None:
        if self.busy:
            raise BusyError("cannot switch sessions while a turn is running")
        await self.end_session()
        self.session = session
        self._restore_pin()
        self._publisher.notice(
            f"session {session.name or session.id[:8]} ({len(session.history)} turns)"
        )
        if self.state.tasks is not None:
            self.state.tasks.publish()  # the pane shows the list of the session now in use


__all__ = ["AgentSlot", "BusyError", "Dispatcher", "Force", "TurnOutcome"]
