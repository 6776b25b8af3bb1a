"""Rich's Markdown with code blocks that may wait for their lexer (``highlight_later``).

Its own module so that the Markdown stack (markdown-it, Rich's Markdown and Syntax,
Pygments: ~20 ms and ~1 MiB) loads with the first reply rendered, not with the main screen:
a start that shows no reply paints without it (``md_render.warm_markdown`` loads it after
that frame, off the event loop).
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Markdown

from milk_tui.tui.widgets import (
    highlight_later,
    linkify_on_use,  # noqa: F401  # Rich's parser per render
)


class _CodeLater(CodeBlock):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        deferred = highlight_later._deferred
        if deferred is not None and self.lexer_name != "text":
            if not highlight_later.lexer_loaded(self.lexer_name):
                deferred.add(self.lexer_name)
                highlight_later.plain_shown += 1
                self.lexer_name = "text"
        yield from super().__rich_console__(console, options)


class MarkdownLater(Markdown):
    """Rich's Markdown, with code blocks that may wait for their lexer (see the module)."""

    elements = {**Markdown.elements, "fence": _CodeLater, "code_block": _CodeLater}
