"""Every benchmark script still imports: they share helpers and are not run by the suite."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
SHARED = {"tui_harness", "frame_trace"}
"""Helper modules the benchmarks import; they have no ``main`` of their own."""


@pytest.mark.parametrize("name", sorted(p.stem for p in BENCH.glob("*.py")))
def test_benchmark_imports(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    sys.modules.pop(name, None)
    module = importlib.import_module(name)
    if name not in SHARED:
        assert callable(getattr(module, "main", None)), f"bench/{name}.py has no main()"


def test_the_first_token_prompt_goes_to_the_primary(monkeypatch: pytest.MonkeyPatch) -> None:
    """bench/first_token.py times the primary's server: a prompt the rules escalate would
    never reach it, and the benchmark would wait for that request for ever."""
    from milk_tui.config.settings import MilkConfig
    from milk_tui.engine.router import RouteDecision, Router

    monkeypatch.syspath_prepend(str(BENCH))
    first_token = importlib.import_module("first_token")
    from milk_tui.engine.router_learning import REASKED_SIMILARITY, similarity

    router = Router(MilkConfig(), "/tmp")
    asked = [first_token.prompt() for _ in range(2 * len(first_token.PROMPTS))]
    for prompt in asked:
        decided = router.apply_rules(prompt)
        assert isinstance(decided, RouteDecision) and decided.target == "primary", decided
    # each sample a new question: one like the last is a re-ask, which teaches the router
    for before, after in zip(asked, asked[1:], strict=False):
        assert similarity(before, after) < REASKED_SIMILARITY, (before, after)
