"""The dev workflow loop as one task: designer, then per sprint generator and evaluator,
pass after pass, with a checkpoint (engine/workflow/files.py) after every step, so a resume
continues with the role that was next (docs/adr/0044-dev-workflow.md).

Checkpoints: at the start (role designer); after the plan (generator, sprint 1 pass 1);
after each generator report (evaluator: a resume does not redo the work); after each verdict
(generator of the next pass or sprint); at the end (done).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from milk_tui.engine.dispatch_state import DispatchState
from milk_tui.engine.turn_commit import save_turn
from milk_tui.engine.workflow.files import WorkflowFiles
from milk_tui.engine.workflow.role_turn import RoleAgent, RoleTurns
from milk_tui.model import events as ev
from milk_tui.model.session import PRIMARY, Turn
from milk_tui.model.workflow import (
    ADVANCING,
    DEFAULT_MAX_PASSES,
    Role,
    VerdictEntry,
    WorkflowState,
    count_sprints,
    parse_limits,
    parse_verdict,
    split_questions,
    sprint_section,
)
from milk_tui.model.workflow_prompts import (
    designer_finalize_prompt,
    designer_questions_prompt,
    evaluator_prompt,
    generator_prompt,
    summary_text,
)

AskQuestions = Callable[[str], Awaitable[str]]
"""The designer's questions → the user's answers ("" = use defaults)."""


@dataclass(frozen=True)
class WorkflowResult:
    ok: bool
    cancelled: bool = False
    error: str = ""
    exhausted_sprint: int = 0
    max_passes: int = 0


class DevWorkflow:
    def __init__(
        self,
        state: DispatchState,
        roles: RoleTurns,
        files: WorkflowFiles,
        wf: WorkflowState,
        agents: dict[str, RoleAgent],
        ask_questions: AskQuestions,
    ) -> None:
        self._st = state
        self._roles = roles
        self._files = files
        self.wf = wf
        self._agents = agents
        self._ask = ask_questions
        self._began = time.monotonic()
        self._base_elapsed = wf.elapsed_s

    def _publish(self, e: ev.BusEvent) -> None:
        self._st.bus.publish(e.replace(session_id=self._st.session.id))

    def checkpoint(self, role: Role) -> None:
        wf = self.wf
        wf.role = role
        wf.elapsed_s = self._base_elapsed + (time.monotonic() - self._began)
        self._files.save(wf)
        agent = self._agents.get(role)
        self._publish(
            ev.WorkflowProgress(
                sprint=wf.sprint,
                total_sprints=wf.total_sprints,
                pass_no=wf.pass_,
                max_passes=wf.max_passes,
                role=role,
                verdict_history=[
                    {"sprint": v.sprint, "pass": v.pass_, "verdict": v.verdict}
                    for v in wf.verdict_history
                ],
                elapsed_s=round(wf.elapsed_s, 3),
                cost_usd=wf.cost_usd,
                agent_name=agent.slot.name if agent else "",
            )
        )

    async def run(self) -> WorkflowResult:
        wf = self.wf
        self._publish(
            ev.WorkflowStarted(
                name=wf.name,
                task=wf.task,
                agent_map=dict(wf.agent_map),
                workflow_id=wf.workflow_id,
                resumed=wf.role != "designer" or bool(wf.verdict_history),
                role=wf.role,
            )
        )
        try:
            result = await self._loop()
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            self._files.save(wf)  # the last checkpoint's role, with the time spent
            result = WorkflowResult(ok=False, cancelled=True, error="cancelled")
        except Exception as e:  # noqa: BLE001 - a failing role ends the workflow with one line
            wf.error = f"{type(e).__name__}: {e}" if not str(e) else str(e)
            self._files.save(wf)
            result = WorkflowResult(ok=False, error=wf.error)
        findings = self._files.text_path(wf.workflow_id, f"findings{wf.sprint}")
        self._publish(
            ev.WorkflowFinished(
                ok=result.ok,
                cancelled=result.cancelled,
                error=result.error,
                exhausted_sprint=result.exhausted_sprint,
                max_passes=result.max_passes,
                findings_path=str(findings) if result.exhausted_sprint else "",
                workflow_id=wf.workflow_id,
            )
        )
        return result

    async def _loop(self) -> WorkflowResult:
        wf = self.wf
        self.checkpoint(wf.role)
        if wf.role == "designer":
            plan = await self._design()
            self._files.write_text(wf, "plan", plan)
            wf.sprint, wf.pass_ = 1, 1
            self._read_limits(plan)
            self.checkpoint("generator")
        plan = self._files.read_text(wf, "plan")
        if not wf.total_sprints:
            self._read_limits(plan)
        while wf.role != "done" and wf.sprint <= wf.total_sprints:
            section = sprint_section(plan, wf.sprint)
            if wf.role == "generator":
                report = await self._generate(section)
                self._files.write_text(wf, f"sprint{wf.sprint}", report)
                self.checkpoint("evaluator")
            report = self._files.read_text(wf, f"sprint{wf.sprint}")
            findings = await self._evaluate(section, report)
            self._files.write_text(wf, f"findings{wf.sprint}", findings)
            verdict = parse_verdict(findings)
            wf.verdict_history.append(VerdictEntry(wf.sprint, wf.pass_, verdict))
            if verdict in ADVANCING:
                wf.sprint, wf.pass_ = wf.sprint + 1, 1
            elif wf.pass_ >= wf.max_passes:
                wf.exhausted = True
                self.checkpoint("generator")
                self._summarise(
                    plan, f"stopped: sprint {wf.sprint} used its {wf.max_passes} passes"
                )
                return WorkflowResult(
                    ok=False, exhausted_sprint=wf.sprint, max_passes=wf.max_passes
                )
            else:
                wf.pass_ += 1
            self.checkpoint("generator" if wf.sprint <= wf.total_sprints else "done")
        if wf.role != "done":
            self.checkpoint("done")
        self._summarise(plan, "complete")
        return WorkflowResult(ok=True)

    def _read_limits(self, plan: str) -> None:
        wf = self.wf
        passes, sprints = parse_limits(plan)
        total = count_sprints(plan)
        wf.total_sprints = min(total, sprints) if sprints else total
        if not wf.max_passes:
            wf.max_passes = passes or DEFAULT_MAX_PASSES

    async def _turn(self, role: str, prompt: str, header: str) -> str:
        agent = self._agents[role]
        result = await self._roles.run(self.wf, agent, prompt, f"{header} ({agent.slot.name})")
        self.wf.cost_usd += result.cost_usd
        for path in result.files:
            if path not in self.wf.files_changed:
                self.wf.files_changed.append(path)
        return result.text

    async def _design(self) -> str:
        wf = self.wf
        behaviour = wf.prompts.get("designer", "")
        first = await self._turn(
            "designer", designer_questions_prompt(wf.task, behaviour), "designer"
        )
        none_asked, rest = split_questions(first)
        if none_asked:
            return rest or first
        wf.answers = await self._ask(rest)
        return await self._turn(
            "designer",
            designer_finalize_prompt(wf.task, rest, wf.answers, behaviour),
            "designer (plan)",
        )

    async def _generate(self, section: str) -> str:
        wf = self.wf
        findings = self._files.read_text(wf, f"findings{wf.sprint}") if wf.pass_ > 1 else ""
        prompt = generator_prompt(
            wf.task, section, wf.sprint, wf.total_sprints, wf.pass_, findings,
            wf.prompts.get("generator", ""),
        )  # fmt: skip
        text = await self._turn(
            "generator", prompt, f"generator sprint {wf.sprint} pass {wf.pass_}"
        )
        return text.strip() or "(the generator wrote no report)"

    async def _evaluate(self, section: str, report: str) -> str:
        wf = self.wf
        prompt = evaluator_prompt(
            wf.task, section, report, wf.sprint, wf.total_sprints, wf.pass_, wf.max_passes,
            wf.prompts.get("evaluator", ""),
        )  # fmt: skip
        return await self._turn(
            "evaluator", prompt, f"evaluator sprint {wf.sprint} pass {wf.pass_}"
        )

    def _summarise(self, plan: str, outcome: str) -> None:
        """The session learns what the workflow did: one exchange both agents read later."""
        wf, st = self.wf, self._st
        s = st.session
        head = "\n".join(plan.strip().splitlines()[:12])
        history = [(v.sprint, v.pass_, v.verdict) for v in wf.verdict_history]
        text = summary_text(wf.task, head, history, wf.files_changed, outcome)
        turns = [
            Turn("user", f"/workflow dev {wf.task}", agent=PRIMARY, agent_name="workflow"),
            Turn("assistant", text, agent=PRIMARY, agent_name="workflow"),
        ]
        s.history.extend(turns)
        save_turn(st.store, st.memory, s, turns, [], [])
        wf.summarised = True
        self._files.save(wf)
