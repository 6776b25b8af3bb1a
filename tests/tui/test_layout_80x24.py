"""What an 80×24 terminal must still show: the status line's token totals and cost."""

from __future__ import annotations

from milk_tui.tui.widgets.status_line import StatusLine
from tui.conftest import make_app, type_and_send


async def test_status_line_cuts_the_why_before_the_cost() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await type_and_send(pilot, "what is a monad?")
        await type_and_send(pilot, "/escalate design a parser for the config language")
        status = app.main_screen.query_one(StatusLine)
        full = status.plain
        assert "why:" in full and "│ escalation" in full and "$" in full
        shown = str(status.render())
        assert len(shown) <= status.content_size.width
        tail = full[full.index("  │ primary") :]
        assert shown.endswith(tail), (shown, tail)  # every total and the cost, whole
        assert shown.startswith("● ")  # the state still leads
        assert "…" in shown  # the why is what gave way


async def test_side_panes_at_80x24_keep_the_facts_pane_and_every_border() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        for prompt in ("what is a monad?", "remember that I prefer tabs", "refactor the parser"):
            await type_and_send(pilot, prompt)
        await pilot.press("f2")
        await pilot.pause()
        side = app.main_screen.query_one("#side").region
        assert side.width > 0
        for pane in ("#need", "#escalation", "#facts"):
            region = app.main_screen.query_one(pane).region
            assert region.height >= 3 and side.contains_region(region), (pane, region, side)
        assert app.main_screen.query_one("#facts").region.height >= 6
