"""The README's set-up as a user runs it: ``scripts/run`` installs the app without the test
tools and says how to type ``milk-tui``; the app's dependencies are only what it runs with;
the docs link nothing outside the repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _fake_checkout(tmp_path: Path) -> Path:
    """A copy of the scripts and pyproject with a stand-in venv whose pip only logs."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "scripts", repo / "scripts")
    shutil.copy(ROOT / "pyproject.toml", repo / "pyproject.toml")
    bin_ = repo / ".venv" / "bin"
    bin_.mkdir(parents=True)
    for name, body in (
        ("python", "exit 0"),
        ("pip", f'echo "$*" >> "{repo}/pip.log"'),
        ("milk-tui", 'echo "milk-tui $*"'),
    ):
        (bin_ / name).write_text(f"#!/usr/bin/env bash\n{body}\n")
        (bin_ / name).chmod(0o755)
    return repo


def test_scripts_run_installs_the_app_only_and_says_how_to_reach_milk_tui(tmp_path: Path):
    repo = _fake_checkout(tmp_path)
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    r = subprocess.run([repo / "scripts" / "run", "--version"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "milk-tui --version"
    installs = [line for line in (repo / "pip.log").read_text().splitlines() if "-e" in line]
    assert installs and all(line.split()[-1] == "." for line in installs), installs
    assert f'export PATH="{repo}/.venv/bin:$PATH"' in r.stderr
    again = subprocess.run([repo / "scripts" / "run"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=60)  # fmt: skip
    assert again.returncode == 0 and again.stderr == ""  # set up once; quiet afterwards
    assert len((repo / "pip.log").read_text().splitlines()) == 2


def test_the_app_depends_on_nothing_only_the_tests_use():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def names(reqs: list[str]) -> set[str]:
        return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in reqs}

    deps = names(project["dependencies"])
    extras = project["optional-dependencies"]
    assert "textual" in deps and "pytest" in names(extras["test"])
    assert deps.isdisjoint((names(extras["test"]) | names(extras["bedrock"])) - {"httpx"})


def test_docs_link_nothing_outside_the_repository():
    docs = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for doc in docs:
        for target in re.findall(r"\]\(([^)#\s]+)", doc.read_text()):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            path = (doc.parent / target).resolve()
            assert path.is_relative_to(ROOT), f"{doc.name} links {target} outside the repository"
            assert path.exists(), f"{doc.name} links {target}, which is not in the repository"
