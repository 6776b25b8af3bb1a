"""The issue's targets on the built-in suite's labelled turns: escalate at least 90 % of
the turns labelled for escalation while keeping at least 60 % of those labelled for the
primary — by the rules alone, and with the REAL SmolLM2-135M primary on llama.cpp giving
its verdict (bench/routing_agreement.py does the routing and prints the tables)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from servers.peers import smollm2_gguf

from milk_tui.config.settings import MilkConfig
from milk_tui.engine.router import CHOICES, CLASSIFIER_PROMPT, RouteFlags, Router
from milk_tui.testing.llama_server import LlamaServer

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    sys.path.insert(0, str(BENCH))
    try:
        import routing_agreement

        yield routing_agreement
    finally:
        sys.path.remove(str(BENCH))


async def test_targets_by_the_rules_alone(bench: ModuleType, tmp_path: Path) -> None:
    turns = bench.labelled_turns()
    assert len(turns) >= 30
    routed = await bench.route_all(
        turns, lambda cwd: Router(MilkConfig(), cwd), RouteFlags, tmp_path
    )
    f = bench.figures(routed)
    assert f.escalation_recall >= 0.9 and f.primary_keep >= 0.6, bench.report("rules", routed)


@pytest.mark.real_peer
@pytest.mark.timeout(600)  # a hang guard: 36 verdicts of a real model on two shared cores
async def test_targets_with_the_real_small_primary(bench: ModuleType, tmp_path: Path) -> None:
    log = tmp_path / "llama.log"
    with LlamaServer(smollm2_gguf(), n_ctx=2048, log=log) as srv:
        make, flags = bench.after_factory(srv.url)
        routed = await bench.route_all(bench.labelled_turns(), make, flags, tmp_path / "r")
        # llama.cpp honours the grammar and gives log-probs: a constrained verdict with a
        # probability
        v = await bench.smol_agent(srv.url).verdict(
            CLASSIFIER_PROMPT.format(prompt="What is 2+2?"), CHOICES
        )
        assert v.constrained and v.answer in CHOICES and not v.notice
        assert v.probability is not None and 0.0 < v.probability <= 1.0
    f = bench.figures(routed)
    table = bench.report("after, SmolLM2 verdict", routed)
    assert f.escalation_recall >= 0.9 and f.primary_keep >= 0.6, table
    # the model was asked (an inconclusive prompt reached it), not only the rules
    assert any(r.rule == "classifier" for r in routed), table
