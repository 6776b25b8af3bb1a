"""``/mcp``: the configured MCP servers with their state, and what can be done to one —
enable, disable, reconnect, authenticate (a fresh token or key), show its tools.  Enable and
disable last for this run; the config file says what starts next time."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from milk_tui.facade.mcp import McpServers, ServerStatus, describe
from milk_tui.model.terminal_text import inert

REFRESH_S = 0.5
"""Servers change state in the background (starting → ready); the list follows."""


class McpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    McpScreen { align: center middle; }
    McpScreen > Vertical { width: 90%; height: 80%; border: thick $secondary; background: $surface; padding: 0 1; }
    McpScreen .mcp-title { height: auto; color: $secondary; text-style: bold; }
    McpScreen DataTable { height: 1fr; }
    McpScreen #mcp-detail { height: auto; max-height: 50%; color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape,q", "close", "Close", id="milk.mcp.close"),
        Binding("e", "enable", "Enable", id="milk.mcp.enable"),
        Binding("d", "disable", "Disable", id="milk.mcp.disable"),
        Binding("r", "reconnect", "Reconnect", id="milk.mcp.reconnect"),
        Binding("a", "authenticate", "Authenticate", id="milk.mcp.auth"),
        Binding("t,enter", "tools", "Tools", id="milk.mcp.tools"),
    ]

    def __init__(self, servers: McpServers) -> None:
        super().__init__()
        self.servers = servers
        self._shown: list[tuple[str, str, str]] | None = None  # None: nothing shown yet
        self._tools_of = ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                "MCP servers — e enable · d disable · r reconnect · a authenticate · "
                "t tools · Esc close",
                classes="mcp-title",
                markup=False,
            )
            table: DataTable[str] = DataTable(cursor_type="row", id="mcp-table")
            table.add_columns("server", "transport", "state")
            yield table
            yield Static("", id="mcp-detail", markup=False)

    def on_mount(self) -> None:
        self.refresh_rows()
        self.set_interval(REFRESH_S, self.refresh_rows)

    def refresh_rows(self) -> None:
        rows = [(s.name, s.transport, describe(s)) for s in self.servers.statuses()]
        if rows == self._shown:
            return
        self._shown = rows
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        for row in rows:
            # A server's name and its error (stderr) are its own text: inert, never markup.
            table.add_row(*(Text(inert(c)) for c in row), key=row[0])
        if rows:
            table.move_cursor(row=min(cursor, len(rows) - 1))
        else:
            self._detail(
                "No MCP servers configured. Add [[mcp_servers]] entries (name, and a command "
                "or a url) to the config file; docs/interfaces.md lists every key."
            )
        if self._tools_of:
            self.action_tools()

    def _selected(self) -> ServerStatus | None:
        table = self.query_one(DataTable)
        statuses = self.servers.statuses()
        if not statuses or table.cursor_row < 0:
            return None
        return statuses[min(table.cursor_row, len(statuses) - 1)]

    def _detail(self, text: str) -> None:
        """Tool names and descriptions, errors: the server's text, shown inert."""
        self.query_one("#mcp-detail", Static).update(inert(text))

    def _act(self, verb: str, done: str) -> None:
        s = self._selected()
        if s is None:
            return
        ok = getattr(self.servers, verb)(s.name)
        self._detail(f"{s.name}: {done}" if ok else f"{s.name}: cannot {verb} now")
        self.refresh_rows()

    def action_enable(self) -> None:
        self._act("enable", "enabled for this run; starting")

    def action_disable(self) -> None:
        self._act("disable", "disabled for this run; its tools are gone")

    def action_reconnect(self) -> None:
        self._act("reconnect", "reconnecting")

    def action_authenticate(self) -> None:
        self._act("authenticate", "signing in (an OAuth server's page opens; see the transcript)")

    def action_tools(self) -> None:
        s = self._selected()
        if s is None:
            return
        self._tools_of = s.name
        tools = self.servers.tools(s.name) or []
        if s.state != "ready":
            self._detail(f"{s.name}: {describe(s)}")
            return
        lines = [
            f"{t.name}  {t.description.splitlines()[0] if t.description else ''}" for t in tools
        ]
        self._detail("\n".join(lines) or f"{s.name} offers no tools")

    def action_close(self) -> None:
        self.dismiss(None)
