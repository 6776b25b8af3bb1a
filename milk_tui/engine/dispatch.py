"""The dispatcher: one turn at a time, and the only place that changes a session.

Order of a turn (ADR-0038): route → build context from the *answered* history → agent
streams (text through the slot's tag interceptor) → on success record the user turn, then
the assistant turn when non-empty, tokens, bricks, state — all in one transaction.  Any
failure or cancellation restores the session snapshot, records nothing and publishes
``turn_failed``.  Agents never see the session; widgets never see agents.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass
from typing import Any, Literal

from milk_tui.agents.base import (
    Agent,
    AgentError,
    AgentRequest,
    PermissionQuestion,
    SessionNotFound,
    Slot,
)
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.agent_stream import consume_stream
from milk_tui.engine.bus import EventBus
from milk_tui.engine.handoff import HandoffPlan, plan_escalation
from milk_tui.engine.router import RouteFlags, Router
from milk_tui.engine.turn_requests import TurnRequestsMixin
from milk_tui.engine.turn_scratch import PendingHandoff, SessionSnapshot, TurnScratch
from milk_tui.model import events as ev
from milk_tui.model.nonce import new_nonce
from milk_tui.model.session import (
    ESCALATION,
    PRIMARY,
    Session,
    State,
    TokenUsage,
    Turn,
    ends_with_question,
)
from milk_tui.model.tags import strip_tags
from milk_tui.storage.db import StorageError
from milk_tui.storage.sessions import SessionStore

REPEATED_PROMPT_REASON = "user repeated the same question without expressing satisfaction"
"""Reference core §2.8: the brief handed to the escalation agent when the guard fires."""


@dataclass
class AgentSlot:
    slot: Slot
    config: AgentConfig
    agent: Agent

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def is_cli(self) -> bool:
        return self.config.kind == "claude-cli"


@dataclass
class TurnOutcome:
    ok: bool
    slot: Slot | None = None
    text: str = ""
    error: str = ""
    cancelled: bool = False
    escalation_reason: str = ""
    handoff: PendingHandoff | None = None


class BusyError(RuntimeError):
    pass


class Dispatcher(TurnRequestsMixin):
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
        memory: Any | None = None,
        router: Router | None = None,
        availability: Any | None = None,
        permission_policy: Literal["ask", "allow", "deny"] = "ask",
    ) -> None:
        self.config = config
        self.store = store
        self.session = session
        self.bus = bus
        self.cwd = cwd
        self.primary = primary
        self.escalation = escalation
        self.memory = memory
        self.router: Router = router or Router(config, cwd)
        self.availability = availability
        self.permission_policy = permission_policy
        self.flags = RouteFlags()
        self._busy = False
        self._task: asyncio.Task[TurnOutcome] | None = None
        self._permission_waiters: dict[str, asyncio.Future[bool]] = {}

    # ----- public commands ------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def primary_name(self) -> str:
        return self.primary.name if self.primary else "primary"

    @property
    def escalation_name(self) -> str:
        return self.escalation.name if self.escalation else "escalation"

    def submit(
        self, prompt: str, *, force: Literal["escalate", "primary"] | None = None
    ) -> asyncio.Task[TurnOutcome]:
        """Start a turn in the background (the TUI path); ``cancel()`` stops it."""
        if self._busy:
            raise BusyError("a turn is already running")
        self._task = asyncio.create_task(self.run_turn(prompt, force=force))
        return self._task

    def cancel(self) -> bool:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            return True
        return False

    def answer_permission(self, request_id: str, allow: bool) -> None:
        fut = self._permission_waiters.pop(request_id, None)
        if fut is not None and not fut.done():
            fut.set_result(allow)

    def escalate_command(self, arg: str) -> str | None:
        """``/escalate [fresh] [prompt]`` → the prompt to run forced, or None (pinned)."""
        words = arg.strip()
        fresh = words == "fresh" or words.startswith("fresh ")
        if fresh:
            words = words[len("fresh") :].strip()
            self.session.force_fresh_escalation = True
            self.session.escalation_nonce = new_nonce()  # DESIGN §5.6: rotated by /escalate fresh
            self._notice("next escalation starts fresh (new session, new nonce)")
        if words:
            return words
        if not fresh:
            self.router.escalate_command(self.flags, pin=True)
            self._notice(f"pinned to {self.escalation_name} until /primary")
        return None

    def primary_command(self, arg: str) -> str | None:
        """``/primary [prompt]``: drop escalation stickiness; bare, it pins the primary."""
        prev = self.session.state
        self.router.primary_command(self.flags, self.session, pin=not arg.strip())
        if self.session.state != prev:
            self._publish(ev.StateChanged(state=self.session.state.value, previous=prev.value))
        if arg.strip():
            return arg.strip()
        self._notice(f"pinned to {self.primary_name} until /escalate")
        return None

    async def end_session(self) -> None:
        """Consolidate memory at session end (DESIGN §5.7: exit, /new, switch)."""
        if self.memory is None:
            return
        try:
            await asyncio.to_thread(
                self.memory.consolidate, self.session.id, self.config.percept_store_max
            )
        except Exception as e:  # noqa: BLE001 — consolidation must never block leaving
            self._notice(f"memory consolidation failed: {e}", level="warning")

    async def switch_session(self, session: Session) -> None:
        if self._busy:
            raise BusyError("cannot switch sessions while a turn is running")
        await self.end_session()
        self.session = session
        self.flags = RouteFlags()
        self._notice(f"session {session.name or session.id[:8]} ({len(session.history)} turns)")

    # ----- the turn -------------------------------------------------------------------

    async def run_turn(
        self, prompt: str, *, force: Literal["escalate", "primary"] | None = None
    ) -> TurnOutcome:
        if self._busy and self._task is not asyncio.current_task():
            raise BusyError("a turn is already running")
        self._busy = True
        try:
            s = self.session
            self._publish(ev.TurnStarted(prompt=prompt, turn_index=len(s.history) + 1))
            try:
                target, reason, rule, label = await self._route(prompt, force)
            except AgentError as e:
                return self._fail(None, str(e), prompt=prompt)
            slot = self.primary if target == PRIMARY else self.escalation
            self._publish(
                ev.RouteDecided(
                    target=target,
                    agent_name=slot.name if slot else target,
                    reason=reason,
                    rule=rule,
                    label=label,
                )
            )
            if target == PRIMARY:
                outcome = await self._primary_turn(prompt)
                if outcome.ok and outcome.escalation_reason:
                    if self.escalation is None:
                        self._notice(
                            "no escalation agent is configured; the primary's answer stands",
                            level="warning",
                        )
                    else:
                        outcome = await self._escalation_turn(
                            prompt, brief=outcome.escalation_reason, handoff=outcome.handoff
                        )
            else:
                outcome = await self._escalation_turn(prompt, brief="")
            self._after_route(target, outcome, force)
            return outcome
        finally:
            self._busy = False

    async def _route(self, prompt: str, force: str | None) -> tuple[Slot, str, str, str]:
        f = self.flags
        f.force_escalate = force == "escalate"
        f.force_primary = force == "primary"
        d = await self.router.decide(prompt, self.session, f)
        target, reason, rule, label = d.target, d.reason, d.rule, d.label
        if target == PRIMARY and self.primary is None:
            target, reason, rule, label = (
                ESCALATION,
                "no primary agent configured",
                "fallback",
                "fallback",
            )
        if target == ESCALATION and self.escalation is None:
            target, reason, rule, label = (
                PRIMARY,
                "no escalation agent configured",
                "fallback",
                "fallback",
            )
        if self.availability is not None:
            target, fb_label, notice = await self.availability.apply_fallback(target)
            if notice:
                self._notice(notice, level="warning")
                reason, rule, label = notice, "fallback", fb_label or "fallback"
        if (self.primary if target == PRIMARY else self.escalation) is None:
            raise AgentError("no agent configured: add an entry to agents[] in the config file")
        return target, reason, rule, label

    def _after_route(self, target: Slot, outcome: TurnOutcome, force: str | None) -> None:
        self.router.after_turn(self.flags, target, outcome.ok, force, self.config.sticky_escalation)

    # ----- primary ----------------------------------------------------------------------

    async def _primary_turn(self, prompt: str) -> TurnOutcome:
        assert self.primary is not None
        slot, s = self.primary, self.session
        snap = SessionSnapshot.take(s)
        scratch = TurnScratch()
        try:
            self._set_state(State.LOCAL)
            if not s.primary_nonce:
                s.primary_nonce = new_nonce()
            from milk_tui.engine.repeat_guard import is_repeated_prompt

            answered = [t.content for t in s.history if t.role == "user"]
            if is_repeated_prompt(answered, prompt, s.repetition_baseline):
                scratch.escalation_reason = REPEATED_PROMPT_REASON
            else:
                await self._consume(slot, self._primary_request(prompt, scratch), scratch)
            return self._commit_primary(prompt, slot, scratch, snap)
        except asyncio.CancelledError:
            return self._cancelled(slot, snap, prompt)
        except (AgentError, StorageError, OSError) as e:
            return self._fail(slot, str(e), snap, prompt, unreachable=_unreachable(e))

    def _commit_primary(
        self, prompt: str, slot: AgentSlot, scratch: TurnScratch, snap: SessionSnapshot
    ) -> TurnOutcome:
        s, cfg = self.session, self.config
        text = strip_tags(scratch.joined_text())
        new_turns = [Turn("user", prompt, agent=PRIMARY, agent_name=slot.name)]
        if text.strip():
            new_turns.append(
                Turn(
                    "assistant",
                    text,
                    agent=PRIMARY,
                    agent_name=slot.name,
                    thinking=scratch.joined_thinking(),
                )
            )
        deltas = self._apply_usage(scratch, PRIMARY, slot.config.model or slot.name)
        handing_off = bool(scratch.escalation_reason) and self.escalation is not None
        if handing_off:
            self._publish(
                ev.Notice(message=f"{slot.name} requested escalation: {scratch.escalation_reason}")
            )
            # ADR-0031: the escalation agent always gets a need, at least the prompt itself.
            if not s.current_need and s.record_need(prompt, producer="system"):
                self._publish_need()
        else:
            s.history.extend(new_turns)
            if len(new_turns) > 1:
                s.rebuild_summary_bricks(cfg.resolve_context_budget(slot.config))
            self._set_state(State.ROUTING)
            try:
                self.store.commit_turns(s, new_turns, deltas)
            except StorageError as e:
                return self._fail(slot, f"could not save the turn: {e}", snap, prompt)
            self._record_percepts(scratch, PRIMARY, len(s.history) - len(new_turns) + 1)
        self._publish(
            ev.TurnCompleted(
                slot=PRIMARY,
                agent_name=slot.name,
                text=text,
                thinking=scratch.joined_thinking(),
                history_len=len(s.history),
                self_escalated=bool(scratch.escalation_reason),
            )
        )
        return TurnOutcome(
            ok=True,
            slot=PRIMARY,
            text=text,
            escalation_reason=scratch.escalation_reason,
            handoff=PendingHandoff(new_turns, deltas, scratch, snap) if handing_off else None,
        )

    # ----- escalation -------------------------------------------------------------------

    async def _escalation_turn(
        self, prompt: str, brief: str, handoff: PendingHandoff | None = None
    ) -> TurnOutcome:
        assert self.escalation is not None
        slot, s = self.escalation, self.session
        # A failed hand-off rolls back to before the primary half too.
        snap = handoff.snapshot if handoff else SessionSnapshot.take(s)
        scratch = TurnScratch()
        try:
            forced = s.force_fresh_escalation
            if forced:
                s.force_fresh_escalation = False
                s.escalation_session_id = ""
                s.memory_instruction_injected_at = 0
                s.current_need, s.current_need_set_at = "", 0
            plan = plan_escalation(
                s, self.config.resolve_returning_fresh_start(slot.config), forced_fresh=forced
            )
            if plan.mode == "first":
                # DESIGN §5.3: with no explicit reason the brief is the prompt itself.
                s.escalation_brief = brief or prompt
            self._set_state(State.ESCALATION)
            if not s.escalation_nonce:
                s.escalation_nonce = new_nonce()
            request, context_text = self._escalation_request(prompt, plan, scratch)
            self._publish_escalation_started(slot, plan, context_text)
            try:
                await self._consume(slot, request, scratch)
            except SessionNotFound:
                self._notice(
                    f"{slot.name} no longer knows session {plan.resume_session_id[:8]}; starting fresh",
                    level="warning",
                )
                s.escalation_session_id = ""
                # The failed attempt already marked the primary activity as sent; the fresh
                # run must carry it again (Go loses it here).
                s.last_local_summary_injected = snap.values["last_local_summary_injected"]  # type: ignore[assignment]
                plan = HandoffPlan(mode="first", history_start=plan.history_start)
                scratch = TurnScratch()
                request, context_text = self._escalation_request(prompt, plan, scratch)
                self._publish_escalation_started(slot, plan, context_text)
                await self._consume(slot, request, scratch)
            return self._commit_escalation(prompt, slot, scratch, snap, context_text, handoff)
        except asyncio.CancelledError:
            return self._cancelled(slot, snap, prompt)
        except (AgentError, StorageError, OSError) as e:
            self._publish(ev.EscalationFinished(agent_name=slot.name, ok=False))
            return self._fail(slot, str(e), snap, prompt, unreachable=_unreachable(e))

    def _publish_escalation_started(
        self, slot: AgentSlot, plan: HandoffPlan, context_text: str
    ) -> None:
        self._publish(
            ev.EscalationStarted(
                agent_name=slot.name,
                mode=plan.mode,
                downgraded=plan.downgraded,
                downgrade_reasons=list(plan.reasons),
                local_turns_since=plan.local_turns_since,
                resume=bool(plan.resume_session_id),
                escalation_session_id=plan.resume_session_id,
                brief=self.session.escalation_brief,
                context_text=context_text,
            )
        )

    def _commit_escalation(
        self,
        prompt: str,
        slot: AgentSlot,
        scratch: TurnScratch,
        snap: SessionSnapshot,
        context_text: str,
        handoff: PendingHandoff | None,
    ) -> TurnOutcome:
        s, cfg = self.session, self.config
        text = strip_tags(scratch.joined_text())
        before = list(handoff.turns) if handoff else []
        own = [
            Turn("user", prompt, agent=ESCALATION, agent_name=slot.name, context_text=context_text)
        ]
        if text.strip():
            own.append(
                Turn(
                    "assistant",
                    text,
                    agent=ESCALATION,
                    agent_name=slot.name,
                    thinking=scratch.joined_thinking(),
                )
            )
        new_turns = before + own
        first_pos = len(s.history) + 1
        s.history.extend(new_turns)
        if before and s.current_need_set_at == first_pos:
            # A need recorded during a hand-off belongs to the exchange that was answered —
            # the escalation's user turn — or the 4-record hand-off would read as stale
            # on the very next turn (DESIGN §5.1 counts one exchange as two records).
            s.current_need_set_at = first_pos + len(before)
            self._publish_need()
        if scratch.backend_session_id:
            s.escalation_session_id = scratch.backend_session_id
        deltas = (handoff.usage if handoff else []) + self._apply_usage(
            scratch, ESCALATION, slot.config.model or slot.name
        )
        if len(new_turns) > 1:
            s.rebuild_summary_bricks(cfg.resolve_context_budget(slot.config))
        asked = ends_with_question(text)
        if asked:
            self._set_state(State.ESCALATION_WAITING)
        else:
            s.escalation_brief = ""
            self._set_state(State.ROUTING)
        try:
            self.store.commit_turns(s, new_turns, deltas)
        except StorageError as e:
            self._publish(ev.EscalationFinished(agent_name=slot.name, ok=False))
            return self._fail(slot, f"could not save the turn: {e}", snap, prompt)
        if handoff:
            self._record_percepts(handoff.scratch, PRIMARY, first_pos)
        self._record_percepts(scratch, ESCALATION, first_pos + len(before))
        self._publish(
            ev.EscalationFinished(
                agent_name=slot.name,
                escalation_session_id=s.escalation_session_id,
                ends_with_question=asked,
                cost_usd=scratch.cost_usd,
            )
        )
        self._publish(
            ev.TurnCompleted(
                slot=ESCALATION,
                agent_name=slot.name,
                text=text,
                thinking=scratch.joined_thinking(),
                history_len=len(s.history),
            )
        )
        return TurnOutcome(ok=True, slot=ESCALATION, text=text)

    async def _consume(self, slot: AgentSlot, request: AgentRequest, scratch: TurnScratch) -> None:
        await consume_stream(
            slot.agent,
            request,
            scratch,
            slot=slot.slot,
            fallback_model=slot.config.model or slot.name,
            session_id=self.session.id,
            publish=self.bus.publish,
            on_need=lambda body: self._on_need(body, slot.slot),
        )

    # ----- helpers ----------------------------------------------------------------------

    def _on_need(self, body: str, producer: str) -> None:
        if self.session.record_need(body, producer=producer):
            self._publish_need()

    def _publish_need(self) -> None:
        s = self.session
        self._publish(
            ev.NeedChanged(
                need=s.current_need, set_at=s.current_need_set_at, producer=s.need_producer
            )
        )

    def _record_percepts(self, scratch: TurnScratch, producer: Slot, turn_index: int) -> None:
        if self.memory is None or not scratch.percepts:
            return
        for body, consumer in scratch.percepts:
            # A failed write stays pending in the service (with a notice), tag or tool alike.
            self.memory.record_from_agent(
                body,
                producer,
                self.session.id,
                turn_index,
                self.primary_name,
                self.escalation_name,
                consumer=consumer,
            )

    def _apply_usage(self, scratch: TurnScratch, default_role: str, model: str) -> list[TokenUsage]:
        deltas = []
        for u in scratch.usage:
            if self.session.add_tokens(
                u.model or model,
                u.role or default_role,
                u.prompt,
                u.completion,
                u.cache_read,
                u.cache_creation,
                u.cost_usd,
            ):
                deltas.append(u)
        return deltas

    async def _ask_permission(self, q: PermissionQuestion) -> bool:
        if self.permission_policy != "ask":
            return self.permission_policy == "allow"
        rid = uuid.uuid4().hex[:12]
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._permission_waiters[rid] = fut
        self._publish(
            ev.PermissionRequested(
                request_id=rid,
                agent_name=q.agent_name,
                tool_name=q.tool_name,
                tool_input=q.tool_input,
            )
        )
        try:
            return await fut
        finally:
            self._permission_waiters.pop(rid, None)

    def _set_state(self, state: State) -> None:
        prev = self.session.state
        if prev != state:
            self.session.state = state
            self._publish(ev.StateChanged(state=state.value, previous=prev.value))

    def _publish(self, event: ev.BusEvent) -> None:
        if not event.session_id:
            event = event.model_copy(update={"session_id": self.session.id})
        self.bus.publish(event)

    def _notice(self, message: str, level: Literal["info", "warning", "error"] = "info") -> None:
        self._publish(ev.Notice(level=level, message=message))

    def _restore(self, snap: SessionSnapshot | None) -> None:
        if snap is None:
            return
        before_need = self.session.current_need
        prev_state = self.session.state
        snap.restore(self.session)
        if self.session.state != prev_state:
            self._publish(
                ev.StateChanged(state=self.session.state.value, previous=prev_state.value)
            )
        if self.session.current_need != before_need:
            self._publish_need()

    def _fail(
        self,
        slot: AgentSlot | None,
        error: str,
        snap: SessionSnapshot | None = None,
        prompt: str = "",
        *,
        unreachable: bool = False,
    ) -> TurnOutcome:
        self._restore(snap)
        if unreachable and slot is not None and self.availability is not None:
            # Trust the failed connection over a cached "up" until the next probe.
            self.availability.mark_down(slot.slot, error)
        self._publish(
            ev.TurnFailed(
                slot=slot.slot if slot else None,
                agent_name=slot.name if slot else "",
                error=error,
                prompt=prompt,
            )
        )
        return TurnOutcome(ok=False, slot=slot.slot if slot else None, error=error)

    def _cancelled(self, slot: AgentSlot, snap: SessionSnapshot, prompt: str) -> TurnOutcome:
        task = asyncio.current_task()
        if task is not None:
            with contextlib.suppress(AttributeError):
                task.uncancel()
        self._restore(snap)
        self._publish(
            ev.TurnFailed(
                slot=slot.slot,
                agent_name=slot.name,
                error="cancelled",
                cancelled=True,
                prompt=prompt,
            )
        )
        return TurnOutcome(ok=False, slot=slot.slot, error="cancelled", cancelled=True)


def _unreachable(e: Exception) -> bool:
    """A connection-level failure (not an answer from the backend saying no)."""
    return isinstance(e, AgentError) and e.unreachable


__all__ = ["AgentSlot", "BusyError", "Dispatcher", "TurnOutcome"]
