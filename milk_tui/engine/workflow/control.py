"""Start, resume, extend, reconfigure and clear the session's dev workflow, and answer the
designer's questions.  The dispatcher holds one ``WorkflowControl``; while its task runs the
dispatcher is busy and ``cancel`` stops it (engine/dispatch.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from milk_tui.agents.base import AgentError
from milk_tui.agents.factory import build_agent
from milk_tui.engine.agent_slot import AgentSlot
from milk_tui.engine.dispatch_state import DispatchState
from milk_tui.engine.workflow.files import WorkflowFiles
from milk_tui.engine.workflow.role_turn import RoleAgent, RoleTurns
from milk_tui.engine.workflow.runner import DevWorkflow, WorkflowResult
from milk_tui.model import events as ev
from milk_tui.model.nonce import new_nonce
from milk_tui.model.workflow import ROLES, WorkflowState


class WorkflowError(ValueError):
    """A workflow command that cannot run, as one line for the user."""


class WorkflowControl:
    def __init__(
        self, state: DispatchState, roles: RoleTurns, files: Callable[[str], WorkflowFiles]
    ) -> None:
        self._st = state
        self._roles = roles
        self._files = files
        self.task: asyncio.Task[WorkflowResult] | None = None
        self._questions: dict[str, asyncio.Future[str]] = {}

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def files(self) -> WorkflowFiles:
        return self._files(self._st.session.id)

    def current(self) -> WorkflowState | None:
        return self.files().current()

    def resolve(self, name: str) -> str:
        """A role's agent name: ``primary``/``escalation`` (or "") → the running slot's
        agent, else a configured agent (any case).  WorkflowError when there is none."""
        st = self._st
        key = (name or "escalation").strip().lower()
        if key in ("primary", "escalation"):
            slot = st.primary if key == "primary" else st.escalation
            slot = slot or st.primary or st.escalation
            if slot is None:
                raise WorkflowError("no agent configured: add an entry to agents[]")
            return slot.name
        found = st.config.find_agent(name)
        if found is None:
            raise WorkflowError(f"no agent named '{name}' is configured")
        return found.name

    def start(
        self, task: str, agent_map: dict[str, str], prompts: dict[str, str] | None = None
    ) -> asyncio.Task[WorkflowResult]:
        if not task.strip():
            raise WorkflowError("workflow dev needs a task")
        live = self.current()
        if live is not None and not live.finished:
            raise WorkflowError(
                f"workflow {live.workflow_id} is in progress ({live.position()}): "
                "resume it, or clear it first"
            )
        files = self.files()
        wf = WorkflowState(
            workflow_id=files.next_id(),
            session_id=self._st.session.id,
            task=task.strip(),
            agent_map={r: self.resolve(agent_map.get(r, "")) for r in ROLES},
            prompts={k: v for k, v in (prompts or {}).items() if v.strip()},
            nonce=new_nonce(),
        )
        return self._launch(wf)

    def resume(self, *, extend: bool = False) -> asyncio.Task[WorkflowResult]:
        wf = self.current()
        if wf is None:
            raise WorkflowError("no workflow to resume in this session")
        if wf.finished:
            raise WorkflowError("the workflow already completed; clear removes it")
        if extend:
            if not wf.exhausted:
                raise WorkflowError("the workflow did not run out of passes; resume it instead")
            wf.max_passes *= 2
            wf.pass_ = 1
        wf.exhausted, wf.error = False, ""
        return self._launch(wf)

    def reconfigure(self, agent_map: dict[str, str]) -> WorkflowState:
        wf = self.current()
        if wf is None or wf.finished:
            raise WorkflowError("no workflow in progress to reconfigure")
        for role, name in agent_map.items():
            if role in ROLES and name.strip():
                wf.agent_map[role] = self.resolve(name)
                wf.cli_sessions.pop(role, None)  # another agent: that role starts fresh
        self.files().save(wf)
        return wf

    def clear(self) -> WorkflowState:
        if self.running:
            raise WorkflowError("the workflow is running: stop it first")
        wf = self.current()
        if wf is None:
            raise WorkflowError("no workflow to clear in this session")
        self.files().clear(wf)
        return wf

    def answer_questions(self, request_id: str, answers: str) -> None:
        fut = self._questions.pop(request_id, None)
        if fut is not None and not fut.done():
            fut.set_result(answers)

    async def _ask(self, questions: str) -> str:
        rid = new_nonce()
        fut: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._questions[rid] = fut
        self._st.bus.publish(
            ev.WorkflowQuestions(
                request_id=rid, questions=questions, session_id=self._st.session.id
            )
        )
        try:
            return await fut
        finally:
            self._questions.pop(rid, None)

    def _launch(self, wf: WorkflowState) -> asyncio.Task[WorkflowResult]:
        if self.running:
            raise WorkflowError("a workflow is already running")
        agents = {role: self._agent(role, name) for role, name in wf.agent_map.items()}
        runner = DevWorkflow(self._st, self._roles, self.files(), wf, agents, self._ask)

        async def run() -> WorkflowResult:
            try:
                return await runner.run()
            finally:
                for agent in {id(a.slot.agent): a for a in agents.values() if a.built}.values():
                    try:
                        await agent.slot.agent.aclose()
                    except (AgentError, OSError):
                        pass

        self.task = asyncio.create_task(run())
        return self.task

    def _agent(self, role: str, name: str) -> RoleAgent:
        st = self._st
        for slot in (st.primary, st.escalation):
            if slot is not None and slot.name.lower() == name.lower():
                return RoleAgent(role, slot)
        cfg = st.config.find_agent(name)
        if cfg is None:
            raise WorkflowError(f"the {role}'s agent '{name}' is no longer configured")
        agent = build_agent(cfg, slot="primary", config=st.config)
        return RoleAgent(role, AgentSlot("primary", cfg, agent), built=True)
