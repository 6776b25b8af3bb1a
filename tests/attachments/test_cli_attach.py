"""``milk-tui -p PROMPT --attach FILE`` as a user runs it: a real subprocess, the fake
OpenAI server recording what it received, the real database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from milk_tui.testing.cli_run import run_milk as milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from tests.attachments.files import big_png, write_png


def _config(milk_home: Path, url: str) -> None:
    (milk_home / "config.toml").write_text(
        f'agent = "llama"\n[[agents]]\nname = "llama"\nprovider = "local"\nurl = "{url}"\n'
    )


def test_print_mode_sends_every_attached_file(tmp_path: Path, milk_home: Path):
    write_png(tmp_path / "shot.png")
    (tmp_path / "err.log").write_text("Traceback: boom\n")
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["I see a red square"])
        _config(milk_home, srv.url)
        r = milk("-p", "what is this?", "--attach", "shot.png", "--attach", "err.log", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert "red square" in r.stdout
        content = srv.chat_requests[-1].json["messages"][-1]["content"]
    assert "err.log:\n```\nTraceback: boom" in content[0]["text"]
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    raw = (
        sqlite3.connect(milk_home / "milk.db")
        .execute("SELECT attachments FROM turns WHERE role = 'user'")
        .fetchone()[0]
    )
    assert '"shot.png"' in raw and '"err.log"' in raw


def test_a_bad_file_is_one_line_exit_2_and_nothing_sent(tmp_path: Path, milk_home: Path):
    write_png(tmp_path / "ok.png")
    big_png(tmp_path / "huge.png", 6 * 1024 * 1024)
    with FakeOpenAIServer() as srv:
        _config(milk_home, srv.url)
        for bad, words in (
            ("nope.png", "nope.png: no such file"),
            ("huge.png", "huge.png: too large"),
        ):
            r = milk("-p", "look", "--attach", "ok.png", "--attach", bad, cwd=tmp_path)
            assert r.returncode == 2
            lines = r.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"milk-tui: --attach {words}")
            assert "Traceback" not in r.stderr
        assert srv.chat_requests == []
    assert (
        not (milk_home / "milk.db").exists()
        or sqlite3.connect(milk_home / "milk.db")
        .execute("SELECT COUNT(*) FROM turns")
        .fetchone()[0]
        == 0
    )


def test_attach_without_print_mode_is_refused(tmp_path: Path):
    write_png(tmp_path / "ok.png")
    r = milk("--attach", "ok.png", cwd=tmp_path)
    assert r.returncode == 2 and "--attach goes with -p" in r.stderr
