"""markdown-it's ``LinkifyIt`` is built only by a parser that uses it
(tui/widgets/linkify_on_use.py): milk's renders of replies make none, and a parser with
linkify on still finds links."""

from __future__ import annotations

import linkify_it  # type: ignore[import-untyped]  # ships no type information
import pytest
from markdown_it import MarkdownIt

from milk_tui.tui.widgets import linkify_on_use  # noqa: F401  # installs it, as milk's do
from milk_tui.tui.widgets.md_render import render_markdown
from milk_tui.tui.widgets.palette import Palette


def _count_builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    built = [0]
    real_init = linkify_it.LinkifyIt.__init__

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        built[0] += 1
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(linkify_it.LinkifyIt, "__init__", counted)
    return built


def test_rendering_replies_builds_no_linkify(monkeypatch: pytest.MonkeyPatch) -> None:
    built = _count_builds(monkeypatch)
    for i in range(3):
        lines = render_markdown(f"# reply {i}\n\nsee https://example.org and `code`", 60, Palette())
        assert any("example.org" in line.text for line in lines)
    assert built == [0]


def test_a_parser_with_linkify_on_still_links(monkeypatch: pytest.MonkeyPatch) -> None:
    built = _count_builds(monkeypatch)
    tokens = MarkdownIt("gfm-like").parse("see https://example.org now")
    children = tokens[1].children or []
    assert [t.type for t in children] == ["text", "link_open", "text", "link_close", "text"]
    assert children[1].attrs["href"] == "https://example.org"
    assert built == [1]  # built at its first use
