"""Tool lines, scroll-follow, palette and remembered theme."""

from __future__ import annotations

from milk_tui.engine.runtime import build_runtime
from milk_tui.model import events as ev
from milk_tui.tui.app import MilkApp
from milk_tui.tui.ui_state import UIState
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.escalation_pane import EscalationPane
from milk_tui.tui.widgets.tool_line import ToolLine
from tui.conftest import SNAP_CWD, make_app, settle, type_and_send


async def test_tool_call_line_expands_with_result() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        bus = app.runtime.bus
        bus.publish(ev.TurnStarted(prompt="list files"))
        bus.publish(
            ev.ToolCall(slot="primary", call_id="c1", name="list_dir", arguments='{"path": "src"}')
        )
        await settle(pilot, app)
        line = app.main_screen.query_one(ToolLine)
        assert "list_dir" in str(line.render()) and 'path="src"' in str(line.render())
        bus.publish(
            ev.ToolResult(slot="primary", call_id="c1", name="list_dir", content="a.py\nb.py")
        )
        await settle(pilot, app)
        assert "→ ok (9 chars)" in str(line.render())
        assert "a.py" not in str(line.render())
        await pilot.click(ToolLine)
        assert "result: a.py" in str(line.render())
        bus.publish(ev.ToolCall(slot="primary", call_id="c2", name="read_file", arguments="{}"))
        bus.publish(
            ev.ToolResult(slot="primary", call_id="c2", content="no such file", is_error=True)
        )
        await settle(pilot, app)
        assert app.main_screen.query(ToolLine).last().has_class("-error")


async def test_follow_bottom_only_while_at_bottom() -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        bus = app.runtime.bus
        conv = app.main_screen.query_one(Conversation)
        bus.publish(ev.TurnStarted(prompt="long"))
        for i in range(60):
            bus.publish(ev.TextDelta(slot="primary", text=f"line {i}\n\n"))
        await settle(pilot, app)
        assert conv.max_scroll_y > 0 and conv.scroll_y == conv.max_scroll_y
        conv.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        for i in range(20):
            bus.publish(ev.TextDelta(slot="primary", text=f"more {i}\n\n"))
        await settle(pilot, app)
        assert conv.scroll_y == 0  # the reader stays where they are
        conv.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        bus.publish(ev.TextDelta(slot="primary", text="tail\n\n" * 10))
        await settle(pilot, app)
        assert conv.scroll_y == conv.max_scroll_y


async def test_palette_runs_milk_actions() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"toggle thinking")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.ui_state.show_thinking


async def test_theme_choice_is_remembered() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.theme = "milk-light"
        await pilot.pause()
    assert UIState.load().theme == "milk-light"
    again = MilkApp(build_runtime(cwd=SNAP_CWD, demo=True))  # reads ui_state.json itself
    assert again.theme == "milk-light"


async def test_escalation_timeline_logs_one_return_per_hand_off() -> None:
    """↩ marks the first primary turn after an escalation, not every primary turn after it."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "the parser is hard")  # primary hands over
        await type_and_send(pilot, "what is a monad?")
        await type_and_send(pilot, "and a functor?")
        pane = app.main_screen.query_one(EscalationPane)
        assert pane.timeline is not None  # mounted with the first entry
        log = "".join(strip.text for strip in pane.timeline.lines)
        assert [c for c in log if c in "→←↩"] == ["→", "←", "↩"]
        assert "2 local turns since last escalation" in str(pane.body.render())
