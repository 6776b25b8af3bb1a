"""Where a run's results go: by default a timestamped folder under the data dir's ``eval/``;
``latest`` is the newest folder there holding a run."""

from __future__ import annotations

import time
from pathlib import Path

from milk_tui.eval.load import resolve
from milk_tui.eval.load import results_root as eval_root


def new_results_dir(given: str | None) -> Path:
    """``given`` (created when missing), else a new timestamped folder."""
    if given and given != "latest":
        path = Path(given).expanduser()
    else:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path, n = eval_root() / stamp, 1
        while path.exists():
            n += 1
            path = eval_root() / f"{stamp}-{n}"
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def find_results_dir(given: str | None) -> Path:
    """An existing run: ``given``, or the newest under ``eval/`` for None/``latest``
    (``load.resolve``).  ``ValueError`` with one line when there is none."""
    return resolve(given)
