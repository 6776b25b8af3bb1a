"""Markdown while a reply streams: the open block is formatted, closed blocks render once,
and the finished reply is line for line the one-shot render (``md_blocks.py``)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from rich.style import Style
from textual.pilot import Pilot
from textual.strip import Strip

from milk_tui.tui.app import MilkApp
from milk_tui.tui.widgets.block_queue import SYNC_CHARS
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.md_blocks import block_spans, join_blocks, render_block
from milk_tui.tui.widgets.md_render import render_markdown
from milk_tui.tui.widgets.open_block import OPEN_CHARS
from milk_tui.tui.widgets.palette import Palette
from milk_tui.tui.widgets.stream_pace import PIECE_CHARS
from milk_tui.tui.widgets.stream_view import StreamView
from tui.conftest import make_app, until

PIECES = [
    "# Title\n", "## Sub heading\n", "Some *intro* text with `code` and **bold**.\nSecond line.\n",
    "- item one\n- item two\n  continued\n", "1. first\n\n2. second\n",
    "```python\ndef f(x):\n    return x\n```\n", "| a | b |\n|---|---|\n| 1 | 2 |\n",
    "> quote here\n> more\n", "---\n", "Final [link](http://x.y) ~~struck~~.\n",
    "    indented code\n", "Setext\n======\n", "* a\n    * nested\n* b\n",
    "text\n- list right after\n", "1) x\n2) y\n", "Para with <b>inline html</b>\n",
    "![img](http://a/b.png)\n", "> - quoted list\n> text\n",
]  # fmt: skip


def _doc(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(PIECES) + ("\n" if rng.random() < 0.8 else "") for _ in range(parts))


@asynccontextmanager
async def _mounted_view() -> AsyncIterator[tuple[MilkApp, Pilot[Any], StreamView]]:
    """The demo app running, a ``StreamView`` mounted in its conversation."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        view = StreamView()
        await app.main_screen.query_one(Conversation).mount(view)
        await pilot.pause()
        yield app, pilot, view


def _segments(strips: list[Strip] | tuple[Strip, ...]) -> list[list[object]]:
    return [list(s) for s in strips]


def test_blocks_rendered_apart_join_to_the_one_shot_render() -> None:
    rng, palette = random.Random(7), Palette()
    for _ in range(150):
        doc = _doc(rng, rng.randint(1, 8))
        lines = doc.splitlines(keepends=True)
        for width in (40, 90):
            blocks = [
                (s.kind, render_block("".join(lines[s.start : s.end]), width, palette))
                for s in block_spans(doc)
            ]
            assert _segments(join_blocks(blocks)) == _segments(
                render_markdown(doc, width, palette)
            ), doc


def _long_reply() -> str:
    """Past every threshold: a paragraph and a code fence too long to re-render per frame,
    blocks too long to render on the loop, and many small blocks."""
    rng = random.Random(3)
    long_para = " ".join(f"word{i} *em{i}*" for i in range(OPEN_CHARS["text"] // 8)) + "\n"
    long_code = (
        "```python\n" + "x = compute(1, 2)  # note\n" * (SYNC_CHARS["fence"] // 10) + "```\n"
    )
    parts = [_doc(rng, 500), long_para, "\n", long_code, "\n", _doc(rng, 500)]
    return "".join(parts)


async def _stream(view: StreamView, pilot: object, chunks: list[str], per_frame: int) -> None:
    for i in range(0, len(chunks), per_frame):
        view.append("".join(chunks[i : i + per_frame]))
        await pilot.pause()  # type: ignore[attr-defined]


async def _until_final(view: StreamView, pilot: Any) -> None:
    await until(pilot, lambda: view.rendered_final, what="the reply to finish rendering")


async def test_finished_20k_chunk_reply_equals_the_one_shot_render() -> None:
    async with _mounted_view() as (app, pilot, view):
        text = _long_reply()
        rng, chunks, pos = random.Random(5), [], 0
        while pos < len(text):  # chunks of 1-2 characters, as tokens stream
            step = rng.randint(1, 2)
            chunks.append(text[pos : pos + step])
            pos += step
        assert len(chunks) >= 20_000
        await _stream(view, pilot, chunks, 500)
        view.finish()
        await _until_final(view, pilot)
        assert view.text == text
        one_shot = render_markdown(text, view._width, view.palette)
        assert _segments(view._fixed) == _segments(one_shot)


async def test_open_block_is_markdown_mid_stream_and_closed_blocks_render_once() -> None:
    async with _mounted_view() as (app, pilot, view):
        view.append("# Plan\n\nThe **first** step")
        await pilot.pause()
        tail = "".join(s.text for s in view._tail)
        assert "first" in tail and "**" not in tail  # the open paragraph is formatted
        bold = [seg for s in view._tail for seg in s if seg.text == "first"]
        assert bold and isinstance(bold[0].style, Style) and bold[0].style.bold
        assert view.block_renders == 0  # a block closes once a later one has a full line
        view.append(" and the second.\n")
        await pilot.pause()
        assert view.block_renders == 1  # the heading
        heading = view._fixed[0]
        for piece in ["\n- one\n", "- two\n", "\nDone."]:
            view.append(piece)
            await pilot.pause()
        assert view._fixed[0] is heading  # a closed block is never rendered again
        assert view.block_renders == 2  # heading, paragraph; the list is still the last block
        assert view.open_renders >= 4
        view.finish()
        await _until_final(view, pilot)
        assert view.block_renders == 4
        assert _segments(view._fixed) == _segments(
            render_markdown(view.text, view._width, view.palette)
        )


async def test_side_panes_redraw_at_a_bounded_rate_while_a_turn_runs() -> None:
    """A burst of tool events redraws each pane once, not once per event; the event that
    ends the turn redraws at once, so the panes at rest show every event."""
    from milk_tui.model import events as ev
    from milk_tui.tui.widgets.escalation_pane import EscalationPane
    from milk_tui.tui.widgets.status_line import StatusLine

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        status = app.main_screen.query_one(StatusLine)
        esc = app.main_screen.query_one(EscalationPane)
        sid = app.facade.session_id
        status.handle_bus_event(ev.TurnStarted(session_id=sid, prompt="go", turn_index=1))
        esc.handle_bus_event(ev.EscalationStarted(session_id=sid, agent_name="big", mode="first"))
        before = (status.paced.redraws, esc.paced.redraws)
        for i in range(50):  # one burst, with no loop iteration in between
            call = ev.ToolCall(
                session_id=sid, slot="escalation", call_id=f"c{i}", name="read", arguments="{}"
            )
            status.handle_bus_event(call)
            esc.handle_bus_event(call)
        assert status.paced.redraws - before[0] <= 1
        assert esc.paced.redraws - before[1] <= 1
        assert "tool calls: 50" not in str(esc.body.render())
        done = ev.TurnCompleted(session_id=sid, slot="escalation", agent_name="big", text="ok")
        status.handle_bus_event(done)
        esc.handle_bus_event(done)
        assert "tool calls: 50" in str(esc.body.render())
        assert "⚙50" in status.plain


async def test_a_big_frame_is_consumed_in_slices_and_finishes_as_the_one_shot_render() -> None:
    async with _mounted_view() as (app, pilot, view):
        text = _long_reply()
        frames = [text[i : i + 6_000] for i in range(0, len(text), 6_000)]
        if len(frames[-1]) <= PIECE_CHARS:
            last = frames.pop()
            frames[-1] += last
        assert len(frames) > 3
        view.append(frames[0])
        assert view._tail or view._queue.blocks  # the first piece is shown at once
        assert 0 < view.backlog < len(frames[0])  # the rest waits for the worker
        for frame in frames[1:-1]:
            view.append(frame)
            await pilot.pause()
        view.append(frames[-1])
        view.finish()
        assert view.backlog and view.rendering  # finished, its backlog still consumed
        await _until_final(view, pilot)
        assert view.backlog == 0 and view.text == text
        one_shot = render_markdown(text, view._width, view.palette)
        assert _segments(view._fixed) == _segments(one_shot)


async def test_blocks_rendered_from_the_queue_are_shown_without_another_frame() -> None:
    async with _mounted_view() as (app, pilot, view):
        fences = "".join(f"```python\nx = {i}\n```\n\n" for i in range(30))
        assert len(fences) < PIECE_CHARS  # one ordinary frame
        view.append(fences + "The stream then pauses")
        assert view._queue.pending  # more blocks closed than the frame renders
        await until(pilot, lambda: not view._queue.pending)
        for _ in range(5):
            await pilot.pause(0.01)
        assert "```" not in app.export_screenshot()  # no plain placeholder left on screen
