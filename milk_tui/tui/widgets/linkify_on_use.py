"""markdown-it's ``LinkifyIt``, built the first time a parser uses it.

markdown-it-py makes a ``linkify_it.LinkifyIt`` for every parser it constructs, linkify on
or off (``MarkdownIt.__init__``): ~200 KiB of pattern strings and objects held in reference
cycles, and ~0.2 ms.  Rich's ``Markdown`` constructs a parser for every render, and milk
renders each reply block with it, so each render left ~200 KiB for the cyclic GC — which is
off during start-up and then freezes what is alive (tui/app.py): the renders of the first
frame were never freed.  No parser milk makes turns linkify on; one that does (Textual's
``Markdown`` widget, "gfm-like") gets the real ``LinkifyIt`` the first time it asks it
anything.  Installed when this module is imported (the Markdown modules import it).
"""

from __future__ import annotations

from typing import Any

import linkify_it  # type: ignore[import-untyped]  # ships no type information
import markdown_it.main


class LinkifyOnUse:
    """Stands for a parser's ``LinkifyIt`` until one of its attributes is asked for."""

    __slots__ = ("_real",)

    def __init__(self) -> None:
        self._real: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._real is None:
            self._real = linkify_it.LinkifyIt()
        return getattr(self._real, name)


class _Module:
    """What ``markdown_it.main`` calls ``linkify_it``: all it reads of it is ``LinkifyIt``."""

    LinkifyIt = LinkifyOnUse


if markdown_it.main.linkify_it is linkify_it:  # not when linkify-it-py is missing
    markdown_it.main.linkify_it = _Module  # a duck-typed stand-in (see the module)
