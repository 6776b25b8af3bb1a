"""``milk-tui eval report`` as a user runs it (a real subprocess): the JSON object key by
key, the 80-column table, Markdown, the newest run by default, and hostile turn text."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from eval_report.known import write_known
from milk_tui.eval.records import TURNS_FILE, TurnRecord, append
from milk_tui.testing.cli_run import run_milk

HOSTILE = "fix it\x1b]52;c;cHduZWQ=\x07\x1b[2J\r\x9b31m\u202eevil"


def _milk(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_milk("eval", "report", *args, cwd=tmp_path)


def _runs(milk_home: Path) -> Path:
    return milk_home / "eval"


def test_json_object_key_by_key(tmp_path: Path, milk_home: Path) -> None:
    folder = write_known(tmp_path / "run")
    r = _milk(tmp_path, "--results", str(folder), "--json")
    assert r.returncode == 0, r.stderr
    obj = json.loads(r.stdout)
    assert set(obj) == {"results", "run", "modes", "premise", "routing", "turns", "problems"}
    assert list(obj["modes"]) == ["routed", "primary", "escalation"]
    routed = obj["modes"]["routed"]
    assert set(routed) == {
        "turns", "failed", "checked", "passed", "pass_rate", "judged", "quality", "cost_usd",
        "prompt_tokens", "completion_tokens", "cached_tokens", "seconds",
        "cache_hit_after_turn1",
    }  # fmt: skip
    assert routed["pass_rate"] == pytest.approx(1 / 3)
    assert routed["quality"] == pytest.approx(0.625)
    assert routed["cost_usd"] == pytest.approx(0.11)
    assert (routed["prompt_tokens"], routed["completion_tokens"], routed["cached_tokens"]) == (
        190, 19, 150)  # fmt: skip
    assert routed["seconds"] == pytest.approx(3.5)
    assert routed["cache_hit_after_turn1"] == pytest.approx(0.75)
    premise = obj["premise"]
    assert set(premise) == {"primary_share", "cost_ratio", "quality_ratio", "why"}
    assert premise["primary_share"] == pytest.approx(2 / 3)
    assert premise["cost_ratio"] == pytest.approx(0.25)
    assert premise["quality_ratio"] == pytest.approx(0.625 / 0.75)
    assert premise["why"]["cost_ratio"] == "over 3 turns"
    routing = obj["routing"]
    assert set(routing) == {"labelled", "agreement", "escalation_recall",
                            "escalation_precision", "confusion", "wrong"}  # fmt: skip
    assert routing["agreement"] == pytest.approx(2 / 3)
    assert routing["escalation_recall"] == 0.5 and routing["escalation_precision"] == 1.0
    assert routing["confusion"] == {"primary": {"primary": 1, "escalation": 0},
                                    "escalation": {"primary": 1, "escalation": 1}}  # fmt: skip
    assert routing["wrong"] == [{"scenario": "b", "turn": 0, "prompt": "b prompt 0",
                                 "label": "escalation", "slot": "primary",
                                 "route_reason": "short prompt"}]  # fmt: skip
    assert len(obj["turns"]) == 9
    first = obj["turns"][0]
    assert set(first) == {
        "scenario", "mode", "turn", "prompt", "agent", "slot", "route_rule", "route_reason",
        "handed_off", "downgraded", "label", "prompt_tokens", "completion_tokens",
        "cached_tokens", "cost_usd", "roles", "seconds", "tool_calls", "files_changed",
        "expected", "passed", "score", "scores", "error",
    }  # fmt: skip
    assert (first["scenario"], first["mode"], first["turn"]) == ("a", "routed", 0)
    assert (first["agent"], first["slot"], first["label"]) == ("claude", "escalation", "escalation")
    assert first["route_reason"] == "design" and first["score"] == pytest.approx(0.75)
    assert first["expected"] == [{"kind": "contains", "expected": "pong", "ok": True, "detail": ""}]
    assert first["passed"] is True
    assert {s["criterion"]: s["score"] for s in first["scores"]} == {
        "correct": 1.0, "style": 0.0, "tests": None}  # fmt: skip
    failed = next(t for t in obj["turns"] if t["error"])
    assert failed["scenario"] == "c" and failed["passed"] is False and failed["slot"] == ""
    assert obj["problems"] == []


def test_table_fits_80_columns_and_markdown(tmp_path: Path, milk_home: Path) -> None:
    folder = write_known(tmp_path / "run")
    r = _milk(tmp_path, "--results", str(folder))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert "  primary share                  67%  2 of 3 answered routed turns" in lines
    assert "  cost routed ÷ escalation     0.25×  over 3 turns" in lines
    routed = next(line for line in lines if line.startswith("  routed "))
    assert routed.split() == ["routed", "4", "1", "33%", "0.62", "0.1100", "190", "19", "150",
                              "75%", "3.5"]  # fmt: skip
    assert "  b turn 1: labelled escalation, answered by primary" in lines
    assert "    why: short prompt" in lines
    md = _milk(tmp_path, "--results", str(folder), "--markdown").stdout
    assert "| primary share | 67% | 2 of 3 answered routed turns |" in md
    assert "| escalation | 1 | 1 |" in md


def test_newest_run_by_default_and_latest(tmp_path: Path, milk_home: Path) -> None:
    write_known(_runs(milk_home) / "20260101-000000", started=100.0)
    write_known(_runs(milk_home) / "20260102-000000", modes=("routed",), started=200.0)
    broken = write_known(_runs(milk_home) / "20251201-000000", started=50.0)
    # A run.json a hand broke: the folder sorts by its modification time (set old here).
    (broken / "run.json").write_text('{"started": "soon"}')
    os.utime(broken, (1.0, 1.0))
    for args in ((), ("--results", "latest")):
        r = _milk(tmp_path, *args, "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["results"].endswith("20260102-000000")


def test_no_run_yet_is_one_line(tmp_path: Path, milk_home: Path) -> None:
    r = _milk(tmp_path)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "make one with: milk-tui eval run" in r.stderr
    r = _milk(tmp_path, "--results", str(tmp_path / "nowhere"))
    assert r.returncode == 1 and r.stderr.strip().endswith("nowhere: no such folder")


def test_hostile_turn_text_never_reaches_the_terminal_raw(tmp_path: Path, milk_home: Path) -> None:
    folder = write_known(tmp_path / "run")
    append(folder / TURNS_FILE, TurnRecord(
        scenario="s" + HOSTILE, mode="routed", turn=0, prompt=HOSTILE, label="escalation",
        slot="primary", route_reason=HOSTILE, error=""))  # fmt: skip
    append(folder / TURNS_FILE, TurnRecord(
        scenario="t", mode="routed" + HOSTILE, turn=0, prompt="p", error=HOSTILE))  # fmt: skip
    with (folder / TURNS_FILE).open("a") as fh:
        fh.write(HOSTILE + "\n")  # a bad line quoted in the problems
    for args in ((), ("--markdown",), ("--json",)):
        r = _milk(tmp_path, "--results", str(folder), *args)
        assert r.returncode == 0, r.stderr
        for raw in ("\x1b", "\x07", "\r", "\x9b", "\u202e"):
            assert raw not in r.stdout, (args, raw)
        if args == ("--json",):
            obj = json.loads(r.stdout)
            assert any(t["prompt"] == HOSTILE for t in obj["turns"])  # exact, escaped
        else:
            assert "␛]52;c;cHduZWQ=␇" in r.stdout
            assert max(len(line) for line in r.stdout.splitlines()) <= (80 if not args else 400)
