"""``/agent``: the configured agents — role, provider, model, url and whether each answers —
and what can be done to one: run it as the primary or the escalation agent for this session,
add an agent to the config file, remove one.  Reachability is probed in the background
(a worker per agent), so the list shows at once and fills in."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from milk_tui.facade.agents import AgentRow, Agents, ReloadResult
from milk_tui.model.terminal_text import inert
from milk_tui.tui.screens.mcp_screen import McpScreen

COLUMNS = ("role", "name", "reachable", "provider", "model", "url")
"""Reachability before the url: a long url is what a narrow terminal cuts, not the answer."""
CHECKING = "checking…"
TITLE = "Agents — p primary · e escalation (kept with this session) · a add · d remove · r check again · Esc close"


def role_mark(row: AgentRow) -> str:
    """``P`` primary, ``E`` escalation, ``PE`` both (the letters a Go milk user knows)."""
    return "".join(m for slot, m in (("primary", "P"), ("escalation", "E")) if slot in row.roles)


class AgentScreen(ModalScreen[None]):
    # The layout of the MCP screen (a titled table and a detail line), under this screen's names.
    DEFAULT_CSS = McpScreen.DEFAULT_CSS.replace("McpScreen", "AgentScreen").replace(
        "mcp-", "agent-"
    )
    BINDINGS = [
        Binding(keys, action, label, id=f"milk.agent.{action.split('(')[0]}{suffix}")
        for keys, action, label, suffix in (
            ("escape,q", "close", "Close", ""),
            ("p,enter", "switch('primary')", "Primary", "_primary"),
            ("e", "switch('escalation')", "Escalation", "_escalation"),
            ("a", "add", "Add", ""),
            ("d", "remove", "Remove", ""),
            ("r", "probe", "Check again", ""),
        )
    ]

    def __init__(self, agents: Agents) -> None:
        super().__init__()
        self.agents = agents
        self.reachable: dict[str, str] = {}
        self.rows: list[AgentRow] = []

    def compose(self) -> ComposeResult:
        table: DataTable[str] = DataTable(cursor_type="row", id="agent-table")
        table.add_columns(*COLUMNS)
        with Vertical():
            yield Static(TITLE, classes="agent-title", markup=False)
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
            cells = (role_mark(r), r.name, self.reachable.get(r.name.lower(), CHECKING),
                     r.provider + (" (built in)" if r.builtin else ""), r.model, r.url)  # fmt: skip
            table.add_row(*(Text(inert(c)) for c in cells), key=r.name.lower())  # not markup
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
        from milk_tui.tui.screens.agent_form import AgentForm, NewAgent

        def added(new: NewAgent | None) -> None:
            if new is not None:
                edit = self.agents.add(new.entry, keep_slots=not new.answers)
                self.run_worker(self._run(edit), group="agent-edit")

        names = [r.name for r in self.rows]
        self.app.push_screen(AgentForm(names, probe=self.agents.probe_entry), added)

    def action_remove(self) -> None:
        r = self._selected()
        if r is not None:
            self._detail(f"removing {r.name}…")
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
