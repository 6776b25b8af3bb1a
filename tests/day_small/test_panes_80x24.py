"""At 80x24 (side panes forced with F2) no pane line is cut unseen: the need pane lays its
lines out for its rows — the need cut with "…", its state and who set it always on the last
row — and the escalation pane's session line keeps its state on one line.  At 160x45 the
need pane shows everything as before."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static
from tui.conftest import make_app, settle, type_and_send

from milk_tui.tui.widgets.escalation_pane import EscalationPane
from milk_tui.tui.widgets.need_pane import NeedPane

LONG_NEED = (
    "make the parser handle nested generics without breaking any of the existing error messages"
)


async def _panes(tmp_path: Path, size: tuple[int, int]) -> tuple[list[str], int, list[str]]:
    app = make_app(cwd=str(tmp_path))
    async with app.run_test(size=size) as pilot:
        for prompt in ("refactor the parser", f"/need {LONG_NEED}"):
            await type_and_send(pilot, prompt)
            await settle(pilot, app)
        if size[0] < 100:
            await pilot.press("f2")
        await pilot.pause()
        await settle(pilot, app)
        need = app.main_screen.query_one(NeedPane)
        body = need.query_one("#need-body", Static)
        need_lines = [body.render_line(y).text.rstrip() for y in range(body.size.height)]
        esc = app.main_screen.query_one(EscalationPane).body
        esc_lines = [esc.render_line(y).text.rstrip() for y in range(esc.size.height)]
        return need_lines, need.content_size.height, esc_lines


async def test_at_80x24_the_need_pane_shows_its_state_and_cuts_the_need_visibly(
    tmp_path: Path,
) -> None:
    lines, rows, esc = await _panes(tmp_path, (80, 24))
    assert len(lines) <= rows, (lines, rows)  # everything it holds is on screen
    assert lines[-1] == "current · by you with /need", lines
    assert lines[-2].endswith("…") and LONG_NEED.startswith(lines[0].strip())
    [session] = [line for line in esc if line.startswith("session: ")]
    assert session.endswith("(new)"), esc


async def test_at_160x45_the_need_pane_shows_all_of_it(tmp_path: Path) -> None:
    lines, rows, esc = await _panes(tmp_path, (160, 45))
    assert len(lines) <= rows
    assert " ".join(lines[:3]) == LONG_NEED
    assert lines[3:] == ["current", "set by you with /need", "", "before:", "· refactor the parser"]
    [session] = [line for line in esc if line.startswith("session: ")]
    assert session.endswith("(new)"), esc
