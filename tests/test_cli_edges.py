"""Edges of the command line a new user hits: refused values, forget by text, bare
subcommands, and the sessions table's header."""

from __future__ import annotations

import json
from pathlib import Path

from milk_tui.testing.cli_run import run_milk as milk


def _facts(cwd: Path) -> list[dict]:
    r = milk("memory", "list", "--scope", "all", "--json", cwd=cwd)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_edit_refuses_an_out_of_range_weight_and_stores_nothing(tmp_path: Path):
    added = milk("memory", "add", "tabs are four spaces", "--json", cwd=tmp_path)
    fact = json.loads(added.stdout)
    r = milk("memory", "edit", str(fact["id"]), "--weight", "-3", cwd=tmp_path)
    assert r.returncode == 2
    assert "0 to 1" in r.stderr and "updated" not in r.stdout
    assert _facts(tmp_path)[0]["weight"] == fact["weight"]
    assert milk("memory", "edit", str(fact["id"]), "--weight", "1.5", cwd=tmp_path).returncode == 2
    ok = milk("memory", "edit", str(fact["id"]), "--weight", "0.3", cwd=tmp_path)
    assert ok.returncode == 0 and _facts(tmp_path)[0]["weight"] == 0.3


def test_forget_by_text_deletes_the_one_match_and_refuses_an_ambiguous_one(tmp_path: Path):
    for text in ("the build uses gradle", "deploy with kubectl apply", "deploy on fridays never"):
        assert milk("memory", "add", text, cwd=tmp_path).returncode == 0
    ambiguous = milk("memory", "forget", "deploy", cwd=tmp_path)
    assert ambiguous.returncode == 1
    assert "2 facts match" in ambiguous.stderr
    assert "kubectl" in ambiguous.stderr and "fridays" in ambiguous.stderr
    assert len(_facts(tmp_path)) == 3
    one = milk("memory", "forget", "gradle", cwd=tmp_path)
    assert one.returncode == 0, one.stderr
    assert "forgot #" in one.stdout
    assert all("gradle" not in f["content"] for f in _facts(tmp_path))
    none = milk("memory", "forget", "nothing like this", cwd=tmp_path)
    assert none.returncode == 1 and "no remembered fact matches" in none.stderr


def test_bare_memory_and_sessions_print_their_usage(tmp_path: Path):
    for cmd, words in (("memory", ("list", "forget")), ("sessions", ("list", "show"))):
        r = milk(cmd, cwd=tmp_path)
        assert r.returncode == 2
        assert "_cmd" not in r.stderr
        assert r.stderr.startswith("usage:") and all(w in r.stderr for w in words), r.stderr


def test_sessions_list_has_a_header_row(tmp_path: Path):
    assert milk("-p", "hello", "--demo", cwd=tmp_path).returncode == 0
    lines = milk("sessions", "list", cwd=tmp_path).stdout.splitlines()
    assert lines[0].split()[:3] == ["ID", "LAST", "USED"]
    assert "QUESTIONS" in lines[0] and "NAME" in lines[0] and "NEED" in lines[0]
    assert len(lines) == 2


def _one_session(cwd: Path, prompt: str) -> str:
    r = milk("--demo", "-p", prompt, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return json.loads(milk("sessions", "list", "--json", cwd=cwd).stdout)[0]["id"]


def test_sessions_show_speaks_in_words(tmp_path: Path):
    sid = _one_session(tmp_path, "hello there")
    shown = milk("sessions", "show", sid, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "state:     ready" in shown.stdout and "questions: 1" in shown.stdout
    assert "ROUTING" not in shown.stdout


def test_a_reader_that_goes_away_is_not_a_traceback(tmp_path: Path):
    import subprocess

    from milk_tui.testing.cli_run import MILK_COMMAND

    sid = _one_session(
        tmp_path, "a long question " + "word " * 20_000
    )  # > a pipe buffer, < one argv string
    proc = subprocess.Popen(
        [*MILK_COMMAND, "sessions", "show", sid],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()  # like `| head -c 10`
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) != 0
    assert "Traceback" not in err and "BrokenPipeError" not in err
