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
