"""``/agent add``: a form for a new agent entry, checked as the config would load it and then
probed (a progress line while it runs) before it is handed back; the caller writes it into
the config file and reloads.  An agent that does not answer is handed back only when the
user saves again, having read why.

The form shows the keys a new agent usually needs; every other key of an agent entry
(``AGENT_KEYS``, read off the one agent model) goes in its last field as ``key=value``.
Tab, Shift+Tab and Enter move between fields as priority bindings: they run before the
next key is delivered, so keys typed or pasted in a burst land in the field they follow.
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Input, Label, Static

from milk_tui.facade.agents import entry_problem, parse_pairs, typed_value
from milk_tui.model.terminal_text import inert
from milk_tui.tui.screens.milk_modal import FormModal

MORE = "more"
"""The last field: any other key of an agent entry, as ``key=value …``."""
FIELDS: tuple[tuple[str, str], ...] = (
    ("name", "what /agent switch calls it"),
    ("provider", "local (default), openai, bedrock, claude-cli…"),
    ("url", "http://127.0.0.1:8080 (OpenAI-compatible servers)"),
    ("model", "the model id the server serves"),
    ("api_key", "kept in the config file (mode 0600); or use token_cmd"),
    ("token_cmd", "a command that prints a bearer token"),
    ("max_tokens", "cap on a reply's tokens (empty: the server's)"),
    ("timeout_secs", "seconds without a byte before a turn fails (60)"),
    (MORE, 'key=value … e.g. aws_region=eu-west-1 run_cmd="llama-server …"'),
)
SHOWN = tuple(k for k, _ in FIELDS if k != MORE)
Probe = Callable[[dict[str, Any]], Awaitable[str]]


@dataclass(frozen=True)
class NewAgent:
    entry: dict[str, Any]
    """Only the keys filled in, typed."""
    answers: bool
    """The probe found it up (False: saved anyway, or not probed)."""


class AgentForm(FormModal[NewAgent]):
    """Dismisses with the new agent, or None."""

    DEFAULT_CSS = """
    AgentForm .milk-modal { width: 90; }
    AgentForm .row { height: 1; }
    AgentForm Label.field { width: 14; color: $text-muted; }
    AgentForm Input { width: 1fr; height: 1; border: none; padding: 0 1; background: $boost; }
    AgentForm Input:focus { border: none; background: $primary 25%; }
    AgentForm #status { color: $text-muted; height: auto; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="milk.agent_form.cancel"),
        Binding("ctrl+s", "submit", "Save", id="milk.agent_form.save"),
        Binding("tab", "step(1)", "Next field", priority=True, show=False),
        Binding("shift+tab", "step(-1)", "Previous field", priority=True, show=False),
        Binding("enter", "enter", "Next field or save", priority=True, show=False),
    ]

    def __init__(
        self, taken: list[str], given: dict[str, str] | None = None, probe: Probe | None = None
    ) -> None:
        super().__init__("Add an agent to the config file")
        self.taken = {n.lower() for n in taken}
        given = given or {}  # keys filled in already: /agent add name=x url=…
        self.given = {k: v for k, v in given.items() if k in SHOWN}
        more = [f"{k}={shlex.quote(v)}" for k, v in given.items() if k not in SHOWN]
        self.given[MORE] = " ".join(more)
        self.probe = probe
        self.insisted: dict[str, Any] | None = None
        """The entry the last probe found down: saving it unchanged saves it anyway."""

    def compose_body(self) -> ComposeResult:
        for key, hint in FIELDS:
            with Horizontal(classes="row"):
                yield Label(key, classes="field", markup=False)
                yield Input(self.given.get(key, ""), hint, id=f"agent-{key}",
                            password=key == "api_key")  # fmt: skip
        yield Static("", id="status", markup=False)
        yield Static("", classes="error", id="error", markup=False)

    def compose_buttons(self) -> ComposeResult:
        yield Button("Cancel", id="cancel")
        yield Button("Add (ctrl+s)", id="add", variant="primary")

    def _fields(self) -> list[Input]:
        return [self.query_one(f"#agent-{k}", Input) for k, _ in FIELDS]

    def action_step(self, by: int) -> None:
        """The next (previous) field, then the buttons; wraps around."""
        order: list[Any] = [*self._fields(), *self.query(Button)]
        at = order.index(self.focused) if self.focused in order else -1
        # The screen's set_focus, not ``widget.focus()``: that one is queued behind keys
        # already received, which would land in the field being left.
        self.set_focus(order[(at + by) % len(order)])

    def action_enter(self) -> None:
        """Enter in a field moves to the next one (in the last, saves); on a button, presses it."""
        fields, focused = self._fields(), self.focused
        if isinstance(focused, Button):
            focused.press()
        elif focused in fields and focused is not fields[-1]:
            self.action_step(1)
        else:
            self.action_submit()

    def entry(self) -> dict[str, Any]:
        """The filled-in keys as the model takes them; ``ValueError`` for a bad ``more``."""
        values = {k: self.query_one(f"#agent-{k}", Input).value.strip() for k in SHOWN}
        more = parse_pairs(self.query_one(f"#agent-{MORE}", Input).value)
        return {k: typed_value(k, v) for k, v in {**values, **more}.items() if v.strip()}

    def action_submit(self) -> None:
        self._say("")
        try:
            entry = self.entry()
        except ValueError as e:
            self._say("", f"{MORE}: {e}")
            return
        problem = entry_problem(entry)
        if not problem and entry["name"].lower() in self.taken:
            problem = f"name: an agent named '{entry['name']}' exists already"
        if problem:
            self._say("", problem)
        elif self.probe is None or entry == self.insisted:
            self.dismiss(NewAgent(entry, answers=False))
        else:
            where = entry.get("url") or entry.get("provider") or "the local server"
            self._say(f"checking {entry['name']} at {where}…")
            self.run_worker(self._check(self.probe, entry), group="agent-form-probe",
                            exclusive=True)  # fmt: skip

    async def _check(self, probe: Probe, entry: dict[str, Any]) -> None:
        status = await probe(entry)
        if status == "up":
            self.dismiss(NewAgent(entry, answers=True))
            return
        self.insisted = entry
        self._say(
            f"{entry['name']}: {status}",
            "ctrl+s again saves it anyway (not as the primary), or correct a field",
        )

    def _say(self, status: str, error: str = "") -> None:
        self.query_one("#status", Static).update(inert(status))
        self.query_one("#error", Static).update(inert(error))
