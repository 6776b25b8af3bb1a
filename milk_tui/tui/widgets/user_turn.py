"""The user's prompt, labelled with the agent it went to (and why, once routed), with a chip
for each file sent along."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from milk_tui.tui.widgets.attachment_chips import chips_text


class UserTurn(Static):
    DEFAULT_CSS = """
    UserTurn { height: auto; padding: 0 1; margin: 0 0 1 0; border-left: outer $primary; background: $boost; }
    """

    def __init__(
        self, prompt: str, agent_name: str = "", reason: str = "", label: str = ""
    ) -> None:
        super().__init__(markup=False)
        self.prompt = prompt
        self.chips: list[str] = []
        """Labels of the files sent with the prompt (tui/widgets/attachment_chips.py)."""
        self.agent_name = agent_name
        self.reason = reason
        self.label = label
        self._refresh_text()

    def with_chips(self, chips: list[str]) -> UserTurn:
        self.chips = chips
        self._refresh_text()
        return self

    def set_route(self, agent_name: str, reason: str, label: str) -> None:
        self.agent_name, self.reason, self.label = agent_name, reason, label
        self._refresh_text()

    def _refresh_text(self) -> None:
        t = Text("❯ ", style="bold")
        t.append(self.prompt)
        if self.chips:
            t.append("\n")
            t.append_text(chips_text(self.chips))
        if self.agent_name:
            t.append("\n→ ", style="dim")
            t.append(self.agent_name, style="bold dim")
            if self.label:
                t.append(f" ({self.label})", style="dim")
            if self.reason:
                t.append(f" · {self.reason}", style="dim italic")
        self.update(t)
