"""Recording a turn that succeeded: the user turn, then the reply, tokens, summary bricks,
state and facts — all in one transaction, so a kill at any instant leaves the whole turn
or none of it (docs/adr/0001-record-the-user-turn-after-the-agent-answers.md,
docs/adr/0014-one-transaction-per-turn.md).

A commit that cannot be saved raises ``StorageError``; the turn lifecycle then rolls the
session back as for any failed turn.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from typing import Any

from milk_tui.agents.base import Slot
from milk_tui.engine.agent_slot import AgentSlot
from milk_tui.engine.dispatch_state import DispatchState
from milk_tui.engine.turn_publisher import TurnPublisher
from milk_tui.engine.turn_scratch import PendingHandoff, SessionSnapshot, TurnOutcome, TurnScratch
from milk_tui.memory.service import MAX_FACTS_PER_REPLY, MemoryService
from milk_tui.model import events as ev
from milk_tui.model.session import (
    ESCALATION,
    PRIMARY,
    Session,
    State,
    TokenUsage,
    Turn,
    ends_with_question,
)
from milk_tui.storage import usage_log
from milk_tui.storage.db import StorageError
from milk_tui.storage.sessions import SessionStore


class TurnCommitter:
    def __init__(self, state: DispatchState, publisher: TurnPublisher) -> None:
        self._state = state
        self._publisher = publisher
        self._dropped = 0
        """Facts of the turn being saved that ``_facts`` dropped over the per-reply limit."""

    def primary(
        self, prompt: str, slot: AgentSlot, scratch: TurnScratch, snap: SessionSnapshot
    ) -> TurnOutcome:
        """Record the primary's answer — or, when it handed off, hold both turns back."""
        st, pub = self._state, self._publisher
        s = st.session
        text = scratch.reply_text()
        files = [a.info for a in st.attachments]
        new_turns = [Turn("user", prompt, agent=PRIMARY, agent_name=slot.name, attachments=files)]
        new_turns += _reply_turn(text, scratch, PRIMARY, slot)
        deltas = self._apply_usage(scratch, PRIMARY, slot.model)
        handing_off = bool(scratch.escalation_reason) and st.escalation is not None
        if handing_off:
            pub.notice(f"{slot.name} requested escalation: {scratch.escalation_reason}")
            # The escalation agent always gets a need, at least the prompt itself
            # (docs/adr/0003-the-primary-writes-facts-and-the-need-fallback.md).
            if not s.current_need and s.record_need(prompt, producer="system"):
                pub.need_changed()
        else:
            s.history.extend(new_turns)
            if len(new_turns) > 1:
                s.rebuild_summary_bricks(st.config.resolve_context_budget(slot.config))
            pub.set_state(State.ROUTING)
            facts = self._facts(scratch, PRIMARY, len(s.history) - len(new_turns) + 1)
            self._save(new_turns, deltas, facts)
        self._completed(slot, text, scratch, self_escalated=bool(scratch.escalation_reason))
        return TurnOutcome(
            ok=True,
            slot=PRIMARY,
            text=text,
            escalation_reason=scratch.escalation_reason,
            handoff=PendingHandoff(new_turns, deltas, scratch, snap) if handing_off else None,
            completion_tokens=scratch.completion_tokens(),
        )

    def escalation(
        self,
        prompt: str,
        slot: AgentSlot,
        scratch: TurnScratch,
        context_text: str,
        handoff: PendingHandoff | None,
    ) -> TurnOutcome:
        """Record the escalation's answer, after the primary's held-back half if any."""
        st, pub = self._state, self._publisher
        s = st.session
        text = scratch.reply_text()
        before = list(handoff.turns) if handoff else []
        own = [
            Turn(
                "user",
                prompt,
                agent=ESCALATION,
                agent_name=slot.name,
                context_text=context_text,
                attachments=[a.info for a in st.attachments],
            )
        ]
        own += _reply_turn(text, scratch, ESCALATION, slot)
        new_turns = before + own
        first_pos = len(s.history) + 1
        s.history.extend(new_turns)
        if before and s.current_need_set_at == first_pos:
            # A need recorded during a hand-off belongs to the exchange that was answered —
            # the escalation's user turn — or the four-record hand-off would read as stale
            # on the very next turn (docs/adr/0004-need-position-and-staleness.md).
            s.current_need_set_at = first_pos + len(before)
            pub.need_changed()
        if scratch.backend_session_id:
            s.escalation_session_id = scratch.backend_session_id
        deltas = (handoff.usage if handoff else []) + self._apply_usage(
            scratch, ESCALATION, slot.model
        )
        if len(new_turns) > 1:
            s.rebuild_summary_bricks(st.config.resolve_context_budget(slot.config))
        asked = ends_with_question(text)
        if asked:
            pub.set_state(State.ESCALATION_WAITING)
        else:
            s.escalation_brief = ""
            pub.set_state(State.ROUTING)
        facts = self._facts(handoff.scratch, PRIMARY, first_pos) if handoff else []
        facts += self._facts(scratch, ESCALATION, first_pos + len(before))
        self._save(new_turns, deltas, facts)
        pub.publish(
            ev.EscalationFinished(
                agent_name=slot.name,
                escalation_session_id=s.escalation_session_id,
                ends_with_question=asked,
                cost_usd=scratch.cost_usd,
            )
        )
        self._completed(slot, text, scratch)
        return TurnOutcome(
            ok=True, slot=ESCALATION, text=text, completion_tokens=scratch.completion_tokens()
        )

    def _completed(
        self, slot: AgentSlot, text: str, scratch: TurnScratch, *, self_escalated: bool = False
    ) -> None:
        self._publisher.publish(
            ev.TurnCompleted(
                slot=slot.slot,
                agent_name=slot.name,
                text=text,
                thinking=scratch.joined_thinking(),
                history_len=len(self._state.session.history),
                self_escalated=self_escalated,
            )
        )

    def _save(
        self, new_turns: list[Turn], deltas: list[TokenUsage], facts: list[dict[str, Any]]
    ) -> None:
        st = self._state
        dropped, self._dropped = self._dropped, 0
        deltas = deltas + self._classifier_usage()
        try:
            save_turn(st.store, st.memory, st.session, new_turns, deltas, facts)
        except StorageError as e:
            raise type(e)(f"could not save the turn: {e}") from e
        if dropped:
            self._publisher.notice(
                f"{dropped} facts over the limit of {MAX_FACTS_PER_REPLY} per reply "
                "were not recorded",
                level="warning",
            )

    def _classifier_usage(self) -> list[TokenUsage]:
        """What the router's classifier spent since the last commit, added to the session
        under the role ``classifier`` (it runs on the primary's model) and announced."""
        st = self._state
        spent, st.router.classifier_usage[:] = list(st.router.classifier_usage), []
        deltas = []
        for u in spent:
            fields = dataclasses.asdict(u)  # the bus event's token fields, by the same names
            del fields["role_suffix"]
            fields["model"] = u.model or (st.primary.model if st.primary else "primary")
            d = TokenUsage(fields["model"], CLASSIFIER, u.prompt_tokens, u.completion_tokens,
                           u.cache_read, u.cache_creation, u.cost_usd)  # fmt: skip
            if st.session.add_tokens(d.model, d.role, *token_counts(d)):
                deltas.append(d)
                self._publisher.publish(
                    ev.Usage(role=CLASSIFIER, session_id=st.session.id, **fields)
                )
        return deltas

    def _facts(self, scratch: TurnScratch, producer: Slot, turn_index: int) -> list[dict[str, Any]]:
        """The reply's facts as ``MemoryService.record`` arguments, at most
        ``MAX_FACTS_PER_REPLY`` of them."""
        st = self._state
        if st.memory is None:
            return []
        kept = scratch.percepts[:MAX_FACTS_PER_REPLY]
        self._dropped += len(scratch.percepts) - len(kept)
        return [
            st.memory.agent_fact(
                body,
                producer,
                st.session.id,
                turn_index,
                st.primary_name,
                st.escalation_name,
                consumer=consumer,
            )
            for body, consumer in kept
        ]

    def _apply_usage(self, scratch: TurnScratch, default_role: str, model: str) -> list[TokenUsage]:
        """Add the turn's token usage to the session; the rows that changed something."""
        deltas = []
        for u in scratch.usage:
            if self._state.session.add_tokens(
                u.model or model, u.role or default_role, *token_counts(u)
            ):
                deltas.append(u)
        return deltas


CLASSIFIER = "classifier"
"""The role of the router's classifier calls in the token rows and the usage log."""


def token_counts(u: TokenUsage) -> tuple[int, int, int, int, float]:
    return u.prompt, u.completion, u.cache_read, u.cache_creation, u.cost_usd


def _reply_turn(text: str, scratch: TurnScratch, agent: Slot, slot: AgentSlot) -> list[Turn]:
    """The assistant turn, or none for an empty reply (an empty answer is not recorded)."""
    if not text.strip():
        return []
    thinking = scratch.joined_thinking()
    return [Turn("assistant", text, agent=agent, agent_name=slot.name, thinking=thinking)]


def save_turn(
    store: SessionStore,
    memory: MemoryService | None,
    session: Session,
    new_turns: list[Turn],
    deltas: list[TokenUsage],
    facts: list[dict[str, Any]],
) -> None:
    """Commit the turns, the session's state and tokens, the turn's usage-log rows
    (storage/usage_log.py) and the turn's facts (``record``'s arguments) in one transaction,
    then announce the facts.  A memory kept in another database (tests do that) cannot
    share the transaction: its facts are written after the turn and kept pending if that
    fails."""

    def log_usage(conn: sqlite3.Connection) -> None:
        # The history position of the turn's last record tells the turns of a session apart.
        usage_log.append(conn, session.id, session.cwd, len(session.history), deltas)

    if memory is None or memory.store.db is not store.db:
        store.commit_turns(session, new_turns, deltas, also=log_usage)
        if memory is not None:
            for args in facts:
                memory.record_or_keep(args)
        return
    events: list[ev.BusEvent] = []
    pending = len(memory.pending)

    def also(conn: sqlite3.Connection) -> None:
        log_usage(conn)
        events.extend(memory.record_all_in(conn, facts))

    store.commit_turns(session, new_turns, deltas, also=also)
    memory.committed(events, pending)
