"""A real-peer test whose peer is missing skips with its reason shown locally, and FAILS
the run under CI (tests/peer_missing.py, the report hook in tests/conftest.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PROBE = """
import pytest
from peer_missing import needs_peer, skip_peer_missing


def test_a_fixture_finds_no_cli():
    skip_peer_missing("the real Claude CLI")


@needs_peer(False, "tmux")
def test_marked_for_tmux():
    pass


@pytest.mark.skipif(True, reason="root reads any file")
def test_skipped_for_another_reason():
    pass
"""


def _run(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_probe.py").write_text(PROBE)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = str(REPO / "tests")
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "conftest", "-p", "no:randomly",
         "-p", "no:cacheprovider", "test_probe.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_locally_each_skip_prints_its_reason(tmp_path: Path) -> None:
    r = _run(tmp_path, None)
    assert r.returncode == 0, r.stdout
    assert "3 skipped" in r.stdout
    assert "peer missing: the real Claude CLI" in r.stdout
    assert "peer missing: tmux" in r.stdout
    assert "root reads any file" in r.stdout


@pytest.mark.parametrize("ci", ["true", "1"])
def test_under_ci_a_missing_peer_fails_and_other_skips_stay_skips(tmp_path: Path, ci: str) -> None:
    r = _run(tmp_path, ci)
    assert r.returncode == 1, r.stdout
    # A skip in the test's body fails it; one in set-up (a mark, a fixture) is an error.
    assert re.search(r"1 failed, 1 skipped, 1 error", r.stdout), r.stdout
    assert "SKIPPED [1] test_probe.py:15: root reads any file" in r.stdout
    assert "a missing peer fails the run" in r.stdout


def test_ci_false_is_not_ci(tmp_path: Path) -> None:
    assert _run(tmp_path, "false").returncode == 0


def test_every_skip_in_the_suite_goes_through_the_one_helper() -> None:
    """A raw ``pytest.skip``/``skipif``/``importorskip`` would skip silently under CI when
    its peer is missing; only the root-reads-everything skips are not about a peer."""
    tests = Path(__file__).resolve().parents[1]
    raw = re.compile(r"pytest\.(skip\(|importorskip\(|mark\.skipif\()")
    offenders = [
        f"{path.relative_to(tests)}:{n}: {line.strip()}"
        for path in sorted(tests.rglob("*.py"))
        if path.name not in ("peer_missing.py", Path(__file__).name)
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if raw.search(line) and "geteuid" not in line
    ]
    assert not offenders, "skip through tests/peer_missing.py:\n" + "\n".join(offenders)
