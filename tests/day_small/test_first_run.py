"""The first ``scripts/run`` of a fresh copy of the repository, as a new user runs it: a
real venv and a real ``pip install -e .`` (~30 s, so once, as a ``real_peer`` test).  No
setuptools banner ("Editable installation … Please be careful with folders …") on the way
to the app; pip's own lines about this machine's package index are not ours to judge."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.real_peer
def test_the_first_scripts_run_prints_no_setuptools_banner(tmp_path: Path) -> None:
    repo = tmp_path / "milk-tui"
    repo.mkdir()
    for name in ("scripts", "milk_tui", "themes"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, repo / name)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONWARNINGS")}
    r = subprocess.run([repo / "scripts" / "run", "--version"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=600)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout == "milk-tui 0.1.0\n"
    ours = [line for line in r.stderr.splitlines() if not line.startswith("WARNING: Location")]
    assert ours == [
        f"setup: milk-tui is installed in {repo}/.venv/bin; to type `milk-tui` as in the "
        f'README, run: export PATH="{repo}/.venv/bin:$PATH" (or use scripts/run ARGS)'
    ], r.stderr
