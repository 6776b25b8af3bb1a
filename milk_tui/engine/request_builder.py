"""What an agent is handed for a turn: the request the dispatcher sends it.

Pure assembly from the session and config — role prompt, tag instructions with the slot's
nonce, the pinned need/orientation and remembered-facts blocks, the trimmed history, the
turn's tools.  The pinned blocks count as overhead and are never trimmed; only the
history is.  Nothing here changes the history; the only session fields it touches are
the re-injection marks of the escalation context.

Both requests are built between Enter and the request going out, so the slow parts run in
a worker thread (docs/adr/0017-nothing-blocks-between-enter-and-the-request.md): the
remembered-facts selection (an FTS query) and, for the primary, the messages (a long
session's history is thousands of turns).  Notices are published back on the loop.
"""

from __future__ import annotations

import asyncio
import sqlite3

from milk_tui.agents.base import AgentRequest, AskPermission, AskUser, ToolBox
from milk_tui.agents.tools.box import CompositeToolBox, ToolFilter
from milk_tui.agents.tools.builtin import BuiltinToolBox
from milk_tui.agents.tools.specs import ACTION_TOOLS
from milk_tui.config.mcp import assigned_names
from milk_tui.engine.agent_slot import AgentSlot
from milk_tui.engine.agent_stream import record_usage
from milk_tui.engine.agent_tool import AgentToolBox, agent_tools
from milk_tui.engine.context import assemble_messages
from milk_tui.engine.custom_prompt import PromptValues, render, tools_text
from milk_tui.engine.dispatch_state import DispatchState
from milk_tui.engine.escalation_context import (
    build_dynamic_context,
    build_static_context,
    need_block,
    orientation_for_http,
    should_inject_memory_instructions,
)
from milk_tui.engine.escalation_delta import delta_block, new_facts
from milk_tui.engine.handoff import HandoffPlan
from milk_tui.engine.memory_tools import MemoryToolBox
from milk_tui.engine.prompts import carries_tag_instructions, role_prompt
from milk_tui.engine.session_tools import SessionToolBox
from milk_tui.engine.turn_publisher import TurnPublisher
from milk_tui.engine.turn_scratch import TurnScratch
from milk_tui.model.session import ESCALATION, PRIMARY
from milk_tui.model.tags import memory_instruction, need_instruction
from milk_tui.storage.db import StorageError


class RequestBuilder:
    def __init__(
        self,
        state: DispatchState,
        publisher: TurnPublisher,
        ask_permission: AskPermission,
        ask_user: AskUser | None = None,
    ) -> None:
        self._state = state
        self._publisher = publisher
        self._ask_permission = ask_permission
        self._ask_user = ask_user

    async def primary_request(self, prompt: str, scratch: TurnScratch) -> AgentRequest:
        st = self._state
        assert st.primary is not None
        # The toolbox is made on the loop: MCP servers start from it and need the running loop.
        tools = self._toolbox(st.primary, scratch, prompt, allow_escalate=st.escalation is not None)
        request, problems = await asyncio.to_thread(self._primary_request, prompt, tools)
        self._warn(*problems)
        return request

    def _primary_request(
        self, prompt: str, tools: CompositeToolBox
    ) -> tuple[AgentRequest, tuple[str, str]]:
        st = self._state
        slot, s, cfg = st.primary, st.session, st.config
        assert slot is not None
        block, problem = self._percepts_block(prompt, slot)
        system, custom_problem = self._system_prompt(slot, st.escalation_name, block, tools)
        built = assemble_messages(
            s,
            self_agent=PRIMARY,
            pinned=[need_block(s), block],
            budget=cfg.resolve_message_budget(slot.config),
            system_prompt=system,
        )
        request = AgentRequest(
            slot=PRIMARY,
            prompt=prompt,
            cwd=st.cwd,
            system_prompt=system,
            messages=built.messages,
            nonce=s.primary_nonce,
            tools=tools,
            ask_permission=self._ask_permission,
            ask_user=self._ask_user,
            attachments=st.attachments,
            images=slot.config.vision,
            shown_live=True,
        )
        return request, (problem, custom_problem)

    async def escalation_request(
        self, prompt: str, plan: HandoffPlan, scratch: TurnScratch
    ) -> tuple[AgentRequest, str]:
        """The request, and the orientation text it carries (shown in the context view)."""
        st = self._state
        slot, s, cfg = st.escalation, st.session, st.config
        assert slot is not None
        resuming = plan.mode in ("resume", "continuation")
        turns_thr, bytes_thr = cfg.resolve_memory_reinjection(slot.config)
        inject = should_inject_memory_instructions(s, resuming, turns_thr, bytes_thr)
        if inject:
            s.memory_instruction_injected_at = s.escalation_turn_count()
        # Only the selection leaves the loop: the marks above change the session, and a
        # cancelled turn must find them rolled back, not written later by a thread.
        block, problem = await asyncio.to_thread(self._percepts_block, prompt, slot)
        self._warn(problem)
        request = AgentRequest(
            slot=ESCALATION,
            prompt=prompt,
            cwd=st.cwd,
            mode=plan.mode,
            nonce=s.escalation_nonce,
            ask_permission=self._ask_permission,
            ask_user=self._ask_user,
            shown_live=True,
        )
        request.attachments, request.images = st.attachments, slot.config.vision
        if slot.is_cli:  # the CLI keeps its own conversation: our context is appended to it
            custom, custom_problem = self._custom_prompt(slot, block, None)
            self._warn(custom_problem)
            static = custom + build_static_context(
                s.escalation_nonce, block, plan.mode, inject, st.primary_name, slot.name
            )
            dynamic = build_dynamic_context(s, plan.mode)
            context_text = static + "\n" + dynamic if (static or dynamic) else ""
            request.append_system_prompt = context_text
            if st.tasks is not None:
                request.own_mcp_servers = (st.tasks.mcp_server(),)
            request.resume_session_id = plan.resume_session_id
            if resuming and not inject:  # the resumed session never saw this run's context
                request.prompt += await asyncio.to_thread(self._follow_up_delta)
            return request, context_text
        orientation = orientation_for_http(s, plan.mode)
        tools = self._toolbox(slot, scratch, prompt, allow_escalate=False)
        system, custom_problem = self._system_prompt(slot, st.primary_name, block, tools)
        self._warn(custom_problem)
        built = assemble_messages(
            s,
            self_agent=ESCALATION,
            pinned=[orientation, block],
            budget=cfg.resolve_message_budget(slot.config),
            system_prompt=system,
            history_start=plan.history_start,
        )
        request.system_prompt, request.messages = system, built.messages
        request.tools = tools
        return request, orientation + block

    def _system_prompt(
        self, slot: AgentSlot, other: str, facts: str, tools: ToolBox
    ) -> tuple[str, str]:
        """(the agent's custom prompt, the role in its tier, then — unless the tier is
        minimal — how to write the need and percept tags with this slot's nonce; a warning
        about the custom prompt or "")."""
        st = self._state
        tier = slot.config.system_prompt_tier
        custom, problem = self._custom_prompt(slot, facts, tools)
        text = custom + role_prompt(slot.slot, slot.name, other, st.cwd, tier)
        if carries_tag_instructions(tier):
            nonce = (
                st.session.primary_nonce if slot.slot == PRIMARY else st.session.escalation_nonce
            )
            text += (
                "\n"
                + need_instruction(nonce)
                + memory_instruction(nonce, st.primary_name, st.escalation_name)
            )
        return text, problem

    def _custom_prompt(self, slot: AgentSlot, facts: str, tools: ToolBox | None) -> tuple[str, str]:
        """The rendered ``prompt`` / ``prompt_file`` followed by a blank line, or ""."""
        st = self._state
        template, problem = st.prompts.template(slot.config, st.cwd)
        if not template.strip():
            return "", problem
        values = PromptValues(
            memory=facts,
            need=st.session.current_need,
            escalation=st.session.last_escalation_summary,
            tools=tools_text(tools.specs()) if tools is not None else "",
        )
        return render(template, values).rstrip() + "\n\n", problem

    def role_toolbox(self, slot: AgentSlot, scratch: TurnScratch, prompt: str) -> CompositeToolBox:
        """The tools of a workflow role (engine/workflow/role_turn.py): a turn's, without
        ``escalate`` (a role hands nothing on; the workflow decides who works next)."""
        return self._toolbox(slot, scratch, prompt, allow_escalate=False)

    def _toolbox(
        self, slot: AgentSlot, scratch: TurnScratch, prompt: str, *, allow_escalate: bool
    ) -> CompositeToolBox:
        st = self._state
        memory = st.memory

        def remember(content: str, consumer: str) -> str:
            # Buffered like tag percepts: a turn that fails records no facts.
            scratch.percepts.append((content, consumer or "all"))
            return "remembered (saved when this turn completes)"

        boxes: list[ToolBox] = [
            BuiltinToolBox(
                st.cwd,
                on_need=lambda goal: self._publisher.record_need(goal, slot.slot),
                on_record_memory=remember if memory is not None else None,
                allow_escalate=allow_escalate,
                # every request built here carries the permission check, which asks
                # before a path outside the working folder is touched
                confine_to_cwd=False,
            ),
            SessionToolBox(st.session),
        ]
        if st.tasks is not None:
            boxes.append(st.tasks.toolbox())
        if memory is not None:
            boxes.append(
                MemoryToolBox(
                    memory,
                    slot=slot.slot,
                    session_id=st.session.id,
                    primary_name=st.primary_name,
                    escalation_name=st.escalation_name,
                    prompt=prompt,
                    turn_index=st.session.pending_turn_position(),
                    max_bytes=st.config.resolve_memory_result_max_bytes(slot.config),
                    relevance_gate=st.config.resolve_relevance_gate(slot.config),
                    include_record=False,
                )
            )
        if slot.slot == PRIMARY and (offered := agent_tools(st.config, slot.config)):
            boxes.append(
                AgentToolBox(
                    offered,
                    config=st.config,
                    caller=slot.name,
                    cwd=st.cwd,
                    on_usage=lambda u: record_usage(
                        u, scratch, slot.slot, slot.model, st.session.id, st.bus.publish
                    ),
                    live={s.config.name.lower(): s.agent for s in (st.primary, st.escalation) if s},
                )
            )
        if st.mcp and not slot.is_cli:
            boxes.append(st.mcp.toolbox(assigned_names(st.config, slot.config)))
        limits = slot.config.limits
        return CompositeToolBox(
            boxes,
            ToolFilter(
                included=frozenset(limits.included_tools) if limits.included_tools else None,
                excluded=frozenset(limits.excluded_tools or ()),
                choosable=frozenset(ACTION_TOOLS),
            ),
        )

    def _percepts_block(self, prompt: str, slot: AgentSlot) -> tuple[str, str]:
        """(the [Remembered facts] block, a notice to publish or ""); runs in a worker thread."""
        memory, cfg = self._state.memory, self._state.config
        if memory is None:
            return "", ""
        try:
            facts = memory.select_for_prompt(
                prompt,
                slot.slot,
                self._state.session.id,
                max_count=cfg.resolve_percept_inject_max(slot.config),
                max_bytes=cfg.resolve_percept_inject_max_bytes(slot.config),
                relevance_gate=cfg.resolve_relevance_gate(slot.config),
            )
        except StorageError as e:
            return "", f"remembered facts unavailable this turn: {e}"
        return memory.format_block(facts), ""

    def _follow_up_delta(self) -> str:
        """The nonce and the facts added since the escalation agent's last answer, to append
        to a resumed CLI turn's message (engine/escalation_delta.py); runs in a worker thread."""
        s = self._state.session
        try:
            facts = new_facts(self._state.memory, s)
        except (StorageError, sqlite3.Error):
            facts = []  # the nonce still goes: a fact written this turn is not lost
        return delta_block(s.escalation_nonce, facts)

    def _warn(self, *problems: str) -> None:
        for problem in problems:
            if problem:
                self._publisher.notice(problem, level="warning")
