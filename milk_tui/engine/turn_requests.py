"""What each agent is handed for a turn: the context builder of DESIGN §2.

Split out of the dispatcher because it is pure assembly — role prompt, tag instructions
with the slot's nonce, pinned need/orientation and remembered-facts blocks, trimmed
history, tools — while the dispatcher keeps the bookkeeping.  The pinned blocks are the
trimmer's overhead and are never dropped (DESIGN §5.4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from milk_tui.agents.base import AgentRequest
from milk_tui.agents.tools.box import CompositeToolBox
from milk_tui.agents.tools.builtin import BuiltinToolBox
from milk_tui.engine.context import assemble_messages
from milk_tui.engine.escalation_context import (
    build_dynamic_context,
    build_static_context,
    need_block,
    orientation_for_http,
    should_inject_memory_instructions,
)
from milk_tui.engine.handoff import HandoffPlan
from milk_tui.engine.memory_tools import MemoryToolBox
from milk_tui.engine.prompts import role_prompt
from milk_tui.engine.turn_scratch import TurnScratch
from milk_tui.model.session import ESCALATION, PRIMARY
from milk_tui.model.tags import memory_instruction, need_instruction
from milk_tui.storage.db import StorageError

if TYPE_CHECKING:
    from milk_tui.agents.base import PermissionQuestion
    from milk_tui.config.settings import MilkConfig
    from milk_tui.engine.dispatch import AgentSlot
    from milk_tui.model.session import Session


class TurnRequestsMixin:
    """Mixed into ``Dispatcher``; reads its state, never changes the session's history."""

    config: MilkConfig
    session: Session
    cwd: str
    memory: Any | None
    primary: AgentSlot | None
    escalation: AgentSlot | None
    primary_name: str
    escalation_name: str

    if TYPE_CHECKING:

        def _on_need(self, body: str, producer: str) -> None: ...
        async def _ask_permission(self, q: PermissionQuestion) -> bool: ...
        def _notice(self, message: str, level: Any = "info") -> None: ...

    def _primary_request(self, prompt: str, scratch: TurnScratch) -> AgentRequest:
        slot, s, cfg = self.primary, self.session, self.config
        assert slot is not None
        system = role_prompt(PRIMARY, slot.name, self.escalation_name, self.cwd)
        system += (
            "\n"
            + need_instruction(s.primary_nonce)
            + memory_instruction(s.primary_nonce, self.primary_name, self.escalation_name)
        )
        built = assemble_messages(
            s,
            self_agent=PRIMARY,
            pinned=[need_block(s), self._percepts_block(prompt, slot)],
            budget=cfg.resolve_message_budget(slot.config),
            system_prompt=system,
        )
        return AgentRequest(
            slot=PRIMARY,
            prompt=prompt,
            cwd=self.cwd,
            system_prompt=system,
            messages=built.messages,
            nonce=s.primary_nonce,
            tools=self._toolbox(slot, scratch, prompt, allow_escalate=self.escalation is not None),
        )

    def _escalation_request(
        self, prompt: str, plan: HandoffPlan, scratch: TurnScratch
    ) -> tuple[AgentRequest, str]:
        slot, s, cfg = self.escalation, self.session, self.config
        assert slot is not None
        resuming = plan.mode in ("resume", "continuation")
        turns_thr, bytes_thr = cfg.resolve_memory_reinjection(slot.config)
        inject = should_inject_memory_instructions(s, resuming, turns_thr, bytes_thr)
        if inject:
            s.memory_instruction_injected_at = s.escalation_turn_count()
        block = self._percepts_block(prompt, slot)
        if slot.is_cli:
            static = build_static_context(
                s.escalation_nonce, block, plan.mode, inject, self.primary_name, slot.name
            )
            dynamic = build_dynamic_context(s, plan.mode)
            context_text = static + "\n" + dynamic if (static or dynamic) else ""
            return (
                AgentRequest(
                    slot=ESCALATION,
                    prompt=prompt,
                    cwd=self.cwd,
                    append_system_prompt=context_text,
                    mode=plan.mode,
                    resume_session_id=plan.resume_session_id,
                    nonce=s.escalation_nonce,
                    ask_permission=self._ask_permission,
                ),
                context_text,
            )
        orientation = orientation_for_http(s, plan.mode)
        system = role_prompt(ESCALATION, slot.name, self.primary_name, self.cwd)
        system += (
            "\n"
            + need_instruction(s.escalation_nonce)
            + memory_instruction(s.escalation_nonce, self.primary_name, slot.name)
        )
        built = assemble_messages(
            s,
            self_agent=ESCALATION,
            pinned=[orientation, block],
            budget=cfg.resolve_message_budget(slot.config),
            system_prompt=system,
            history_start=plan.history_start,
        )
        return (
            AgentRequest(
                slot=ESCALATION,
                prompt=prompt,
                cwd=self.cwd,
                system_prompt=system,
                messages=built.messages,
                mode=plan.mode,
                nonce=s.escalation_nonce,
                tools=self._toolbox(slot, scratch, prompt, allow_escalate=False),
                ask_permission=self._ask_permission,
            ),
            orientation + block,
        )

    def _toolbox(
        self, slot: AgentSlot, scratch: TurnScratch, prompt: str, *, allow_escalate: bool
    ) -> CompositeToolBox:
        def remember(content: str, consumer: str) -> str:
            # Buffered like tag percepts: a turn that fails records no facts.
            scratch.percepts.append((content, consumer or "all"))
            return "remembered (saved when this turn completes)"

        boxes: list[Any] = [
            BuiltinToolBox(
                self.cwd,
                on_need=lambda goal: self._on_need(goal, slot.slot),
                on_record_memory=remember if self.memory is not None else None,
                allow_escalate=allow_escalate,
            )
        ]
        if self.memory is not None:
            boxes.append(
                MemoryToolBox(
                    self.memory,
                    slot=slot.slot,
                    session_id=self.session.id,
                    primary_name=self.primary_name,
                    escalation_name=self.escalation_name,
                    prompt=prompt,
                    turn_index=self.session.pending_turn_position(),
                    max_bytes=self.config.local_memory_result_max_bytes,
                    relevance_gate=self.config.resolve_relevance_gate(slot.config),
                    include_record=False,
                )
            )
        return CompositeToolBox(boxes)

    def _percepts_block(self, prompt: str, slot: AgentSlot) -> str:
        if self.memory is None:
            return ""
        cfg = self.config
        try:
            facts = self.memory.select_for_prompt(
                prompt,
                slot.slot,
                self.session.id,
                max_count=cfg.resolve_percept_inject_max(slot.config),
                max_bytes=cfg.resolve_percept_inject_max_bytes(slot.config),
                relevance_gate=cfg.resolve_relevance_gate(slot.config),
            )
        except StorageError as e:
            self._notice(f"remembered facts unavailable this turn: {e}", level="warning")
            return ""
        return self.memory.format_block(facts)
