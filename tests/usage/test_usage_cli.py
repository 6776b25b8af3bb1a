"""``milk-tui usage`` as a user runs it: real ``-p`` turns against the fake OpenAI server
(which reports cached prompt tokens), the router's classifier call counted, the JSON rows,
the text table, bad input, and a database written before the usage log existed."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, usage

ROW_KEYS = {"model", "role", "turns", "prompt_tokens", "completion_tokens", "cached_tokens",
            "cost_usd"}  # fmt: skip
INCONCLUSIVE = "describe" + " qqq" * 32  # an escalate verb, no difficulty signal
"""Scores between the thresholds: the router asks the classifier (engine/router.py)."""
FIXTURE = Path(__file__).parents[1] / "fixtures" / "db-before-usage-log" / "milk.db"


def _milk(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_milk(*args, cwd=cwd)


def _rows(cwd: Path, *args: str) -> list[dict[str, object]]:
    r = _milk(cwd, "usage", "--json", *args)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert all(ROW_KEYS <= set(row) for row in rows)
    return rows


def _by(rows: list[dict[str, object]], scope: str, role: str) -> dict[str, object]:
    (row,) = [r for r in rows if r["scope"] == scope and r["role"] == role]
    return row


@pytest.fixture
def served(milk_home: Path):  # noqa: ANN201
    with FakeOpenAIServer() as srv:
        (milk_home / "config.toml").write_text(
            'agent = "llama"\nescalation_agent = "demo"\n[[agents]]\nname = "llama"\n'
            f'provider = "local"\nurl = "{srv.url}"\nmodel = "qwen"\n'
            '[[agents]]\nname = "demo"\nprovider = "demo"\n'
        )
        yield srv


def test_turns_with_cached_tokens_and_the_classifier(
    served: FakeOpenAIServer, tmp_path: Path
) -> None:
    served.enqueue(FakeReply(text=["primary"], usage=usage(60, 1)))  # the classifier's call
    served.enqueue(FakeReply(text=["first answer"], usage=usage(1000, 20, cached=800)))
    r = _milk(tmp_path, "-p", INCONCLUSIVE)
    assert r.returncode == 0 and "first answer" in r.stdout, r.stderr
    served.enqueue(FakeReply(text=["second answer"], usage=usage(1200, 30, cached=1000)))
    assert _milk(tmp_path, "-p", "hi").returncode == 0

    rows = _rows(tmp_path)
    assert {r["scope"] for r in rows} == {"session", "folder", "all"}
    for scope in ("session", "folder", "all"):
        p = _by(rows, scope, "primary")
        # OpenAI prompt totals include the cached part; the rows keep them apart.
        assert (p["model"], p["turns"], p["prompt_tokens"], p["cached_tokens"]) == (
            "qwen", 2, 400, 1800
        )  # fmt: skip
        assert p["completion_tokens"] == 50
        assert p["cache_hit_pct"] == pytest.approx(81.8)
        c = _by(rows, scope, "classifier")
        assert (c["model"], c["turns"], c["prompt_tokens"], c["completion_tokens"]) == (
            "qwen", 1, 60, 1
        )  # fmt: skip

    text = _milk(tmp_path, "usage", "--folder")
    assert text.returncode == 0
    lines = text.stdout.splitlines()
    assert lines[0] == f"This folder ({tmp_path})"
    assert "HIT" in lines[1] and "82%" in next(ln for ln in lines if " primary " in ln)
    assert lines[-1].split()[:2] == ["total", "3"]


def test_scopes_follow_the_folder(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    assert _milk(a, "--demo", "-p", "hello").returncode == 0
    assert _milk(b, "--demo", "-p", "hello again").returncode == 0
    assert {r["scope"] for r in _rows(a, "--folder")} == {"folder"}
    assert sum(int(str(r["turns"])) for r in _rows(a, "--folder")) == 1
    assert sum(int(str(r["turns"])) for r in _rows(a, "--all")) == 2
    sid = json.loads(_milk(b, "sessions", "list", "--json").stdout)[0]["id"]
    assert sum(int(str(r["turns"])) for r in _rows(a, "--session", sid, "--any-folder")) == 1


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    r = _milk(tmp_path, "usage", "--session", "nope")
    assert r.returncode == 1 and r.stderr.strip() == "milk-tui: no session with id or name 'nope'"
    r = _milk(tmp_path, "usage", "--folder", "--all")
    assert r.returncode == 2 and "not allowed with argument" in r.stderr
    empty = _milk(tmp_path, "usage")
    assert empty.returncode == 0 and "no usage recorded" in empty.stdout
    assert _rows(tmp_path) == []


def test_a_model_name_with_controls_prints_inert(served: FakeOpenAIServer, tmp_path: Path) -> None:
    served.enqueue(FakeReply(text=["ok"], usage=usage(10, 1)))
    assert _milk(tmp_path, "-p", "hi").returncode == 0
    db = sqlite3.connect(Path(os.environ["MILK_HOME"]) / "milk.db")
    with db:
        db.execute("UPDATE usage_log SET model = 'evil\x1b]52;c;eA==\x07'")
    out = _milk(tmp_path, "usage", "--all").stdout
    assert "\x1b" not in out and "\x07" not in out and "evil␛]52" in out
    assert "\\u001b" in _milk(tmp_path, "usage", "--all", "--json").stdout


def test_a_database_from_before_the_log(milk_home: Path, tmp_path: Path) -> None:
    """``tests/fixtures/db-before-usage-log/milk.db`` was written by the release before
    migration 004 (demo agents): folder alpha had a primary turn and a hand-off, folder beta
    a primary turn and an escalated one.  Its sessions count in every scope, once."""
    shutil.copy(FIXTURE, milk_home / "milk.db")
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    db = sqlite3.connect(milk_home / "milk.db")
    with db:
        for name in ("alpha", "beta"):
            db.execute(
                "UPDATE sessions SET cwd = ? WHERE cwd = ?",
                (str(tmp_path / name), f"/tmp/fx/{name}"),
            )
    db.close()

    rows = _rows(alpha, "--all")
    assert {(r["model"], r["role"], r["turns"], r["prompt_tokens"]) for r in rows} == {
        ("demo-small", "primary", 3, 146),
        ("demo-large", "escalation", 2, 104),
    }
    assert sum(float(str(r["cost_usd"])) for r in rows) == pytest.approx(0.000994 + 0.000738)
    folder = _rows(alpha, "--folder")
    assert {(r["role"], r["turns"]) for r in folder} == {("primary", 2), ("escalation", 1)}

    # A new turn in the old session: the old part and the logged part add up, once.
    assert _milk(alpha, "--demo", "-p", "hello").returncode == 0
    after = _rows(alpha, "--folder")
    p = _by(after, "folder", "primary")
    assert p["turns"] == 3 and int(str(p["prompt_tokens"])) > 103
    e = _by(after, "folder", "escalation")
    assert (e["turns"], e["prompt_tokens"]) == (1, 61)
