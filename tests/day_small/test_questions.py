"""One definition of a question (docs/interfaces.md, "sessions list --json"): a prompt the
user sent.  A prompt the primary handed over is stored as four records and is one
question in ``sessions list``, ``sessions show``, the TUI header and the sessions screen."""

from __future__ import annotations

import json
from pathlib import Path

from milk_tui.model.session import ESCALATION, PRIMARY, Session, Turn
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.cli_run import run_milk as milk

HANDED_OVER = "this one is hard"  # the demo primary hands this one over


def test_a_handed_over_prompt_is_one_question_in_every_listing(tmp_path: Path) -> None:
    r = milk("-p", HANDED_OVER, "--demo", "--output-format", "stream-json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    started = [json.loads(x) for x in r.stdout.splitlines() if '"escalation_started"' in x]
    assert started and started[0]["mode"] == "first"  # it was handed over
    assert milk("-p", "what is 2+2", "--demo", "--primary", cwd=tmp_path).returncode == 0
    (row,) = json.loads(milk("sessions", "list", "--json", cwd=tmp_path).stdout)
    assert (row["turns"], row["questions"]) == (6, 2)
    table = milk("sessions", "list", cwd=tmp_path).stdout.splitlines()
    assert table[0].split()[:5] == ["ID", "LAST", "USED", "QUESTIONS", "NAME"]
    assert table[1].split()[3] == "2"
    shown = milk("sessions", "show", row["id"], cwd=tmp_path).stdout
    assert "\nquestions: 2\n" in shown


def test_the_same_text_asked_again_later_is_another_question(tmp_path: Path) -> None:
    s = Session(id="x", cwd="/p")
    s.history = [
        Turn("user", "q", agent=PRIMARY),
        Turn("assistant", "a", agent=PRIMARY),
        Turn("user", "q", agent=ESCALATION),  # a hand-off: the same question
        Turn("assistant", "b", agent=ESCALATION),
        Turn("user", "q", agent=ESCALATION),  # asked again of the escalation agent
        Turn("assistant", "c", agent=ESCALATION),
        Turn("user", "r", agent=PRIMARY),
        Turn("assistant", "d", agent=PRIMARY),
        Turn("user", "s", agent=ESCALATION),  # routed to the escalation agent: another one
        Turn("assistant", "e", agent=ESCALATION),
    ]
    s.current_need, s.current_need_set_at = "n", 3  # recorded during the hand-off
    assert s.question_count() == 4 and s.history_counts().exchanges == 4
    assert s.history_counts().need_question == 1
    db = Database(tmp_path / "milk.db")
    try:
        store = SessionStore(db)
        stored = store.create("/p")
        stored.history.extend(s.history)
        stored.current_need, stored.current_need_set_at = "n", 3
        store.commit_turns(stored, s.history)
        assert store.history_counts(stored) == stored.history_counts()
        (summary,) = store.list("/p")
        assert (summary.turns, summary.questions) == (10, 4)
    finally:
        db.close()
