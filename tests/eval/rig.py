"""Running ``milk-tui eval`` as a user does (a subprocess) and reading what it wrote."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from milk_tui.eval import records as rec

EVAL = [sys.executable, "-m", "milk_tui.cli", "eval"]


def config_text(primary_url: str, claude_bin: str = "", judge_url: str = "") -> str:
    """A primary "llama" on a fake OpenAI server; the escalation agent the real Claude CLI
    (or the demo agent when no ``claude_bin``); a "judge" agent on another fake server."""
    esc = (f'[[agents]]\nname = "claude"\nprovider = "claude-cli"\nbin = "{claude_bin}"\n'
           if claude_bin else '[[agents]]\nname = "demo"\nprovider = "demo"\n')  # fmt: skip
    text = (
        f'agent = "llama"\nescalation_agent = "{"claude" if claude_bin else "demo"}"\n'
        f'[[agents]]\nname = "llama"\nprovider = "local"\nurl = "{primary_url}"\nmodel = "m"\n{esc}'
    )
    if judge_url:
        text += (
            f'[[agents]]\nname = "judge"\nprovider = "local"\nurl = "{judge_url}"\nmodel = "j"\n'
        )
    return text


def run_eval(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*EVAL, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=os.environ.copy() if env is None else env,
    )


def turns(results: Path) -> dict[tuple[str, str, int], rec.TurnRecord]:
    problems: list[str] = []
    out = {t.key(): t for t in rec.read_jsonl(results / rec.TURNS_FILE, rec.TurnRecord, problems)}
    assert problems == []
    return out


def scores(results: Path) -> list[rec.RubricScore]:
    problems: list[str] = []
    out = list(rec.read_jsonl(results / rec.SCORES_FILE, rec.RubricScore, problems))
    assert problems == []
    return out


def checks(t: rec.TurnRecord) -> list[tuple[str, str, bool]]:
    return [(c.kind, c.expected, c.ok) for c in t.expected]


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder


def env_with(**extra: Any) -> dict[str, str]:
    return {**os.environ, **{k: str(v) for k, v in extra.items()}}
