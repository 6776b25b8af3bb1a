"""One turn of a workflow role: the role's agent answers one prompt with a turn's tools and
permission questions, its text shown as ``WorkflowDelta`` events, its tokens booked on the
session as ``workflow:<role>`` and the facts it tagged recorded in the shared memory.

A role sees no session history: its prompt carries what it needs (the plan, its sprint, the
last findings).  A Claude CLI role resumes its own session on its next turn and never
another role's.  The stream goes through the one stream driver (engine/agent_stream.py), so
secrets are masked and fact tags parsed as in a normal turn.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from milk_tui.agents.base import AgentRequest, AskPermission, AskUser, SessionNotFound
from milk_tui.engine.agent_slot import AgentSlot
from milk_tui.engine.agent_stream import consume_stream
from milk_tui.engine.dispatch_state import DispatchState
from milk_tui.engine.request_builder import RequestBuilder
from milk_tui.engine.turn_commit import save_turn, token_counts
from milk_tui.engine.turn_scratch import TurnScratch
from milk_tui.memory.service import MAX_FACTS_PER_REPLY
from milk_tui.model import events as ev
from milk_tui.model.session import TokenUsage
from milk_tui.model.tags import memory_instruction
from milk_tui.model.workflow import WorkflowState
from milk_tui.model.workflow_prompts import ROLE_SYSTEM

WRITING_TOOLS = frozenset(
    {"write_file", "edit_file", "delete_file", "move_file", "Write", "Edit", "MultiEdit"}
)
"""Tool calls whose ``path``/``file_path`` argument is a file the workflow changed."""


@dataclass
class RoleAgent:
    role: str
    slot: AgentSlot
    """The agent and its configuration; ``slot.slot`` is whose facts its tags record."""
    built: bool = False
    """Built for the workflow (not a running slot's agent): closed when it ends."""


@dataclass
class RoleResult:
    text: str
    cost_usd: float = 0.0
    files: list[str] = field(default_factory=list)


class RoleTurns:
    def __init__(
        self,
        state: DispatchState,
        requests: RequestBuilder,
        ask_permission: AskPermission,
        ask_user: AskUser | None,
    ) -> None:
        self._state = state
        self._requests = requests
        self._ask_permission = ask_permission
        self._ask_user = ask_user

    async def run(
        self, wf: WorkflowState, agent: RoleAgent, prompt: str, header: str
    ) -> RoleResult:
        role, slot = agent.role, agent.slot
        files: list[str] = []
        publish = self._publisher(role, files)
        publish(ev.WorkflowDelta(role=role, text="", header=header))
        scratch = TurnScratch()
        try:
            await self._consume(wf, agent, prompt, scratch, publish)
        except SessionNotFound:  # the CLI forgot the role's session: that role starts fresh
            wf.cli_sessions.pop(role, None)
            scratch = TurnScratch()
            await self._consume(wf, agent, prompt, scratch, publish)
        if scratch.backend_session_id and slot.is_cli:
            wf.cli_sessions[role] = scratch.backend_session_id
        self._book(role, slot, scratch)
        return RoleResult(scratch.reply_text(), scratch.cost_usd, files)

    async def _consume(
        self,
        wf: WorkflowState,
        agent: RoleAgent,
        prompt: str,
        scratch: TurnScratch,
        publish: Callable[[ev.BusEvent], None],
    ) -> None:
        st, slot = self._state, agent.slot
        system = ROLE_SYSTEM.format(role=agent.role, cwd=st.cwd)
        if st.memory is not None:  # the facts a role tags are the memory's, as in a turn
            system += "\n\n" + memory_instruction(wf.nonce, st.primary_name, st.escalation_name)
        request = AgentRequest(
            slot=slot.slot,
            prompt=prompt,
            cwd=st.cwd,
            system_prompt=system,
            append_system_prompt=system,
            nonce=wf.nonce,
            ask_permission=self._ask_permission,
            ask_user=self._ask_user,
            images=slot.config.vision,
            shown_live=True,
        )
        if slot.is_cli:
            request.resume_session_id = wf.cli_sessions.get(agent.role, "")
            request.mode = "resume" if request.resume_session_id else "first"
        else:
            request.tools = self._requests.role_toolbox(slot, scratch, prompt)
        loop_cfg = st.config.loop_detection
        await consume_stream(
            slot.agent,
            request,
            scratch,
            slot=slot.slot,
            fallback_model=slot.model,
            session_id=st.session.id,
            publish=publish,
            on_need=lambda _body: None,  # a role states no need of the user's session
            repeats=loop_cfg.chunk_repetition_threshold if loop_cfg.enabled else 0,
        )

    def _publisher(self, role: str, files: list[str]) -> Callable[[ev.BusEvent], None]:
        bus, sid = self._state.bus, self._state.session.id
        booked_as = f"workflow:{role}"

        def publish(e: ev.BusEvent) -> None:
            match e:
                case ev.TextDelta(text=text):
                    bus.publish(ev.WorkflowDelta(role=role, text=text, session_id=sid))
                case ev.ThinkingDelta():
                    pass  # a role's thoughts are not part of its report
                case ev.Usage():
                    bus.publish(e.replace(role=booked_as))
                case ev.ToolCall(name=name, arguments=arguments):
                    if name in WRITING_TOOLS and (path := _path_of(arguments)):
                        files.append(path)
                    bus.publish(e)
                case _:
                    bus.publish(e.replace(session_id=sid) if not e.session_id else e)

        return publish

    def _book(self, role: str, slot: AgentSlot, scratch: TurnScratch) -> None:
        """The role's tokens (as ``workflow:<role>``) and tagged facts, saved at once: a
        later kill loses neither."""
        st = self._state
        s = st.session
        deltas = []
        for u in scratch.usage:
            d = TokenUsage(u.model or slot.model, f"workflow:{role}", *token_counts(u))
            if s.add_tokens(d.model, d.role, *token_counts(d)):
                deltas.append(d)
        facts = []
        if st.memory is not None:
            facts = [
                st.memory.agent_fact(
                    body,
                    slot.slot,
                    s.id,
                    len(s.history),
                    st.primary_name,
                    st.escalation_name,
                    consumer=consumer,
                )
                for body, consumer in scratch.percepts[:MAX_FACTS_PER_REPLY]
            ]
        if deltas or facts:
            save_turn(st.store, st.memory, s, [], deltas, facts)


def _path_of(arguments: str) -> str:
    try:
        args = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return ""
    if not isinstance(args, dict):
        return ""
    path = args.get("path") or args.get("file_path") or args.get("to") or ""
    return path if isinstance(path, str) else ""
