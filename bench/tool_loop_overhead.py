"""Tool-loop overhead: one round with one tool call, against calling the tool function directly.

The loop side runs ``agents.tool_loop.ToolLoop`` over an in-process round backend (no
network: every round asks for one ``read_file`` call with a new offset, so the loop's
repeated-call stop never fires), through the real tool box (JSON parsing, schema
validation, the worker thread, the per-tool timeout, the result events).  The baseline
calls ``files.read_file`` directly on the same file.  Budget:
loop overhead ≤ 2 ms per call.

    python bench/tool_loop_overhead.py           # 2,000 rounds
    python bench/tool_loop_overhead.py --quick   # 200 rounds
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from milk_tui.agents import base as ab  # noqa: E402
from milk_tui.agents.round_backend import Chunk, RoundResult, ToolCall, ToolRun  # noqa: E402
from milk_tui.agents.tool_loop import LoopSettings, ToolLoop  # noqa: E402
from milk_tui.agents.tools import BuiltinToolBox, CompositeToolBox, files  # noqa: E402
from milk_tui.agents.tools.paths import Workspace  # noqa: E402

BUDGET_MS = 2.0


class _Parser:
    done = False

    def __init__(self, result: RoundResult) -> None:
        self._result = result

    def feed(self, item: Any) -> list[Chunk]:
        return []

    def close(self) -> list[Chunk]:
        return []

    def result(self) -> RoundResult:
        return self._result


async def _nothing() -> AsyncIterator[Any]:
    return
    yield


class Rounds:
    """Round i asks for read_file at offset i; the last round answers."""

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        self.i = 0

    def start_turn(self, request: ab.AgentRequest, tools: list[ab.ToolSpec]) -> list[str]:
        return []

    @asynccontextmanager
    async def open_round(
        self, conv: list[str]
    ) -> AsyncIterator[tuple[AsyncIterator[Any], _Parser]]:
        self.i += 1
        if self.i > self.rounds:
            result = RoundResult(text="done")
        else:
            args = json.dumps({"path": "f.txt", "offset": self.i % 50, "limit": 1 + self.i})
            result = RoundResult(tool_calls=[ToolCall(f"c{self.i}", "read_file", args)])
        yield _nothing(), _Parser(result)

    def add_assistant_turn(self, conv: list[str], result: RoundResult) -> None:
        conv.append("assistant")

    def add_tool_results(self, conv: list[str], runs: list[ToolRun]) -> None:
        conv.extend(r.outcome.content[:10] for r in runs)

    def error(self, message: str) -> ab.AgentError:
        return ab.AgentError(message)


async def loop_per_round(root: Path, rounds: int) -> float:
    box = CompositeToolBox(
        [BuiltinToolBox(root, on_need=lambda g: None, on_record_memory=None, allow_escalate=False)]
    )
    request = ab.AgentRequest(slot="primary", prompt="p", cwd=str(root), tools=box)
    settings = LoopSettings(max_iterations=rounds + 1, tool_timeout=120.0)
    t0 = time.perf_counter()
    n = 0
    async for ev in ToolLoop(Rounds(rounds), settings).run(request):
        n += isinstance(ev, ab.ToolResultEvent)
    assert n == rounds, n
    return (time.perf_counter() - t0) / rounds


def direct_per_call(root: Path, rounds: int) -> float:
    ws = Workspace(root.resolve())
    t0 = time.perf_counter()
    for i in range(1, rounds + 1):
        files.read_file(ws, "f.txt", i % 50, 1 + i)
    return (time.perf_counter() - t0) / rounds


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    rounds = 200 if ap.parse_args().quick else 2000
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "f.txt").write_text("".join(f"line {i}\n" for i in range(2000)))
        loops, directs = [], []
        for _ in range(5):
            directs.append(direct_per_call(root, rounds))
            loops.append(asyncio.run(loop_per_round(root, rounds)))
    direct = statistics.median(directs) * 1000
    loop = statistics.median(loops) * 1000
    overhead = loop - direct
    print(f"rounds per run            {rounds} (5 runs, medians)")
    print(f"direct read_file call     {direct:8.3f} ms")
    print(f"tool loop, one call/round {loop:8.3f} ms")
    print(f"loop overhead per call    {overhead:8.3f} ms (budget {BUDGET_MS:.1f} ms)")
    print(f"ratio loop / direct       {loop / direct:8.2f}x")
    print("PASS" if overhead <= BUDGET_MS else "OVER BUDGET")


if __name__ == "__main__":
    main()
