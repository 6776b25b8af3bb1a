"""List, switch, rename, delete and start sessions.

Renames and deletes are plain writes about *other* sessions, so they happen here.
Switching and starting are not: only the application may change the live session (it
consolidates memory and swaps state between turns), so the screen dismisses with
``("switch", session_id)`` or ``("new", name)`` and the main screen asks the application.
Listing counts every session's turns, so it runs in a worker thread (``arecent``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from milk_tui.facade.errors import StorageError
from milk_tui.facade.sessions import SessionCatalog, SessionSummary
from milk_tui.model.terminal_text import inert
from milk_tui.tui.facts.table import age
from milk_tui.tui.screens.confirm_modal import ConfirmModal, TextPromptModal
from milk_tui.tui.widgets.app_header import short_path

SessionAction = tuple[str, str]
"""("switch", session_id) or ("new", name); None when the user just closes the screen."""
NEED_WIDTH = 40


class SessionsScreen(Screen[SessionAction | None]):
    DEFAULT_CSS = """
    SessionsScreen #sessions-title { height: 1; background: $panel; text-style: bold; padding: 0 1; }
    SessionsScreen DataTable { height: 1fr; }
    SessionsScreen #sessions-status { height: 1; color: $text-muted; padding: 0 1; }
    """
    BINDINGS = [
        Binding("enter", "switch", "Switch", id="sessions.switch"),
        Binding("n", "new", "New", id="sessions.new"),
        Binding("r", "rename", "Rename", id="sessions.rename"),
        Binding("d,delete", "delete", "Delete", id="sessions.delete"),
        Binding("f", "toggle_scope", "This folder / all", id="sessions.toggle_scope"),
        Binding("escape,q", "close", "Close", id="sessions.close"),
    ]

    def __init__(self, catalog: SessionCatalog, *, cwd: str, current_id: str | None = None,
                 clock: Callable[[], float] = time.time) -> None:  # fmt: skip
        super().__init__()
        self.catalog = catalog
        self.cwd = cwd
        self.current_id = current_id
        self.clock = clock
        self.any_folder = False
        self.sessions: list[SessionSummary] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="sessions-title", markup=False)
        yield DataTable(cursor_type="row", zebra_stripes=True, id="sessions-table")
        yield Static("", id="sessions-status", markup=False)
        yield Footer()

    async def on_mount(self) -> None:
        self.table.focus()
        await self.reload(select=self.current_id)

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one(DataTable)

    # ----- data ------------------------------------------------------------------------

    async def reload(self, select: str | None = None) -> None:
        try:
            self.sessions = await self.catalog.arecent(
                None if self.any_folder else self.cwd, keep=self.current_id or ""
            )
        except StorageError as e:
            self.notify(str(e), severity="error")
            self.sessions = []
        where = "all folders" if self.any_folder else self.cwd
        self.query_one("#sessions-title", Static).update(Text(inert(f"Sessions — {where}")))
        t = self.table
        t.clear(columns=True)
        t.add_column("", key="mark", width=1)
        t.add_column("name", key="name")
        t.add_column("questions", key="questions")
        t.add_column("used", key="used")
        t.add_column("need", key="need", width=NEED_WIDTH)
        if self.any_folder:
            t.add_column("folder", key="folder")
        now = self.clock()
        for s in self.sessions:
            need = " ".join(s.current_need.split())
            row = ["●" if s.id == self.current_id else "", s.name or f"({s.id[:8]})", str(s.questions),
                   age(now - s.last_used), need[: NEED_WIDTH - 1] + "…" if len(need) > NEED_WIDTH else need]  # fmt: skip
            if self.any_folder:
                row.append(short_path(s.cwd))
            # Text cells: a DataTable reads a str cell as markup; names and needs are
            # untrusted (an agent writes the need), so they are inert plain text.
            t.add_row(*(Text(inert(c)) for c in row), key=s.id)
        if select is not None:
            for i, s in enumerate(self.sessions):
                if s.id == select:
                    t.move_cursor(row=i)
        n = len(self.sessions)
        self.query_one("#sessions-status", Static).update(
            f"{n} session{'s' if n != 1 else ''} · enter switches · "
            f"f shows {'this folder' if self.any_folder else 'all folders'}"
        )

    def selected(self) -> SessionSummary | None:
        if not self.sessions:
            return None
        row = self.table.cursor_row
        return self.sessions[row] if 0 <= row < len(self.sessions) else None

    # ----- actions ---------------------------------------------------------------------

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_switch()

    def action_switch(self) -> None:
        s = self.selected()
        if s is None:
            return
        if s.id == self.current_id:
            self.notify("already in this session")
            return
        self.dismiss(("switch", s.id))

    def action_new(self) -> None:
        def done(name: str | None) -> None:
            if name is not None:
                self.dismiss(("new", name))

        self.app.push_screen(TextPromptModal("New session", placeholder="name (optional)",
                                             allow_empty=True), done)  # fmt: skip

    def action_rename(self) -> None:
        s = self.selected()
        if s is None:
            return

        async def done(name: str | None) -> None:
            if name is None:
                return
            try:
                await self.catalog.arename(s.id, name)
            except StorageError as e:
                self.notify(str(e), severity="error")
                return
            await self.reload(select=s.id)

        self.app.push_screen(TextPromptModal("Rename session", inert(s.name)), done)

    def action_delete(self) -> None:
        s = self.selected()
        if s is None:
            return
        if s.id == self.current_id:
            self.notify("this is the session in use; switch to another one before deleting it",
                        severity="warning")  # fmt: skip
            return

        async def done(yes: bool | None) -> None:
            if not yes:
                return
            row = self.table.cursor_row
            try:
                await self.catalog.adelete(s.id)
            except StorageError as e:
                self.notify(str(e), severity="error")
                return
            await self.reload()
            if self.sessions:
                self.table.move_cursor(row=min(row, len(self.sessions) - 1))

        label = s.name or s.id[:8]
        asked = f"{s.questions} question{'' if s.questions == 1 else 's'}"
        self.app.push_screen(ConfirmModal(f"Delete session {label}?",
                                          f"{asked} in {s.cwd}. This cannot be undone.",
                                          confirm_label="Delete"), done)  # fmt: skip

    async def action_toggle_scope(self) -> None:
        current = self.selected()
        self.any_folder = not self.any_folder
        await self.reload(select=current.id if current else self.current_id)

    def action_close(self) -> None:
        self.dismiss(None)
