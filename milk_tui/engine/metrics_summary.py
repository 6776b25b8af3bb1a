"""The local metrics file summed up per agent: what ``/metrics`` and ``milk-tui metrics`` show."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from milk_tui.engine.metrics_log import metrics_path
from milk_tui.engine.signal_file import read_records


@dataclass(frozen=True)
class AgentFigures:
    agent: str
    turns: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    p50_seconds: float = 0.0
    p95_seconds: float = 0.0
    p50_first_token: float | None = None
    """Median seconds to the first streamed token (None: no turn streamed one)."""
    tool_calls: int = 0
    tool_errors: int = 0


@dataclass(frozen=True)
class TurnPoint:
    ts: float
    agent: str
    seconds: float
    cost_usd: float


@dataclass(frozen=True)
class MetricsReport:
    path: str
    agents: list[AgentFigures] = field(default_factory=list)
    points: list[TurnPoint] = field(default_factory=list)
    """Every turn, oldest first (the plot)."""
    tools: dict[str, int] = field(default_factory=dict)
    """Calls per tool name, most used first."""

    @property
    def turns(self) -> int:
        return sum(a.turns for a in self.agents)

    def as_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "turns": self.turns,
            "agents": [asdict(a) for a in self.agents],
            "tools": self.tools,
        }


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank percentile (``p`` in 0..100) of ``values``; 0.0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def _num(rec: dict[str, Any], key: str) -> float:
    v = rec.get(key)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0.0


def summarize(records: list[dict[str, Any]], path: str = "") -> MetricsReport:
    by_agent: dict[str, list[dict[str, Any]]] = {}
    points: list[TurnPoint] = []
    tools: dict[str, int] = {}
    for rec in records:
        if rec.get("kind") != "turn":
            continue
        agent = str(rec.get("agent") or "?")
        by_agent.setdefault(agent, []).append(rec)
        points.append(
            TurnPoint(_num(rec, "ts"), agent, _num(rec, "seconds"), _num(rec, "cost_usd"))
        )
        for t in rec.get("tools") or []:
            if isinstance(t, dict):
                name = str(t.get("name") or "?")
                tools[name] = tools.get(name, 0) + 1
    agents = []
    for name, recs in by_agent.items():
        seconds = [_num(r, "seconds") for r in recs]
        firsts = [
            _num(r, "first_token_seconds") for r in recs if r.get("first_token_seconds") is not None
        ]
        calls = [t for r in recs for t in (r.get("tools") or []) if isinstance(t, dict)]
        agents.append(
            AgentFigures(
                agent=name,
                turns=len(recs),
                errors=sum(1 for r in recs if r.get("ok") is False),
                prompt_tokens=int(sum(_num(r, "prompt_tokens") for r in recs)),
                completion_tokens=int(sum(_num(r, "completion_tokens") for r in recs)),
                cost_usd=sum(_num(r, "cost_usd") for r in recs),
                p50_seconds=percentile(seconds, 50),
                p95_seconds=percentile(seconds, 95),
                p50_first_token=percentile(firsts, 50) if firsts else None,
                tool_calls=len(calls),
                tool_errors=sum(1 for t in calls if t.get("ok") is False),
            )
        )
    agents.sort(key=lambda a: -a.turns)
    points.sort(key=lambda p: p.ts)
    return MetricsReport(path, agents, points, dict(sorted(tools.items(), key=lambda kv: -kv[1])))


def read_report(data: Path) -> MetricsReport:
    path = metrics_path(data)
    return summarize(read_records(path), str(path))


__all__ = ["AgentFigures", "MetricsReport", "TurnPoint", "percentile", "read_report", "summarize"]
