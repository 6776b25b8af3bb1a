"""The dev workflow: /workflow dev [TASK] (a form), resume, status, clear (asks first),
reconfigure ROLE=AGENT … (docs/adr/0044-dev-workflow.md).  The same commands as
``milk-tui workflow``; while it runs the dispatcher is busy and Ctrl+C stops it."""

from __future__ import annotations

import json

from milk_tui.tui.slash.base import SlashGroup

USAGE = "/workflow dev [TASK] | resume | status | clear | reconfigure ROLE=AGENT …"
ROLES = ("designer", "generator", "evaluator")


class WorkflowCommands(SlashGroup):
    async def cmd_workflow(self, arg: str) -> None:
        from milk_tui.tui.screens import workflow_flow as flow

        sub, _, rest = arg.strip().partition(" ")
        sub = sub.lower() or "status"
        wf = self.facade.workflow
        if sub == "status":
            self.say(flow.status_text(wf.state()))
        elif sub == "dev":
            self._open_form(rest.strip())
        elif sub == "resume":
            live = wf.state()
            if live is not None and live.exhausted and not wf.running:
                flow.offer_extend(self.screen, live.sprint, live.max_passes)
                return
            flow.resume(self.screen)
        elif sub == "clear":
            self._clear()
        elif sub == "reconfigure":
            self._reconfigure(rest)
        else:
            raise ValueError(f"usage: {USAGE}")

    def _open_form(self, task: str) -> None:
        from milk_tui.tui.screens import workflow_flow as flow
        from milk_tui.tui.screens.workflow_form import WorkflowForm, WorkflowRequest

        wf = self.facade.workflow
        if self.facade.busy:
            raise ValueError("a turn or a workflow is running")
        names = [row.name for row in self.facade.agents.rows()]

        def chosen(req: WorkflowRequest | None) -> None:
            if req is None:
                return
            try:
                flow.watch(self.screen, wf.start(req.task, req.agent_map, req.prompts))
            except ValueError as e:  # WorkflowError: one line
                self.say(f"/workflow: {e}", "error")

        self.screen.app.push_screen(WorkflowForm(task, names), chosen)

    def _clear(self) -> None:
        from milk_tui.tui.screens.confirm_modal import ConfirmModal
        from milk_tui.tui.widgets.workflow_pane import WorkflowPane

        wf = self.facade.workflow
        live = wf.state()
        if live is None:
            raise ValueError("no workflow to clear in this session")
        if wf.running:
            raise ValueError("the workflow is running: stop it first (ctrl+c)")

        def confirmed(yes: bool | None) -> None:
            if not yes:
                return
            try:
                cleared = wf.clear()
            except ValueError as e:
                self.say(f"/workflow: {e}", "error")
                return
            self.screen.query_one(WorkflowPane).show_state(None)
            self.say(f"workflow {cleared.workflow_id} cleared ({cleared.position()})")

        self.screen.app.push_screen(
            ConfirmModal(
                f"Clear workflow {live.workflow_id}?",
                f"{live.task}\n\n{live.position()}: it is set aside (its files stay).",
                confirm_label="Clear",
            ),
            confirmed,
        )

    def _reconfigure(self, rest: str) -> None:
        roles: dict[str, str] = {}
        for word in rest.split():
            role, eq, agent = word.partition("=")
            if not eq or role.lower() not in ROLES or not agent:
                raise ValueError(f"reconfigure takes ROLE=AGENT (roles: {', '.join(ROLES)})")
            roles[role.lower()] = agent
        if not roles:
            raise ValueError(f"reconfigure takes ROLE=AGENT (roles: {', '.join(ROLES)})")
        changed = self.facade.workflow.reconfigure(roles)
        self.say(
            f"workflow {changed.workflow_id}: {json.dumps(changed.agent_map)}; "
            f"/workflow resume continues from {changed.position()}"
        )
