"""``/agent``: the configured agents — role, provider, model, url and whether each answers —
and what can be done to one: run it as the primary or the escalation agent for this session,
add an agent to the config file, remove one.  Reachability is probed in the background
(a worker per agent), so the list shows at once and fills in."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from milk_tui.facade.agents import AgentRow, Agents, ReloadResult
from milk_tui.model.terminal_text import inert

COLUMNS = ("role", "name", "provider", "model", "url", "reachable")
CHECKING = "checking…"


def role_mark(row: AgentRow) -> str:
    """``P`` primary, ``E`` escalation, ``PE`` both (the letters a Go milk user knows)."""
    return "".join(m for slot, m in (("primary", "P"), ("escalation", "E")) if slot in row.roles)


class AgentScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    AgentScreen { align: center middle; }
    AgentScreen > Vertical { width: 90%; height: 80%; border: thick $secondary; background: $surface; padding: 0 1; }
    AgentScreen .agent-title { height: auto; color: $secondary; text-style: bold; }
    AgentScreen DataTable { height: 1fr; }
    AgentScreen #agent-detail { height: auto; max-height: 50%; color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape,q", "close", "Close", id="milk.agent.close"),
        Binding("p,enter", "switch('primary')", "Primary", id="milk.agent.primary"),
        Binding("e", "switch('escalation')", "Escalation", id="milk.agent.escalation"),
        Binding("a", "add", "Add", id="milk.agent.add"),
        Binding("d", "remove", "Remove", id="milk.agent.remove"),
        Binding("r", "probe", "Check again", id="milk.agent.probe"),
    ]

    def __init__(self, agents: Agents) -> None:
        super().__init__()
        self.agents = agents
        self.reachable: dict[str, str] = {}
        self.rows: list[AgentRow] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                "Agents — p primary · e escalation (this session) · a add · d remove · "
                "r check again · Esc close",
                classes="agent-title",
                markup=False,
            )
            table: DataTable[str] = DataTable(cursor_type="row", id="agent-table")
            table.add_columns(*COLUMNS)
            yield table
            yield Static(self._where(), id="agent-detail", markup=False)

    def _where(self) -> str:
        path = self.agents.config_path
        return f"config: {path}" if path else "config: none yet (a add writes config.toml)"

    def on_mount(self) -> None:
        self.refresh_rows()
        self.action_probe()

    def refresh_rows(self) -> None:
        self.rows = self.agents.rows()
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        for r in self.rows:
            cells = (role_mark(r), r.name, r.provider + (" (built in)" if r.builtin else ""),
                     r.model, r.url, self.reachable.get(r.name.lower(), CHECKING))  # fmt: skip
            table.add_row(*(inert(c) for c in cells), key=r.name.lower())
        if self.rows:
            table.move_cursor(row=min(max(cursor, 0), len(self.rows) - 1))

    def action_probe(self) -> None:
        self.reachable.clear()
        self.refresh_rows()
        self.run_worker(self._probe_all(), group="agent-probe", exclusive=True)

    async def _probe_all(self) -> None:
        async def one(name: str) -> None:
            self.reachable[name.lower()] = await self.agents.probe(name)
            if self.is_mounted:
                self.refresh_rows()

        await asyncio.gather(*(one(r.name) for r in self.rows))

    def _selected(self) -> AgentRow | None:
        row = self.query_one(DataTable).cursor_row
        return self.rows[row] if self.rows and 0 <= row < len(self.rows) else None

    def _detail(self, text: str) -> None:
        self.query_one("#agent-detail", Static).update(inert(text))

    def action_switch(self, slot: str) -> None:
        r = self._selected()
        if r is None:
            return
        try:
            self._detail(
                self.agents.switch(r.name, "escalation" if slot == "escalation" else "primary")
            )
        except ValueError as e:
            self._detail(str(e))
        self.refresh_rows()

    def action_add(self) -> None:
        from milk_tui.tui.screens.agent_form import AgentForm

        def added(entry: dict[str, Any] | None) -> None:
            if entry is not None:
                self.run_worker(self._run(self.agents.add(entry)), group="agent-edit")

        self.app.push_screen(AgentForm([r.name for r in self.rows]), added)

    def action_remove(self) -> None:
        r = self._selected()
        if r is not None:
            self.run_worker(self._run(self.agents.remove(r.name)), group="agent-edit")

    async def _run(self, edit: Coroutine[Any, Any, ReloadResult]) -> None:
        try:
            result = await edit
        except ValueError as e:
            self._detail(str(e))
            return
        self._detail("\n".join(result.lines) or "done")
        self.action_probe()

    def action_close(self) -> None:
        self.dismiss(None)
