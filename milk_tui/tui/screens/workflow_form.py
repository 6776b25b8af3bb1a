"""The ``/workflow dev`` form: the task (several lines), the agent of each role (designer,
generator, evaluator: ``primary``, ``escalation`` or a configured agent's name) and an
optional behaviour prompt per role.  Ctrl+S or the Start button starts it; Escape or
Cancel closes the form and starts nothing."""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Input, Label, Select, Static, TextArea

from milk_tui.tui.screens.milk_modal import FormModal

ROLES = ("designer", "generator", "evaluator")
DEFAULT_AGENT = "escalation"
"""As ``milk-tui workflow dev`` without ``--ROLE``: the escalation agent in every role."""


@dataclass
class WorkflowRequest:
    task: str
    agent_map: dict[str, str]
    prompts: dict[str, str] = field(default_factory=dict)


class WorkflowForm(FormModal[WorkflowRequest]):
    DEFAULT_CSS = """
    WorkflowForm .milk-modal { width: 90; }
    WorkflowForm TextArea { width: 1fr; height: 5; margin-bottom: 1; }
    WorkflowForm .role { width: 1fr; height: 1; margin-bottom: 1; }
    WorkflowForm .role Label { width: 11; }
    WorkflowForm .role Select { width: 24; margin-right: 1; }
    WorkflowForm .role Input { width: 1fr; }
    WorkflowForm .wf-keys { color: $text-muted; }
    """
    BINDINGS = [
        Binding("ctrl+s", "submit", "Start", id="milk.workflow.start"),
        Binding("escape", "cancel", "Cancel", id="milk.workflow.cancel"),
    ]

    def __init__(self, task: str = "", agents: list[str] | None = None) -> None:
        super().__init__("Dev workflow: designer → generator → evaluator")
        self.task_text = task
        names = ["primary", "escalation"]
        names += [a for a in agents or [] if a.lower() not in ("primary", "escalation")]
        self.agent_names = names

    def compose_body(self) -> ComposeResult:
        yield Label("Task (several lines)", markup=False)
        yield TextArea(self.task_text, id="task", soft_wrap=True, show_line_numbers=False)
        for role in ROLES:
            with Horizontal(classes="role"):
                yield Label(role, markup=False)
                yield Select(
                    [(n, n) for n in self.agent_names],
                    value=DEFAULT_AGENT,
                    allow_blank=False,
                    id=f"agent-{role}",
                    compact=True,
                )
                yield Input(placeholder="behaviour (optional)", id=f"prompt-{role}", compact=True)
        yield Static("", classes="error", id="error")
        yield Static("ctrl+s start · tab next field · Esc cancel", classes="wf-keys", markup=False)

    def compose_buttons(self) -> ComposeResult:
        yield Button("Cancel", id="cancel")
        yield Button("Start (ctrl+s)", id="start", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#task", TextArea).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()  # Enter in a behaviour line moves on; only Ctrl+S or Start starts
        self.focus_next()

    def action_submit(self) -> None:
        task = self.query_one("#task", TextArea).text.strip()
        if not task:
            self.query_one("#error", Static).update("a task is required")
            self.query_one("#task", TextArea).focus()
            return
        agents = {r: str(self.query_one(f"#agent-{r}", Select).value) for r in ROLES}
        prompts = {r: self.query_one(f"#prompt-{r}", Input).value.strip() for r in ROLES}
        self.dismiss(WorkflowRequest(task, agents, {r: p for r, p in prompts.items() if p}))
