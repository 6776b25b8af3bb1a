"""Cold start with a big config vs an empty one (target: within 10 %).

Each sample is a fresh interpreter (``python bench/config_start.py --child KIND``) that runs
milk-tui headless as ``run_app`` starts it and exits once the main screen is painted with
the prompt focused — the first frame that depends on the config (the startup screen before
it does not read the config at all; the core loads in a thread after it).  The parent times
the whole process, alternating the kinds in one run:

The demo agents answer in all three (``--demo``), so only the config read differs — not a
probe for a local server, which an empty config would otherwise start.

* ``empty`` — an empty ``config.toml`` in ``MILK_HOME``;
* ``toml40`` — a ``config.toml`` in ``MILK_HOME`` with 40 agents (38 HTTP entries with
  limits, sampling keys and headers, 2 demo agents chosen as primary and escalation), some
  unknown and unsupported keys (so the warnings are built too);
* ``go40`` — no ``MILK_HOME``: ``HOME`` holds a Go install whose ``~/.milk/config.json`` is
  ``tests/config/go_config.json`` grown to the same 40 agents, found by the last step of the
  resolution order and read as is.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
GO_FIXTURE = REPO / "tests" / "config" / "go_config.json"
CWD = "/tmp/milk-bench-config"
KINDS = ("empty", "toml40", "go40")


def child() -> None:
    os.chdir(CWD)
    from milk_tui.tui.app import MilkApp

    def factory():  # type: ignore[no-untyped-def]
        from milk_tui.facade.opening import open_application

        return open_application(demo=True, cooperative=True, skip_broken_config=True)

    class Timed(MilkApp):
        def _show_main(self) -> None:
            super()._show_main()
            self.call_after_refresh(self._exit_when_focused)

        def _exit_when_focused(self) -> None:
            from milk_tui.tui.widgets.prompt_input import PromptInput

            if isinstance(self.focused, PromptInput):
                self.exit()
            else:
                self.call_after_refresh(self._exit_when_focused)

    Timed(runtime_factory=factory).run(headless=True, size=(120, 40))


def forty_agents() -> list[dict[str, Any]]:
    agents: list[dict[str, Any]] = [
        {"name": "demo-a", "provider": "demo"},
        {"name": "demo-b", "provider": "demo"},
    ]
    for i in range(38):
        agents.append(
            {
                "name": f"agent-{i}",
                "provider": ("local", "openrouter", "bedrock")[i % 3],
                "url": f"http://127.0.0.1:{9000 + i}",
                "model": f"model-{i}",
                "token_cmd": "echo key",
                "headers": {"X-Title": "milk"},
                "temperature": 0.2,
                "max_tokens": 1024,
                "context_window_tokens": 32768,
                "limits": {"max_tool_iterations": 30, "tool_timeout_secs": 180},
                "system_prompt_tier": "full" if i % 5 == 0 else "standard",
                "mcp_servers": None,
            }
        )
    return agents


def toml_config() -> str:
    lines = ['agent = "demo-a"', 'escalation_agent = "demo-b"', 'colour = "red"', ""]
    for a in forty_agents():
        lines.append("[[agents]]")
        for k, v in a.items():
            if v is None or isinstance(v, dict):
                continue
            lines.append(f"{k} = {json.dumps(v)}")
        if "limits" in a:
            lines.append("[agents.limits]")
            lines += [f"{k} = {v}" for k, v in a["limits"].items()]
        lines.append("")
    return "\n".join(lines)


def make_homes(root: Path) -> dict[str, dict[str, str]]:
    """One environment per kind, each with its own folders (databases created once, by the
    warm-up sample)."""
    envs = {}
    base = {k: v for k, v in os.environ.items() if not k.startswith("MILK_")}
    base["MILK_DEMO_PACE"] = "0"
    base["PYTHONPATH"] = str(REPO)
    for kind in KINDS:
        home = root / kind
        (home / "milk-home").mkdir(parents=True)
        env = {**base, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
        env["XDG_DATA_HOME"] = str(home / ".local" / "share")
        if kind == "go40":
            go = json.loads(GO_FIXTURE.read_text())
            go["agents"] = forty_agents() + go["agents"]
            go.update(agent="demo-a", escalation_agent="demo-b")
            (home / ".milk").mkdir(mode=0o700)
            (home / ".milk" / "config.json").write_text(json.dumps(go, indent=2))
        else:
            env["MILK_HOME"] = str(home / "milk-home")
            text = "" if kind == "empty" else toml_config()
            (home / "milk-home" / "config.toml").write_text(text)
        envs[kind] = env
    return envs


def load_times(envs: dict[str, dict[str, str]], rounds: int) -> dict[str, float]:
    """Median ms of ``load_config()`` alone per kind, in this process (warm imports): the
    part of the start the config decides, without the noise of a whole interpreter."""
    from milk_tui.config.load import load_config

    out = {}
    saved = dict(os.environ)
    try:
        for kind, env in envs.items():
            os.environ.clear()
            os.environ.update(env)
            load_config()
            t = []
            for _ in range(rounds):
                t0 = time.perf_counter()
                load_config()
                t.append(time.perf_counter() - t0)
            out[kind] = statistics.median(t) * 1000
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return out


def sample(kind: str, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, __file__, "--child"], check=True, env=env, stdout=subprocess.DEVNULL
    )
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    if a.child:
        child()
        return
    os.makedirs(CWD, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="milk-config-bench-") as tmp:
        envs = make_homes(Path(tmp))
        for kind in KINDS:  # warm the page cache and .pyc files; create each database
            sample(kind, envs[kind])
        times: dict[str, list[float]] = {k: [] for k in KINDS}
        for _ in range(a.rounds):
            for kind in KINDS:
                times[kind].append(sample(kind, envs[kind]))
        loads = load_times(envs, 50)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(
        f"cold start to the main screen (fresh interpreter, headless), {a.rounds} rounds, medians"
    )
    for kind in KINDS:
        ratio = med[kind] / med["empty"]
        print(
            f"  {kind:7s}: {med[kind] * 1000:6.0f} ms (min {min(times[kind]) * 1000:.0f})"
            f" = {ratio:.3f}× empty (min/min {min(times[kind]) / min(times['empty']):.3f}×;"
            " target ≤ 1.10)"
        )
    print(
        "load_config() alone, in process, 50 calls, medians: "
        + ", ".join(f"{k} {v:.2f} ms" for k, v in loads.items())
    )


if __name__ == "__main__":
    main()
