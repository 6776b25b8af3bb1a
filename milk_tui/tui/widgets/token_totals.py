"""Token and cost totals, as the status line and the escalation pane add them up and show them."""

from __future__ import annotations

from dataclasses import dataclass

from milk_tui.model.session import TokenUsage


def fmt_tokens(n: int) -> str:
    return str(n) if n < 1000 else f"{n / 1000:.1f}k"


@dataclass
class TokenTotals(TokenUsage):
    """A role's (or a pane's) tokens and cost, whatever the model."""

    model: str = ""
    role: str = ""

    def is_empty(self) -> bool:
        return not (self.prompt or self.completion or self.cost_usd or self.cache_read)

    def arrows(self) -> str:
        """``↑prompt↓completion``, thousands as ``1.2k``; the prompt counts the whole input
        (cached and written to the cache too)."""
        sent = self.prompt + self.cache_read + self.cache_creation
        return f"↑{fmt_tokens(sent)}↓{fmt_tokens(self.completion)}"

    def cache(self) -> str:
        """``cache 87%`` (share of the input read from the prompt cache, model/usage.py);
        "" while the provider reported no cache activity."""
        if not (self.cache_read or self.cache_creation):
            return ""
        from milk_tui.model.usage import cache_hit_pct  # not loaded by a start's first frame

        pct = cache_hit_pct(self.prompt, self.cache_read, self.cache_creation)
        return f"cache {pct or 0:.0f}%"
