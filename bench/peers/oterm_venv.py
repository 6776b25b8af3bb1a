"""oterm's own virtual environment, made on demand outside the repo.

oterm brings pydantic-ai, the openai/anthropic/... SDKs and its own pins: it never goes
into milk-tui's venv.  The venv lives in ``~/.cache/milk-bench/oterm-venv`` (or
``$MILK_BENCH_OTERM_VENV``), made with ``uv`` when it is on the PATH, else ``python -m
venv`` + pip, and holds exactly ``OTERM_VERSION``.  ``ensure()`` returns its interpreter,
or None and one line saying why (no network to PyPI, a failed build...).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

OTERM_VERSION = "0.26.1"
VENV = Path(os.environ.get("MILK_BENCH_OTERM_VENV", "~/.cache/milk-bench/oterm-venv")).expanduser()
INSTALL_TIMEOUT_S = 600


def _installed(python: Path) -> str:
    """The oterm version importable by ``python``, or ""."""
    if not python.exists():
        return ""
    done = subprocess.run(
        [str(python), "-c", "from importlib.metadata import version; print(version('oterm'))"],
        capture_output=True,
        text=True,
    )
    return done.stdout.strip() if done.returncode == 0 else ""


def _run(cmd: list[str]) -> str:
    """Runs an install step; returns "" or the last line of what it said on failure."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{cmd[0]}: {e}"
    if done.returncode == 0:
        return ""
    said = (done.stderr or done.stdout).strip().splitlines()
    return said[-1] if said else f"{cmd[0]} exited {done.returncode}"


def ensure() -> tuple[Path | None, str]:
    """(oterm's interpreter, "") once the venv holds ``OTERM_VERSION``; else (None, why)."""
    python = VENV / "bin" / "python"
    if _installed(python) == OTERM_VERSION:
        return python, ""
    uv = shutil.which("uv")
    if uv:
        steps = [
            [uv, "venv", "--quiet", "--python", sys.executable, str(VENV)],
            [uv, "pip", "install", "--quiet", "--python", str(python), f"oterm=={OTERM_VERSION}"],
        ]
    else:
        steps = [
            [sys.executable, "-m", "venv", str(VENV)],
            [str(python), "-m", "pip", "install", "--quiet", f"oterm=={OTERM_VERSION}"],
        ]
    if python.exists():
        steps = steps[1:]
    for step in steps:
        failed = _run(step)
        if failed:
            return None, f"could not install oterm {OTERM_VERSION} into {VENV}: {failed}"
    if _installed(python) != OTERM_VERSION:
        return None, f"oterm {OTERM_VERSION} is not importable from {python}"
    return python, ""
