"""Sessions without a question do not pile up: a start that asked nothing (``--new`` quit
at once, a first turn that failed) is not listed by ``sessions list`` nor the sessions
screen — except the one open now, and a session the user named — and a plain start
resumes the latest session that holds a question (docs/interfaces.md, "Command line")."""

from __future__ import annotations

import json
from pathlib import Path

from tui.conftest import make_app, settle, type_and_send

from milk_tui.testing.cli_run import run_milk as milk
from milk_tui.tui.sessions_screen import SessionsScreen


def _listed(cwd: Path, *flags: str) -> list[dict]:
    r = milk("sessions", "list", "--json", *flags, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_failed_first_turns_leave_no_listed_session_and_a_named_one_stays(
    tmp_path: Path, milk_home: Path
) -> None:
    (milk_home / "config.toml").write_text(
        'agent = "gone"\nescalation_agent = "gone"\n[[agents]]\nname = "gone"\n'
        'provider = "local"\nurl = "http://127.0.0.1:9"\nmodel = "m"\n'
    )
    assert milk("-p", "hello", "--demo", cwd=tmp_path).returncode == 0  # a real one
    for _ in range(3):  # each makes a session, and its turn fails: nothing in it
        assert milk("-p", "hello?", "--new", cwd=tmp_path).returncode == 1
    assert milk("-p", "hello?", "--session", "keepme", cwd=tmp_path).returncode == 1
    rows = _listed(tmp_path)
    assert [(r["name"], r["questions"]) for r in rows] == [("keepme", 0), ("", 1)]
    assert _listed(tmp_path, "--all") == rows
    table = milk("sessions", "list", cwd=tmp_path).stdout
    assert len(table.splitlines()) == 3  # the header and the two rows
    # A plain start resumes the conversation, not the latest empty start.
    assert milk("-p", "and again", "--demo", cwd=tmp_path).returncode == 0
    assert [(r["name"], r["questions"]) for r in _listed(tmp_path)] == [("", 2), ("keepme", 0)]


async def test_the_sessions_screen_lists_the_open_empty_session_and_hides_older_ones(
    tmp_path: Path,
) -> None:
    cwd = str(tmp_path)
    assert milk("-p", "what is a monad?", "--demo", cwd=tmp_path).returncode == 0
    left = make_app(cwd=cwd, session="", new=True)  # opened, then quit without a question
    async with left.run_test(size=(80, 24)) as pilot:
        await settle(pilot, left)
    app = make_app(cwd=cwd, session="", new=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        current = app.runtime.dispatcher.session.id
        await type_and_send(pilot, "/sessions")
        for _ in range(200):
            if isinstance(app.screen, SessionsScreen) and app.screen.sessions:
                break
            await pilot.pause(0.02)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert [(s.id == current, s.questions) for s in screen.sessions] == [(True, 0), (False, 1)]
        assert str(screen.table.columns["questions"].label) == "questions"
