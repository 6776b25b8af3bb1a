"""FactsScreen: pushed over an app, fed bus events, dismissed by a jump or escape."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from milk_tui.facade.facts import Facts
from milk_tui.memory.service import MemoryService
from milk_tui.testing.waits import until
from milk_tui.tui.facts import FactBrowser, FactsScreen


class ScreenHost(App[None]):
    def __init__(self, memory: MemoryService, session_id: str) -> None:
        super().__init__()
        self.memory, self.session_id = memory, session_id
        self.jumps: list[tuple[str, int]] = []
        self.closed = 0
        memory.bus.add_listener(self._forward)

    def _forward(self, event) -> None:  # noqa: ANN001 — what the real app does for panes
        if isinstance(self.screen, FactsScreen):
            self.screen.handle_bus_event(event)

    def compose(self) -> ComposeResult:
        yield Static("conversation")

    def on_mount(self) -> None:
        self.push_screen(
            FactsScreen(Facts(self.memory), session_id=self.session_id), self._screen_closed
        )

    def _screen_closed(self, _: None) -> None:
        self.closed += 1

    def on_fact_browser_jump_to_turn(self, event: FactBrowser.JumpToTurn) -> None:
        self.jumps.append((event.session_id, event.turn_index))


async def test_screen_updates_live_and_jump_returns_to_the_app(memory, session_id) -> None:
    memory.record("agent wrote this", producer="primary", session_id=session_id, turn_index=2)
    app = ScreenHost(memory, session_id)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FactsScreen) and screen.browser.window.total == 1
        memory.record_from_agent(
            "@claude: check the flaky test", "primary", session_id, 3, "llama", "claude"
        )
        await until(pilot, lambda: screen.browser.window.total == 2)
        assert screen.browser.table.current().content == "agent wrote this"  # cursor kept
        await pilot.press("home")
        assert screen.browser.table.current().consumer == "escalation"
        await pilot.press("g")
        await until(pilot, lambda: app.jumps == [(session_id, 3)])
        assert app.closed == 1 and not isinstance(app.screen, FactsScreen)


async def test_escape_closes_the_screen(memory, session_id) -> None:
    app = ScreenHost(memory, session_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "no remembered facts" in app.screen.browser.table.render_line(1).text
        await pilot.press("escape")
        await until(pilot, lambda: app.closed == 1)
