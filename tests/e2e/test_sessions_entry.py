"""README's first usage lines as a user meets them: ``milk-tui`` resumes this folder's most
recent session, ``--new`` starts another, ``--session NAME`` resumes or creates that one —
in ``-p`` (subprocesses) and in the TUI (``cli.main`` through Pilot), several sessions per
folder.  "Most recent" is the session's ``last_used`` (storage/session_lookup.py): the time
of its last committed turn, not its creation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from e2e.conftest import ok, prompts, sent_text, sessions, shown
from e2e.tui_driver import drive, send, transcript
from milk_tui.testing.fake_openai import FakeOpenAIServer


def three_sessions(project: Path) -> dict[str, str]:
    """Sessions made in the order alpha, bravo, charlie; then alpha gets another turn, so by
    last use alpha is the newest and bravo the oldest.  Their ids by name."""
    ok("-p", "alpha-one", "--primary", cwd=project)
    ids = {"alpha": sessions(project)[0]["id"]}
    for word in ("bravo", "charlie"):
        ok("-p", f"{word}-one", "--new", "--primary", cwd=project)
        ids[word] = sessions(project)[0]["id"]
    ok("-p", "alpha-two", "--session", ids["alpha"], "--primary", cwd=project)
    assert [s["id"] for s in sessions(project)] == [ids["alpha"], ids["charlie"], ids["bravo"]]
    return ids


def test_new_starts_a_session_and_leaves_the_previous_untouched(llama, project: Path) -> None:
    ok("-p", "alpha-one", "--primary", cwd=project)
    (before,) = sessions(project)
    old = shown(project, before["id"])
    ok("-p", "bravo-one", "--new", "--primary", cwd=project)
    listed = sessions(project)
    assert len(listed) == 2
    fresh = next(s for s in listed if s["id"] != before["id"])
    assert prompts(shown(project, fresh["id"])) == ["bravo-one"]
    assert "alpha-one" not in sent_text(llama)  # the new session carried no history
    assert shown(project, before["id"]) == old


def test_p_resumes_the_most_recently_used_of_several(llama, project: Path) -> None:
    ids = three_sessions(project)
    before = {w: shown(project, i) for w, i in ids.items()}
    ok("-p", "which one?", "--primary", cwd=project)
    assert prompts(shown(project, ids["alpha"])) == ["alpha-one", "alpha-two", "which one?"]
    assert "alpha-two" in sent_text(llama) and "charlie-one" not in sent_text(llama)
    for word in ("bravo", "charlie"):
        assert shown(project, ids[word]) == before[word]
    assert len(sessions(project)) == 3


def test_p_session_name_resumes_that_one_or_creates_it(llama, project: Path) -> None:
    ok("-p", "red-one", "--session", "red", "--primary", cwd=project)
    ok("-p", "blue-one", "--session", "blue", "--primary", cwd=project)
    ok("-p", "latest-one", "--new", "--primary", cwd=project)  # the most recent: unnamed
    ok("-p", "red-two", "--session", "red", "--primary", cwd=project)
    by_name = {s["name"]: s for s in sessions(project)}
    assert prompts(shown(project, "red")) == ["red-one", "red-two"]
    assert prompts(shown(project, "blue")) == ["blue-one"]
    assert "red-one" in sent_text(llama) and "latest-one" not in sent_text(llama)
    ok("-p", "green-one", "--session", "green", "--primary", cwd=project)
    listed = sessions(project)
    assert len(listed) == 4 and listed[0]["name"] == "green"
    assert prompts(shown(project, "green")) == ["green-one"]
    assert set(by_name) == {"red", "blue", ""}


# ----- the TUI ------------------------------------------------------------------------------


def test_tui_resumes_the_most_recently_used_of_several(
    llama: FakeOpenAIServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = three_sessions(project)
    monkeypatch.chdir(project)
    seen: dict[str, Any] = {}

    async def user(pilot: Any, app: Any) -> None:
        seen["id"], seen["before"] = app.facade.session_id, transcript(app)
        await send(pilot, app, "from the tui")

    assert drive(monkeypatch, [], user) == 0
    assert seen["id"] == ids["alpha"]
    assert "alpha-two" in seen["before"] and "charlie-one" not in seen["before"]
    assert prompts(shown(project, ids["alpha"]))[-1] == "from the tui"
    assert "alpha-two" in sent_text(llama)


def test_tui_new_starts_a_session_and_leaves_the_previous_untouched(
    llama: FakeOpenAIServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok("-p", "alpha-one", "--primary", cwd=project)
    (before,) = sessions(project)
    old = shown(project, before["id"])
    monkeypatch.chdir(project)
    seen: dict[str, Any] = {}

    async def user(pilot: Any, app: Any) -> None:
        seen["id"], seen["before"] = app.facade.session_id, transcript(app)
        await send(pilot, app, "bravo-one")

    assert drive(monkeypatch, ["--new"], user) == 0
    assert seen["id"] != before["id"] and "alpha-one" not in seen["before"]
    assert prompts(shown(project, seen["id"])) == ["bravo-one"]
    assert shown(project, before["id"]) == old
    assert "alpha-one" not in sent_text(llama)


def test_tui_session_name_resumes_that_one_or_creates_it(
    llama: FakeOpenAIServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok("-p", "red-one", "--session", "red", "--primary", cwd=project)
    ok("-p", "latest-one", "--new", "--primary", cwd=project)
    monkeypatch.chdir(project)
    seen: dict[str, Any] = {}

    async def user(pilot: Any, app: Any) -> None:
        seen[app.facade.session_id] = transcript(app)
        await send(pilot, app, "more")

    assert drive(monkeypatch, ["--session", "red"], user) == 0
    red = shown(project, "red")
    assert "red-one" in seen[red["id"]] and "latest-one" not in seen[red["id"]]
    assert prompts(red) == ["red-one", "more"]
    assert drive(monkeypatch, ["--session", "green"], user) == 0
    assert prompts(shown(project, "green")) == ["more"] and len(sessions(project)) == 3


def test_sessions_list_is_this_folders_unless_all(llama, project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    ok("-p", "here-one", "--primary", cwd=project)
    ok("-p", "there-one", "--primary", cwd=other)
    (here,) = sessions(project)
    assert here["cwd"] == str(project)
    every = json.loads(ok("sessions", "list", "--all", "--json", cwd=project))
    assert {s["cwd"] for s in every} == {str(project), str(other)}
