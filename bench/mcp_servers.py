"""MCP servers (not ``bench/mcp.py``: that name would shadow the SDK package): they must not cost the first frame, and a call through the tool loop must
cost little more than the SDK's own call.

1. Time to the main screen (session loaded, agents built: the servers start right after)
   with three configured stdio servers — one of them two seconds slow to start — against
   none, each sample a fresh interpreter, alternating.  Target: the same within noise.
2. One MCP tool call through ``agents.tool_loop.ToolLoop`` and the real tool boxes (name
   lookup, JSON parsing, schema validation, the per-tool timeout, result mapping) against
   ``ClientSession.call_tool`` on the same live session.  Target: ≤ 5 ms overhead.

    python bench/mcp_servers.py            # 7 start-up rounds, 300 calls × 5
    python bench/mcp_servers.py --quick    # 3 rounds, 100 calls × 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tool_loop_overhead import _nothing, _Parser  # noqa: E402

from milk_tui.agents import base as ab  # noqa: E402
from milk_tui.agents.round_backend import RoundResult, ToolCall, ToolRun  # noqa: E402
from milk_tui.agents.tool_loop import LoopSettings, ToolLoop  # noqa: E402
from milk_tui.agents.tools import CompositeToolBox  # noqa: E402

BUDGET_MS = 5.0


# ----- 1. first frame ---------------------------------------------------------------------


def child(t0: float) -> None:
    from milk_tui.tui.app import MilkApp

    def factory():  # type: ignore[no-untyped-def]
        from milk_tui.facade.opening import open_application

        return open_application(demo=True, new=True, cooperative=True)

    class Timed(MilkApp):
        def _show_main(self) -> None:
            super()._show_main()

            def done() -> None:
                print(f"{time.time() - t0:.6f}", flush=True)
                self.exit()

            self.call_after_refresh(done)

    Timed(runtime_factory=factory).run(headless=True, size=(120, 40))


def write_configs(home: Path) -> tuple[Path, Path]:
    from milk_tui.testing import mcp_peers as peers

    servers = [peers.own("a"), peers.own("b"), peers.own("slow", "sleepy")]
    with_mcp, without = home / "with.json", home / "without.json"
    with_mcp.write_text(
        json.dumps({"mcp_servers": [s.model_dump(exclude_defaults=True) for s in servers]})
    )
    without.write_text("{}")
    return with_mcp, without


def sample(config: Path, env: dict[str, str]) -> float:
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(time.time())],
        check=True, env={**env, "MILK_CONFIG": str(config)}, capture_output=True, text=True,
    ).stdout  # fmt: skip
    return float(out.strip().splitlines()[-1])


def first_frame(rounds: int) -> None:
    home = Path(tempfile.mkdtemp(prefix="milk-mcp-bench-"))
    env = {**os.environ, "MILK_HOME": str(home), "MILK_DEMO_PACE": "0"}
    env.setdefault("PYTHONPATH", str(Path(__file__).resolve().parents[1]))
    with_mcp, without = write_configs(home)
    sample(without, env), sample(with_mcp, env)  # warm caches
    none, three = [], []
    for _ in range(rounds):
        none.append(sample(without, env))
        three.append(sample(with_mcp, env))
    n, t = statistics.median(none), statistics.median(three)
    print(f"time to the main screen (fresh interpreter, headless 120×40), {rounds} rounds")
    print(
        f"  no MCP servers                   : median {n * 1000:6.0f} ms  min {min(none) * 1000:6.0f} ms"
    )
    print(
        f"  3 servers (one 2 s slow to start): median {t * 1000:6.0f} ms  min {min(three) * 1000:6.0f} ms"
    )
    print(f"  ratio (median) {t / n:.2f}×  (target: 1.0 within noise)")


# ----- 2. call overhead -------------------------------------------------------------------


class Calls:
    """Each round asks for one ``add`` call with new arguments; the last round answers."""

    def __init__(self, rounds: int, name: str) -> None:
        self.rounds, self.name, self.i = rounds, name, 0

    def start_turn(self, request: ab.AgentRequest, tools: list[ab.ToolSpec]) -> list[str]:
        return []

    @asynccontextmanager
    async def open_round(self, conv: list[str]) -> AsyncIterator[tuple[AsyncIterator[Any], Any]]:
        self.i += 1
        if self.i > self.rounds:
            result = RoundResult(text="done")
        else:
            args = json.dumps({"a": self.i, "b": 1})
            result = RoundResult(tool_calls=[ToolCall(f"c{self.i}", self.name, args)])
        yield _nothing(), _Parser(result)

    def add_assistant_turn(self, conv: list[str], result: RoundResult) -> None:
        conv.append("assistant")

    def add_tool_results(self, conv: list[str], runs: list[ToolRun]) -> None:
        conv.extend(r.outcome.content for r in runs)

    def error(self, message: str) -> ab.AgentError:
        return ab.AgentError(message)


async def call_overhead(calls: int, runs: int) -> None:
    from milk_tui.agents.mcp.manager import McpManager
    from milk_tui.testing import mcp_peers as peers

    with tempfile.TemporaryDirectory() as tmp:
        manager = McpManager([peers.own("bench")], log_dir=Path(tmp), cwd=tmp)
        await manager.wait_settled(60)
        conn = manager.get("bench")
        assert conn is not None and conn.state == "ready", manager.statuses()
        box = CompositeToolBox([manager.toolbox()])
        request = ab.AgentRequest(slot="primary", prompt="p", cwd=tmp, tools=box)
        settings = LoopSettings(max_iterations=calls + 1, tool_timeout=120.0)
        raws, loops = [], []
        try:
            for _ in range(runs):
                t0 = time.perf_counter()
                for i in range(calls):
                    await conn._session.call_tool("add", {"a": i, "b": 1})
                raws.append((time.perf_counter() - t0) / calls)
                t0 = time.perf_counter()
                async for _ev in ToolLoop(Calls(calls, "mcp__bench__add"), settings).run(request):
                    pass
                loops.append((time.perf_counter() - t0) / calls)
        finally:
            await manager.aclose()
    raw, loop = statistics.median(raws) * 1000, statistics.median(loops) * 1000
    print(f"MCP tool call ({calls} calls × {runs} runs, medians)")
    print(f"  raw ClientSession.call_tool   {raw:8.3f} ms")
    print(f"  through the tool loop         {loop:8.3f} ms")
    print(f"  overhead per call             {loop - raw:8.3f} ms (budget {BUDGET_MS:.1f} ms)")
    print("  PASS" if loop - raw <= BUDGET_MS else "  OVER BUDGET")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    if a.child:
        child(float(a.child))
        return
    first_frame(3 if a.quick else 7)
    asyncio.run(call_overhead(100 if a.quick else 300, 3 if a.quick else 5))


if __name__ == "__main__":
    main()
