"""A reply holding lone surrogates (a server's JSON ``\\ud800`` escape decodes to one) through
the real ``milk -p`` process and the fake OpenAI server: every stream-json line is UTF-8 JSON,
the turn is recorded, and each surrogate reads as U+FFFD everywhere, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

from milk_tui.cli.terminal_out import event_json
from milk_tui.model import events as ev
from milk_tui.testing.cli_run import run_milk as milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

CHUNKS = ["caf\u00e9 ", "\ud800", " and \udfff then \ud83d\ude00 end"]
SHOWN = "caf\u00e9 \ufffd and \ufffd then \U0001f600 end"


def _config(home: Path, url: str) -> None:
    (home / "config.toml").write_text(
        f'agent = "fake"\nescalation_agent = "fake"\n[[agents]]\nname = "fake"\n'
        f'provider = "local"\nurl = "{url}"\nmodel = "m"\n'
    )


def test_stream_json_reply_with_lone_surrogates(tmp_path: Path, milk_home: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=CHUNKS)
        _config(milk_home, srv.url)
        r = milk("-p", "hi", "--primary", "--output-format", "stream-json", cwd=tmp_path)
        plain = milk("-p", "again", "--primary", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    text = "".join(e["text"] for e in lines if e["type"] == "text_delta")
    assert text == SHOWN
    done = [e for e in lines if e["type"] == "turn_completed"]
    assert done and done[0]["text"] == SHOWN
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout == SHOWN + "\n"

    shown = milk("sessions", "list", "--json", cwd=tmp_path)
    sid = json.loads(shown.stdout)[0]["id"]
    record = milk("sessions", "show", sid, "--json", cwd=tmp_path)
    assert record.returncode == 0, record.stderr
    replies = [t for t in json.loads(record.stdout)["history"] if t["role"] == "assistant"]
    assert [t["content"] for t in replies] == [SHOWN, SHOWN]


def test_event_json_writes_u_fffd_for_a_lone_surrogate_in_any_field() -> None:
    notice = ev.Notice(level="warning", message="tool said \udc80\u001b!", session_id="s")
    line = event_json(notice)
    line.encode("utf-8")  # encodable
    assert json.loads(line)["message"] == "tool said \ufffd\u001b!"  # the rest exact
    clean = ev.Notice(level="warning", message="plain", session_id="s")
    assert event_json(clean) == clean.to_json()
