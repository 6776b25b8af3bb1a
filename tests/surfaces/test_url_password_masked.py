"""An agent ``url`` with ``user:password@`` in it: the ``--debug`` wire log, an error line
that quotes the URL and the agents' rows never show the user or the password."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from milk_tui.agents.redact import Redactor, mask_url_userinfo
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

USER, PASSWORD = "alice", "pw-Zq81xT"


def _config(home: Path, url: str, extra: str = "") -> None:
    (home / "config.toml").write_text(
        f'agent = "llama"\nescalation_agent = "big"\n'
        f'[[agents]]\nname = "llama"\nprovider = "local"\nurl = "{url}"\n{extra}'
        f'[[agents]]\nname = "big"\nprovider = "local"\nurl = "{url}"\n{extra}'
    )


def _with_userinfo(url: str) -> str:
    return url.replace("://", f"://{USER}:{PASSWORD}@")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("POST http://u:p@h:8080/v1/chat", "POST http://***@h:8080/v1/chat"),
        ("at https://user@host/x (refused)", "at https://***@host/x (refused)"),
        ("'ws://a:b@c' and http://d:e@f/", "'ws://***@c' and http://***@f/"),
        ("mail bob@example.com, http://host/a@b", "mail bob@example.com, http://host/a@b"),
    ],
)
def test_the_userinfo_of_every_url_in_a_line_is_masked(text: str, shown: str) -> None:
    assert mask_url_userinfo(text) == shown
    assert Redactor()(text) == shown  # the one redactor every log and error line goes through


def test_the_wire_log_and_an_error_line_hold_no_password(tmp_path: Path, milk_home: Path) -> None:
    env = {**os.environ, "MILK_HOME": str(milk_home)}
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["fine"])
        _config(milk_home, _with_userinfo(srv.url))
        r = run_milk("-p", "hi", "--primary", "--debug", cwd=tmp_path, env=env)
        assert r.returncode == 0, r.stderr
        assert srv.chat_requests  # the server was reached, with the URL's credentials
    log = (milk_home / "wire-debug.log").read_text()
    assert f"POST http://***@127.0.0.1:{srv.port}/v1/chat/completions" in log
    assert PASSWORD not in log and f"{USER}:" not in log

    with FakeOpenAIServer() as srv:  # a server that answers its health check, then hangs
        srv.default_reply = FakeReply(hang="before_headers")
        _config(milk_home, _with_userinfo(srv.url), extra="timeout_secs = 1\n")
        r = run_milk("-p", "hi", "--primary", "--debug", cwd=tmp_path, env=env)
    assert r.returncode == 1 and "no response from http://***@127.0.0.1:" in r.stderr, r.stderr
    log = (milk_home / "wire-debug.log").read_text()
    for text in (r.stdout, r.stderr, log):
        assert PASSWORD not in text and f"{USER}:" not in text


async def test_the_agents_rows_hold_no_password(milk_home: Path, tmp_path: Path) -> None:
    from milk_tui.facade.application import start

    _config(milk_home, "http://bob:s3cret-pw@10.0.0.9:8080")
    app = start(cwd=str(tmp_path))
    try:
        rows = app.agents.rows()  # the /agents screen's table
    finally:
        await app.aclose()
    assert [r.url for r in rows if r.name == "llama"] == ["http://***@10.0.0.9:8080"]
