"""Turning reply text into ready-made terminal lines (``Strip``s).

Why not Textual's ``Markdown`` widget for replies: it is one widget per block and
``Markdown.append`` re-parses the whole open block on every write, so a long paragraph
costs O(n²) to stream (budgets: docs/ARCHITECTURE.md, "Performance budgets").  Here finished blocks are rendered once with Rich's
Markdown into strips, and the open block is word-wrapped incrementally as plain text
(only the text after the last stable line is ever looked at again).

Rendering uses a private Rich ``Console`` per call so that it is safe in a worker thread
(the final full render of a very long reply runs off the event loop).
"""

from __future__ import annotations

import contextlib
import io
import re
import threading
from collections.abc import Callable
from functools import lru_cache

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from milk_tui.tui.widgets import highlight_later, kept_renders
from milk_tui.tui.widgets.palette import Palette

_WORD = re.compile(r"\S+\s*|\s+")


def _console(width: int, palette: Palette) -> Console:
    return Console(
        file=io.StringIO(),
        width=max(width, 1),
        force_terminal=True,
        color_system="truecolor",
        theme=palette.rich_theme(),
        legacy_windows=False,
        highlight=False,
        emoji=False,
        markup=False,
    )


@lru_cache(maxsize=512)
def render_markdown(text: str, width: int, palette: Palette) -> list[Strip]:
    """Full Markdown render of ``text`` at ``width`` cells.

    Cached: remounting a block (windowing, session reload, a resize back) reuses its lines;
    callers must not mutate the returned list.
    """
    if not text.strip():
        return []
    strips = kept_renders.kept(text, width, palette)
    if strips is None:
        plain_before = highlight_later.plain_shown
        strips = markdown_lines(text, width, palette)
        while strips and not strips[-1].cell_length:
            strips.pop()
        start = 0
        while start < len(strips) and not strips[start].cell_length:
            start += 1  # Rich opens lists with a blank line; blocks are spaced by the caller
        strips = strips[start:]
        if highlight_later.plain_shown != plain_before:
            return strips  # its code may be plain for now: not one for the next start
    kept_renders.note(text, width, palette, strips)
    return strips


highlight_later.on_stop(render_markdown.cache_clear)  # it may hold plain code blocks


def markdown_lines(text: str, width: int, palette: Palette) -> list[Strip]:
    """``text`` as lines in the palette's ``colorization`` mode, blank edges kept (uncached):
    off — the raw text, word-wrapped, no colour (for copying, and for slow terminals);
    fenced — raw text with only fenced code blocks highlighted; balanced — Rich's Markdown
    (headings, bold, inline code, lists, quotes, rules, tables, highlighted code); full —
    the same with links as terminal hyperlinks instead of their URL in brackets."""
    mode = palette.colorization
    if mode == "off":
        return _raw_lines(text, width)
    if mode == "fenced":
        out: list[Strip] = []
        for i, part in enumerate(_FENCE.split(text)):
            if i % 2:  # a fenced block (the split's captured group)
                out.extend(_rich_lines(part, width, palette, links=False))
            elif part.strip("\n"):
                out.extend(_raw_lines(part.strip("\n"), width))
        return out
    return _rich_lines(text, width, palette, links=mode == "full")


_FENCE = re.compile(r"^(```[^\n]*\n.*?^```[ \t]*$|```[^\n]*\n.*\Z)", re.M | re.S)
"""A fenced code block (an unclosed one runs to the end: a reply still streaming)."""


def _raw_lines(text: str, width: int) -> list[Strip]:
    return [plain_strip(text[a:b]) for a, b in wrap_offsets(text.rstrip("\n"), width)]


def _rich_lines(text: str, width: int, palette: Palette, *, links: bool) -> list[Strip]:
    from milk_tui.tui.widgets.markdown_later import MarkdownLater  # the Markdown stack

    console = _console(width, palette)
    md = MarkdownLater(text, code_theme=palette.code_theme, hyperlinks=links)
    lines = console.render_lines(md, console.options.update_width(max(width, 1)), pad=False)
    return [Strip(line).simplify() for line in lines]


WARM_LANGUAGES = ("python", "bash", "json", "javascript", "diff")
"""Fenced-code languages whose Pygments lexer is loaded before the first reply: loading one
(module import, regex compilation) costs 5–25 ms, once, and otherwise the first code block
of a streaming reply pays it on the event loop."""
_warm_started = False


def warm_highlighter(palette: Palette, then: Callable[[], None] | None = None) -> None:
    """In a daemon thread: load the lexers of the code blocks shown plain so far
    (``highlight_later``) and call ``then`` (from the thread); the first time in a process,
    also the lexers of ``WARM_LANGUAGES`` and the code theme."""
    global _warm_started
    first, _warm_started = not _warm_started, True
    if not first and then is None:
        return

    def warm() -> None:
        from pygments.lexers import get_lexer_by_name

        try:
            for lang in highlight_later.waiting_languages():
                # A lexer that cannot load is shown plain by Rich too: nothing to wait for.
                with contextlib.suppress(Exception):
                    get_lexer_by_name(lang)  # the first instance compiles the class's rules
        finally:
            if then is not None:  # always: plain code must not stay plain for the session
                then()
        for lang in WARM_LANGUAGES if first else ():
            markdown_lines(f"```{lang}\nx = 1\n```\n", 40, palette)

    threading.Thread(target=warm, name="warm-highlighter", daemon=True).start()


def wrap_offsets(text: str, width: int) -> list[tuple[int, int]]:
    """Greedy word wrap: (start, end) offsets of each visual line of ``text``.

    Lines never include the newline.  Greedy wrapping is what makes the streaming path
    cheap: appending text can only change the last visual line, so every earlier line
    is final.
    """
    width = max(width, 1)
    out: list[tuple[int, int]] = []
    ascii_only = text.isascii()
    measure = len if ascii_only else cell_len
    pos = 0
    for logical in text.split("\n"):
        start, end = pos, pos + len(logical)
        line_start, line_w = start, 0
        for m in _WORD.finditer(logical):
            word = m.group()
            w_start = start + m.start()
            core = word.rstrip()
            core_w = measure(core)
            if line_w and line_w + core_w > width:
                out.append((line_start, w_start))
                line_start, line_w = w_start, 0
            while core_w > width:  # a word longer than a line is folded
                cut = _fold_at(core, width, ascii_only)
                out.append((w_start, w_start + cut))
                w_start += cut
                word, core = word[cut:], core[cut:]
                core_w = measure(core)
                line_start = w_start
            line_w += measure(word)
        out.append((line_start, end))
        pos = end + 1
    return out


def _fold_at(word: str, width: int, ascii_only: bool) -> int:
    if ascii_only:
        return width
    total = 0
    for i, ch in enumerate(word):
        total += cell_len(ch)
        if total > width:
            return max(i, 1)
    return len(word)


def plain_strip(text: str, style: Style | None = None) -> Strip:
    text = text.rstrip("\n")
    if not text:
        return Strip.blank(0)
    return Strip([Segment(text, style)], cell_len(text))
