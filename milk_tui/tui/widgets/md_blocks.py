"""A reply cut into its top-level Markdown blocks, each rendered on its own.

Rich's ``Markdown`` renders a document as its top-level blocks one after the other, with
one blank line before a block when the previous block asks for it (``new_line`` on Rich's
element classes) — and a container block (list, quote, table) brings that blank line
itself.  So the render of a whole reply equals the renders of its blocks joined by
``join_blocks``; ``tests/tui/test_markdown_streaming.py`` checks this against the
one-shot render.  That is what lets a streaming reply render each finished block once.

Where the blocks are comes from markdown-it's block parser (the parser Rich uses), run on
complete lines only: CommonMark parses lines in one pass and never reopens a block, so
every block but the last one of the parsed text is final.  Link reference definitions and
raw HTML blocks reach across blocks; ``needs_whole_render`` says when a reply has them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from textual.strip import Strip

from milk_tui.tui.widgets import highlight_later
from milk_tui.tui.widgets.md_render import markdown_lines

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
from milk_tui.tui.widgets.palette import Palette


@cache
def _blocks() -> MarkdownIt:
    """Rich's parser configuration (rich/markdown.py), block rules only: where blocks start
    and end does not depend on inline markup, and skipping the inline pass makes it cheap.
    Made at its first use: the Markdown stack loads with the first reply (markdown_later.py)."""
    from markdown_it import MarkdownIt

    from milk_tui.tui.widgets import linkify_on_use  # noqa: F401  # before any parser is made

    return MarkdownIt().enable("strikethrough").enable("table").disable("inline")


_REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:", re.MULTILINE)

BLANK = Strip([], 0)
"""The blank line between blocks, segment for segment what Rich's render has there."""

FENCE_KINDS = frozenset({"fence", "code_block"})
"""Syntax-highlighted blocks: several times costlier to render per character."""


@dataclass(frozen=True, slots=True)
class BlockSpan:
    start: int
    """First line (0-based) of the block in the parsed text."""
    end: int
    """One past its last line."""
    kind: str
    """markdown-it's opening token type: ``paragraph_open``, ``fence``, ``table_open``…"""


def block_spans(text: str) -> list[BlockSpan]:
    """The top-level blocks of ``text``, in order."""
    out: list[BlockSpan] = []
    for tok in _blocks().parse(text):
        if tok.level == 0 and tok.nesting >= 0 and tok.map is not None:
            out.append(BlockSpan(tok.map[0], tok.map[1], tok.type))
    return out


def needs_whole_render(text: str, kinds: set[str]) -> bool:
    """True when block-by-block rendering may differ from the one-shot render: a link
    reference definition (resolved across the whole document) or a raw HTML block."""
    return "html_block" in kinds or _REF_DEF.search(text) is not None


def brings_blank(kind: str) -> bool:
    """Whether Rich puts a blank line after a block of this kind before the next one."""
    from rich.markdown import Markdown, UnknownElement

    return bool(Markdown.elements.get(kind, UnknownElement).new_line)


@lru_cache(maxsize=1024)
def render_block(text: str, width: int, palette: Palette) -> tuple[Strip, ...]:
    """One block's lines exactly as Rich renders it alone (leading blank kept: for a
    container it is the blank the whole document has before it).  Cached; thread-safe."""
    return tuple(markdown_lines(text, width, palette))


highlight_later.on_stop(render_block.cache_clear)  # it may hold plain code blocks


def is_blank(strip: Strip) -> bool:
    return not strip.cell_length


def separator(prev_kind: str | None, lines: tuple[Strip, ...] | list[Strip]) -> bool:
    """Whether a blank line goes before a block rendered as ``lines`` after ``prev_kind``."""
    if prev_kind is None:
        return False
    return brings_blank(prev_kind) and not (lines and is_blank(lines[0]))


def join_blocks(rendered: list[tuple[str, tuple[Strip, ...]]]) -> list[Strip]:
    """The one-shot render of a document, from its blocks' renders: ``(kind, lines)``."""
    out: list[Strip] = []
    prev: str | None = None
    for kind, lines in rendered:
        if separator(prev, lines):
            out.append(BLANK)
        out.extend(lines)
        prev = kind
    return trim_blank_edges(out)


def trim_blank_edges(strips: list[Strip]) -> list[Strip]:
    end = len(strips)
    while end and is_blank(strips[end - 1]):
        end -= 1
    start = 0
    while start < end and is_blank(strips[start]):
        start += 1
    return strips[start:end]


def place(prev: str | None, lines: tuple[Strip, ...] | list[Strip], out: list[Strip]) -> None:
    """Append a block's lines after a block of kind ``prev`` as the one-shot render has
    them: the first block without leading blanks, later ones with Rich's separator."""
    if prev is None:
        start = 0
        while start < len(lines) and is_blank(lines[start]):
            start += 1
        out.extend(lines[start:])
        return
    if separator(prev, lines):
        out.append(BLANK)
    out.extend(lines)


LARGE_REGION_CHARS = 16_000
"""Past this size an open region is parsed again only when a blank line arrives."""
_STARTS = frozenset("#>-*+=_`~|<:0123456789 \t")
"""First characters of a line that may start a new top-level block after a paragraph; a
line starting with anything else continues it (CommonMark's paragraph continuation)."""


def may_close(open_kind: str, new_lines: str, region_len: int) -> bool:
    """Cheap test: can the complete lines that just arrived have ended the open block?"""
    lines = new_lines.split("\n")[:-1]
    if open_kind == "fence":  # an open fence ends only at a closing fence line
        return any(ln.lstrip(" ").startswith(("```", "~~~")) for ln in lines)
    if region_len > LARGE_REGION_CHARS:
        return any(not ln.strip() for ln in lines)
    if open_kind not in ("paragraph_open", "bullet_list_open", "ordered_list_open"):
        return True  # after a heading, rule, table or quote any line may start a block
    return any(not ln.strip() or ln[0] in _STARTS for ln in lines)


def fence_closed(region: str, start: int, end: int) -> bool:
    """Whether the fence on lines ``start:end`` of ``region`` has its closing line."""
    lines = region.splitlines()[start:end]
    if len(lines) < 2:
        return False
    opener, closer = lines[0].strip(), lines[-1].strip()
    return bool(closer) and closer[0] == opener[0] and closer.strip(closer[0]) == ""
