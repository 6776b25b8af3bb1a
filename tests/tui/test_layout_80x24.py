"""What an 80×24 terminal must still show: the status line's token totals and cost."""

from __future__ import annotations

from textual.widgets import Static

from milk_tui.tui.commands import help_text
from milk_tui.tui.screens.help_modal import glossary_text, keys_text
from milk_tui.tui.widgets.status_line import StatusLine
from tui.conftest import make_app, type_and_send


async def test_status_line_cuts_the_why_before_the_cost() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        for prompt in ("what is a monad?", "/escalate design a parser for the config language"):
            await type_and_send(pilot, prompt)
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


async def test_help_descriptions_wrap_under_their_column() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        body = app.screen.query_one(Static)
        rows = [body.render_line(y).text.rstrip() for y in range(body.size.height)]
        command_rows = [i for i, row in enumerate(rows) if row.startswith("/escalate ")]
        assert command_rows, rows
        below = rows[command_rows[0] + 1]
        assert below.startswith("   ") and below.strip(), rows  # a continuation, indented
        sources = (help_text() + "\n" + keys_text({}) + "\n" + glossary_text()).splitlines()
        for row in rows[command_rows[0] :]:
            if row.startswith("A prompt typed"):
                break  # prose after the tables wraps like prose
            if row and not row.startswith(" ") and not row.startswith(("Keys (", "Words")):
                # at column 0 only a command or a key starts, never a wrapped description
                assert any(src.startswith(row.split("  ")[0]) for src in sources), row
