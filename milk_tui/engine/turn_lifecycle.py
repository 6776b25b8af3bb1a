"""One turn from start to end: route, run the agent(s), commit — or roll back.

Order of a turn (docs/adr/0001-record-the-user-turn-after-the-agent-answers.md): route →
build the request from the *answered* history → the agent streams (text through the
tag machine) → on success the commit records the user turn, then the reply, tokens,
bricks and state in one transaction.  Any failure or cancellation restores the session
snapshot, records nothing and publishes ``TurnFailed``.  Agents never see the session;
widgets never see agents.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Literal

from milk_tui.agents.base import AgentError, AgentRequest, DeniedTool, SessionNotFound, Slot
from milk_tui.engine.agent_slot import AgentSlot
from milk_tui.engine.agent_stream import consume_stream
from milk_tui.engine.dispatch_state import DispatchState
from milk_tui.engine.handoff import HandoffPlan, plan_escalation
from milk_tui.engine.loop_detection import ReplyWatch
from milk_tui.engine.repeat_guard import ESCALATION_REASON, is_repeated_prompt, recent_prompts
from milk_tui.engine.request_builder import RequestBuilder
from milk_tui.engine.turn_commit import TurnCommitter
from milk_tui.engine.turn_publisher import TurnPublisher
from milk_tui.engine.turn_rollback import TurnRollback
from milk_tui.engine.turn_scratch import (
    CUT_AT_LIMIT,
    PendingHandoff,
    SessionSnapshot,
    TurnOutcome,
    TurnScratch,
)
from milk_tui.model import events as ev
from milk_tui.model.attachment import Attachment
from milk_tui.model.nonce import new_nonce
from milk_tui.model.session import ESCALATION, PRIMARY, State
from milk_tui.storage.db import StorageError

Force = Literal["escalate", "primary"]
Files = tuple[Attachment, ...]
_TURN_ERRORS = (AgentError, StorageError, OSError)


class BusyError(RuntimeError):
    pass


class TurnRunner:
    def __init__(
        self,
        state: DispatchState,
        publisher: TurnPublisher,
        requests: RequestBuilder,
        commit: TurnCommitter,
        on_denials: Callable[[str, tuple[DeniedTool, ...]], None] | None = None,
    ) -> None:
        self._state = state
        self._on_denials = on_denials
        self._pub = publisher
        self._requests = requests
        self._commit = commit
        self._busy = False
        self._task: asyncio.Task[TurnOutcome] | None = None
        self._reply_watch: ReplyWatch | None = None
        self._rollback = TurnRollback(state, publisher)

    @property
    def busy(self) -> bool:
        return self._busy

    def submit(
        self, prompt: str, *, force: Force | None = None, attachments: Files = ()
    ) -> asyncio.Task[TurnOutcome]:
        """Start a turn in the background (the TUI path); ``cancel()`` stops it."""
        if self._busy:
            raise BusyError("a turn is already running")
        self._task = asyncio.create_task(
            self.run_turn(prompt, force=force, attachments=attachments)
        )
        return self._task

    def cancel(self) -> bool:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            return True
        return False

    async def run_turn(
        self, prompt: str, *, force: Force | None = None, attachments: Files = ()
    ) -> TurnOutcome:
        if self._busy and self._task is not asyncio.current_task():
            raise BusyError("a turn is already running")
        self._busy = True
        try:
            st, pub = self._state, self._pub
            st.attachments = attachments  # read by the request builder and the commit
            pub.publish(
                ev.TurnStarted(
                    prompt=prompt,
                    turn_index=len(st.session.history) + 1,
                    attachments=[a.info for a in attachments],
                )
            )
            try:
                target, reason, rule, label = await self._route(prompt, force)
            except AgentError as e:
                return self._rollback.fail(None, str(e), prompt=prompt)
            except asyncio.CancelledError:
                # Ctrl+C while the router or an availability probe (a ``claude --version``,
                # a /health request, a server starting) runs: nothing was sent yet.
                return self._rollback.cancelled(None, None, prompt)
            slot = st.agent(target)
            pub.publish(
                ev.RouteDecided(
                    target=target,
                    agent_name=slot.name if slot else target,
                    reason=reason,
                    rule=rule,
                    label=label,
                )
            )
            if target == PRIMARY:
                # A prompt sent to the primary on purpose (--primary, /primary) is not
                # taken as dissatisfaction, however often it is repeated.
                outcome = await self._primary_turn(prompt, guard_repeats=rule != "explicit")
                if outcome.ok and outcome.escalation_reason:
                    if st.escalation is None:
                        pub.notice(
                            "no escalation agent is configured; the primary's answer stands",
                            level="warning",
                        )
                    else:
                        outcome = await self._escalation_turn(
                            prompt,
                            brief=outcome.escalation_reason,
                            handoff=outcome.handoff,
                            why=f"the primary handed it on: {outcome.escalation_reason}",
                        )
            else:
                outcome = await self._escalation_turn(prompt, brief="", why=reason)
            st.router.after_turn(st.flags, target, outcome.ok, force, st.config.sticky_escalation)
            if outcome.ok:
                self._after_reply(outcome)
            return outcome
        finally:
            self._busy = False
            self._state.attachments = ()

    async def _route(self, prompt: str, force: Force | None) -> tuple[Slot, str, str, str]:
        st = self._state
        f = st.flags
        f.force_escalate = force == "escalate"
        f.force_primary = force == "primary"
        taught = st.router.learn_from_reask(prompt, st.session) if force is None else ""
        if taught:
            self._pub.notice(taught)
        d = await st.router.decide(prompt, st.session, f, use_learned=not taught)
        target: Slot = d.target
        reason, rule, label = d.reason, d.rule, d.label
        if st.agent(target) is None:  # that slot is empty: the other one answers
            reason = f"no {target} agent configured"
            target = ESCALATION if target == PRIMARY else PRIMARY
            rule = label = "fallback"
        if st.availability is not None:
            target, fb_label, notice = await st.availability.apply_fallback(
                target, chosen_by_user=d.rule == "explicit"
            )
            if notice:
                self._pub.notice(notice, level="warning")
                reason, rule, label = notice, "fallback", fb_label or "fallback"
        if st.agent(target) is None:
            raise AgentError("no agent configured: add an entry to agents[] in the config file")
        return target, reason, rule, label

    async def _primary_turn(self, prompt: str, *, guard_repeats: bool = True) -> TurnOutcome:
        st = self._state
        slot, s = st.primary, st.session
        assert slot is not None
        snap = SessionSnapshot.take(s)
        scratch = TurnScratch()
        try:
            self._pub.set_state(State.LOCAL)
            if not s.primary_nonce:
                s.primary_nonce = new_nonce()
            if guard_repeats and is_repeated_prompt(recent_prompts(s), prompt):
                scratch.escalation_reason = ESCALATION_REASON
            else:
                request = await self._requests.primary_request(prompt, scratch)
                await self._consume(slot, request, scratch)
            return self._commit.primary(prompt, slot, scratch, snap)
        except asyncio.CancelledError:
            return self._rollback.cancelled(slot, snap, prompt)
        except _TURN_ERRORS as e:
            return self._rollback.failed(slot, e, snap, prompt)

    async def _escalation_turn(
        self, prompt: str, brief: str, handoff: PendingHandoff | None = None, why: str = ""
    ) -> TurnOutcome:
        st = self._state
        slot, s = st.escalation, st.session
        assert slot is not None
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
            returning_limit = st.config.resolve_returning_fresh_start(slot.config)
            plan = plan_escalation(s, returning_limit, forced_fresh=forced)
            if plan.mode == "first":
                s.escalation_brief = brief or prompt  # with no stated reason, the prompt
            self._pub.set_state(State.ESCALATION)
            if not s.escalation_nonce:
                s.escalation_nonce = new_nonce()
            request, context_text = await self._requests.escalation_request(prompt, plan, scratch)
            self._escalation_started(slot, plan, context_text, why)
            try:
                await self._consume(slot, request, scratch)
            except SessionNotFound:
                self._pub.notice(
                    f"{slot.name} no longer knows session {plan.resume_session_id[:8]}; starting fresh",
                    level="warning",
                )
                s.escalation_session_id = ""
                # The failed attempt already marked the primary activity as sent; the fresh
                # run must carry it again.
                snap.restore_field(s, "last_local_summary_injected")
                plan = HandoffPlan(mode="first", history_start=plan.history_start)
                scratch = TurnScratch()
                request, context_text = await self._requests.escalation_request(
                    prompt, plan, scratch
                )
                self._escalation_started(slot, plan, context_text, why)
                await self._consume(slot, request, scratch)
            outcome = self._commit.escalation(prompt, slot, scratch, context_text, handoff)
            if outcome.ok and self._on_denials is not None:
                self._on_denials(slot.name, scratch.denials)
            return outcome
        except asyncio.CancelledError:
            return self._rollback.cancelled(slot, snap, prompt)
        except _TURN_ERRORS as e:
            self._pub.publish(ev.EscalationFinished(agent_name=slot.name, ok=False))
            return self._rollback.failed(slot, e, snap, prompt)

    def _escalation_started(
        self, slot: AgentSlot, plan: HandoffPlan, context_text: str, why: str
    ) -> None:
        self._pub.publish(
            ev.EscalationStarted(
                agent_name=slot.name,
                mode=plan.mode,
                downgraded=plan.downgraded,
                downgrade_reasons=list(plan.reasons),
                local_turns_since=plan.local_turns_since,
                resume=bool(plan.resume_session_id),
                escalation_session_id=plan.resume_session_id,
                brief=self._state.session.escalation_brief,
                context_text=context_text,
                reason=why,
            )
        )

    async def _consume(self, slot: AgentSlot, request: AgentRequest, scratch: TurnScratch) -> None:
        """Run the agent's stream, with one warning line once it has run for its
        ``turn_timeout_secs``: the turn goes on, and Ctrl+C stops it (a long escalation is
        normal work, and stopping it would throw that work away:
        docs/adr/0035-turn-timeout-warns.md).  A reply with nothing in it, or a fault of ours
        while reading the stream, ends the turn as one AgentError naming the agent, so the
        caller rolls the session back and records nothing."""
        limit = self._state.config.resolve_turn_timeout(slot.config)
        warn = None
        if limit is not None:
            warn = asyncio.get_running_loop().call_later(
                limit,
                self._pub.notice,
                f"{slot.name} has been at this turn for {_duration(limit)} (turn_timeout_secs); "
                "it goes on — Ctrl+C stops it",
                "warning",
            )
        bus_publish, calls = self._state.bus.publish, [0]
        request.on_wire = lambda: bus_publish(ev.RequestSent(slot=slot.slot, agent_name=slot.name))

        def publish(e: ev.BusEvent) -> None:
            if type(e) is ev.ToolCall:
                calls[0] += 1
            bus_publish(e)

        try:
            await consume_stream(
                slot.agent,
                request,
                scratch,
                slot=slot.slot,
                fallback_model=slot.model,
                session_id=self._state.session.id,
                publish=publish,
                on_need=lambda body: self._pub.record_need(body, slot.slot),
                repeats=self._repeats(),
            )
        except _TURN_ERRORS:
            raise
        except Exception as e:  # noqa: BLE001 - any fault is one turn error, never a traceback
            raise AgentError(
                f"agent '{slot.name}': stream failed: {type(e).__name__}: {e}", agent=slot.name
            ) from e
        finally:
            if warn is not None:
                warn.cancel()
        if scratch.finish_reason in CUT_AT_LIMIT:
            limit = slot.config.max_tokens or scratch.completion_tokens()
            self._pub.publish(
                ev.ReplyTruncated(
                    slot=slot.slot,
                    agent_name=slot.name,
                    finish_reason=scratch.finish_reason,
                    max_tokens=limit or 0,
                )
            )
        if not (scratch.reply_text() or scratch.escalation_reason or scratch.percepts or calls[0]):
            raise AgentError(
                f"agent '{slot.name}': empty reply (no text, no tool calls); nothing recorded",
                agent=slot.name,
            )

    def _repeats(self) -> int:
        cfg = self._state.config.loop_detection
        return cfg.chunk_repetition_threshold if cfg.enabled else 0

    def _after_reply(self, outcome: TurnOutcome) -> None:
        """Cross-turn loop signs: warnings only; the next turn runs as usual."""
        watch = self._reply_watch
        if watch is None or watch.cfg is not self._state.config.loop_detection:
            watch = self._reply_watch = ReplyWatch(self._state.config.loop_detection)
        for message in watch.after_turn(outcome.text, outcome.completion_tokens):
            self._pub.notice(message, level="warning")


def _duration(secs: float) -> str:
    """``600`` → "10 min", ``90`` → "90s": the warning's wording of turn_timeout_secs."""
    return f"{secs / 60:g} min" if secs >= 120 and secs % 60 == 0 else f"{secs:g}s"
