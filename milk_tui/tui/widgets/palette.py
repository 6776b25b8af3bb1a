"""The few colours replies need, derived from the active Textual theme.

Its own module so that choosing a theme before the first frame does not import Rich's
Markdown machinery.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.theme import Theme


@dataclass(frozen=True)
class Palette:
    """The few colours replies need, taken from the active Textual theme."""

    foreground: str = "#e0e0e0"
    primary: str = "#e0b040"
    accent: str = "#5fafd7"
    muted: str = "#808080"
    code_bg: str = "#262626"
    dark: bool = True
    colorization: str = "balanced"
    """The ``colorization`` mode replies are drawn in (``md_render.markdown_lines``)."""

    @property
    def code_theme(self) -> str:
        return "monokai" if self.dark else "friendly"

    def rich_theme(self) -> Theme:
        return Theme(
            {
                "markdown.h1": f"bold {self.primary}",
                "markdown.h1.border": self.primary,
                "markdown.h2": f"bold underline {self.primary}",
                "markdown.h3": f"bold {self.primary}",
                "markdown.h4": f"italic {self.primary}",
                "markdown.code": f"bold {self.accent} on {self.code_bg}",
                "markdown.code_block": f"on {self.code_bg}",
                "markdown.block_quote": self.muted,
                "markdown.item.bullet": f"bold {self.primary}",
                "markdown.item.number": f"bold {self.primary}",
                "markdown.link": self.accent,
                "markdown.link_url": f"underline {self.accent}",
                "markdown.hr": self.muted,
            },
            inherit=True,
        )
