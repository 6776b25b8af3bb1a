"""Token usage as reports show it: one row per (model, role) with turns, tokens, cost and the
cache-hit percentage, and points of a usage-over-time series.

Token counts are additive, as the agents report them (agents/openai_sse.py
``normalise_usage``): ``prompt`` is the input NOT served from a cache, ``cache_read`` the
input read from the provider's prompt cache, ``cache_creation`` the input written to it.
The whole input of a call is their sum.

Cache hit = cache_read / (prompt + cache_read + cache_creation): the share of all input
tokens served from the cache.  Tokens written to the cache count in the denominator only
(they were sent and billed as input, and were not a hit) — the same formula as a Go milk
status line's ``cache:N%`` (docs/adr/0026-usage-log.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from milk_tui.model.session import TokenUsage

UsageScope = Literal["session", "folder", "all"]
SCOPES: tuple[UsageScope, ...] = ("session", "folder", "all")
SCOPE_TITLES: dict[UsageScope, str] = {
    "session": "This session",
    "folder": "This folder",
    "all": "All time",
}


def cache_hit_pct(prompt: int, cache_read: int, cache_creation: int) -> float | None:
    """Percent of the input served from the cache; None when nothing was sent."""
    total = prompt + cache_read + cache_creation
    return None if total <= 0 else 100.0 * cache_read / total


@dataclass
class UsageRow(TokenUsage):
    """One (model, role) over a scope: the token counts and the turns that made them."""

    turns: int = 0
    """Turns (and classifier calls) that used this model in this role."""

    @property
    def input_tokens(self) -> int:
        """The whole input: what the status line's ↑ shows (cached tokens included)."""
        return self.prompt + self.cache_read + self.cache_creation

    @property
    def cache_hit_pct(self) -> float | None:
        return cache_hit_pct(self.prompt, self.cache_read, self.cache_creation)

    def plus(self, other: TokenUsage, turns: int = 0) -> UsageRow:
        out = UsageRow(self.model, self.role, turns=self.turns + turns)
        for u in (self, other):
            out.add(u.prompt, u.completion, u.cache_read, u.cache_creation, u.cost_usd)
        return out

    def as_json(self, scope: UsageScope) -> dict[str, object]:
        """The ``milk-tui usage --json`` row (docs/interfaces.md)."""
        pct = self.cache_hit_pct
        return {
            "scope": scope,
            "model": self.model,
            "role": self.role,
            "turns": self.turns,
            "prompt_tokens": self.prompt,
            "input_tokens": self.input_tokens,
            "completion_tokens": self.completion,
            "cached_tokens": self.cache_read,
            "cache_creation_tokens": self.cache_creation,
            "cache_hit_pct": None if pct is None else round(pct, 1),
            "cost_usd": round(self.cost_usd, 6),
        }


def total_row(rows: list[UsageRow]) -> UsageRow:
    """All rows added up (model and role ``*``)."""
    out = UsageRow("*", "*")
    for r in rows:
        out = out.plus(r, r.turns)
    return out


@dataclass(frozen=True, slots=True)
class UsagePoint:
    """One bucket of a usage series: a day, or one turn of a session."""

    label: str
    """``2026-01-01`` for a day, ``3`` for the third turn of a session."""
    tokens: int
    """Input (fresh + cached + written to cache) and output tokens."""
    cost_usd: float
