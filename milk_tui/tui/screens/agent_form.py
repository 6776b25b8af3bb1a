"""``/agent add``: a form for a new agent entry, checked as the config would load it before
it is handed back (the caller writes it into the config file and reloads)."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Button, Input, Label, Static

from milk_tui.facade.agents import entry_problem
from milk_tui.tui.screens.milk_modal import FormModal

FIELDS: tuple[tuple[str, str, str], ...] = (
    ("name", "name", "what /agent switch calls it"),
    ("provider", "provider", "local, openai, openrouter, bedrock, claude-cli… (empty: local)"),
    ("url", "url", "http://127.0.0.1:8080 (OpenAI-compatible servers)"),
    ("model", "model", "the model id the server serves"),
    ("api_key", "api_key", "kept in the config file (mode 0600); or use token_cmd"),
    ("token_cmd", "token_cmd", "a command that prints a bearer token"),
)


class AgentForm(FormModal[dict[str, Any]]):
    """Dismisses with the new entry (only the fields filled in), or None."""

    DEFAULT_CSS = """
    AgentForm Label.field { color: $text-muted; }
    AgentForm Input { width: 1fr; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="milk.agent_form.cancel"),
        Binding("ctrl+s", "submit", "Save", id="milk.agent_form.save"),
    ]

    def __init__(self, taken: list[str], given: dict[str, str] | None = None) -> None:
        super().__init__("Add an agent to the config file")
        self.taken = {n.lower() for n in taken}
        self.given = given or {}  # fields filled in already: /agent add name=x url=…

    def compose_body(self) -> ComposeResult:
        for key, label, hint in FIELDS:
            yield Label(label, classes="field", markup=False)
            yield Input(self.given.get(key, ""), hint, id=f"agent-{key}", password=key == "api_key")
        yield Static("", classes="error", id="error", markup=False)

    def compose_buttons(self) -> ComposeResult:
        yield Button("Cancel", id="cancel")
        yield Button("Add (ctrl+s)", id="add", variant="primary")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter moves to the next field; in the last one it submits."""
        event.stop()
        ids = [f"agent-{k}" for k, _, _ in FIELDS]
        at = ids.index(event.input.id or ids[-1]) if event.input.id in ids else len(ids) - 1
        if at + 1 < len(ids):
            self.query_one(f"#{ids[at + 1]}", Input).focus()
        else:
            self.action_submit()

    def entry(self) -> dict[str, Any]:
        values = {k: self.query_one(f"#agent-{k}", Input).value.strip() for k, _, _ in FIELDS}
        return {k: v for k, v in values.items() if v}

    def action_submit(self) -> None:
        entry = self.entry()
        problem = entry_problem(entry)
        if not problem and entry["name"].lower() in self.taken:
            problem = f"name: an agent named '{entry['name']}' exists already"
        if problem:
            self.query_one("#error", Static).update(problem)
            return
        self.dismiss(entry)
