"""Run the ``milk`` command line as a user does: a subprocess of this interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

MILK_COMMAND = [sys.executable, "-m", "milk_tui.cli"]


def run_milk(
    *args: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    **kw: Any,
) -> subprocess.CompletedProcess[str]:
    """``milk *args`` in ``cwd``; ``env`` defaults to a copy of this process's environment."""
    return subprocess.run(
        [*MILK_COMMAND, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=os.environ.copy() if env is None else env,
        **kw,
    )
