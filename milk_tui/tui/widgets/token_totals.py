"""Token and cost totals, as the status line and the escalation pane add them up and show them."""

from __future__ import annotations

from dataclasses import dataclass


def fmt_tokens(n: int) -> str:
    return str(n) if n < 1000 else f"{n / 1000:.1f}k"


@dataclass
class TokenTotals:
    prompt: int = 0
    completion: int = 0
    cost_usd: float = 0.0

    def add(self, prompt: int, completion: int, cost_usd: float) -> None:
        self.prompt += prompt
        self.completion += completion
        self.cost_usd += cost_usd

    def is_empty(self) -> bool:
        return not (self.prompt or self.completion or self.cost_usd)

    def arrows(self) -> str:
        """``↑prompt↓completion``, thousands as ``1.2k``."""
        return f"↑{fmt_tokens(self.prompt)}↓{fmt_tokens(self.completion)}"
