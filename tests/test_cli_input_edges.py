"""Command-line input edges: arguments that are not UTF-8, ``-p -`` reading the prompt from
standard input, and a reader that goes away (closed pipe).  Real runs of the CLI."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from milk_tui.testing.cli_run import MILK_COMMAND, run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

NOT_UTF8 = b"caf\xe9 \xff".decode("utf-8", "surrogateescape")
"""What Python makes of argv bytes that are not UTF-8 (lone surrogates)."""


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--demo", "-p", NOT_UTF8], "-p/--print"),
        (["--demo", "--session", NOT_UTF8, "-p", "hi"], "--session"),
        (["memory", "add", NOT_UTF8], "content"),
    ],
)
def test_an_argument_that_is_not_utf8_is_one_line_and_exit_2(
    tmp_path: Path, args: list[str], named: str
) -> None:
    r = run_milk(*args, cwd=tmp_path)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert lines[0].startswith(f"milk-tui: {named} is not valid UTF-8 text: ")
    assert "\\xff" in lines[0]


def test_an_environment_value_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    env = {**os.environb, b"MILK_HOME": str(tmp_path).encode() + b"/\xff"}
    r = subprocess.run(MILK_COMMAND + ["--demo", "-p", "hi"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)  # fmt: skip
    assert r.returncode == 2 and r.stderr.startswith("milk-tui: MILK_HOME is not valid UTF-8")
    assert "Traceback" not in r.stderr


def _config(home: Path, url: str) -> None:
    (home / "config.toml").write_text(
        f'agent = "fake"\nescalation_agent = "demo"\n[[agents]]\nname = "fake"\n'
        f'provider = "local"\nurl = "{url}"\n[[agents]]\nname = "demo"\nprovider = "demo"\n'
    )


def test_dash_reads_a_large_prompt_from_stdin(tmp_path: Path, milk_home: Path) -> None:
    prompt = "summarise this:\n" + "line of a long document — ünïcode\n" * 60_000  # ~2 MB
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["summary"])
        _config(milk_home, srv.url)
        r = run_milk("-p", "-", "--primary", cwd=tmp_path, input=prompt)
        assert r.returncode == 0, r.stderr[-500:]
        sent = srv.chat_requests[0].json["messages"][-1]["content"]
    assert sent == prompt and r.stdout.strip() == "summary"


def test_dash_with_stdin_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    r = subprocess.run(MILK_COMMAND + ["--demo", "-p", "-"], cwd=tmp_path, input=b"ok \xff",
                       capture_output=True, timeout=60)  # fmt: skip
    assert r.returncode == 2
    assert r.stderr.decode().strip() == "milk-tui: -p -: standard input is not UTF-8 text (byte 3)"


def test_help_documents_dash_for_stdin(tmp_path: Path) -> None:
    out = " ".join(run_milk("--help", cwd=tmp_path).stdout.split())
    assert "'-' reads the prompt from stdin" in out


@pytest.mark.parametrize("fmt", ["text", "stream-json"])
def test_a_reader_that_goes_away_ends_the_run_quietly(
    tmp_path: Path, milk_home: Path, fmt: str
) -> None:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["word " * 200] * 300, delay=0.001)
        _config(milk_home, srv.url)
        p = subprocess.Popen(
            [*MILK_COMMAND, "-p", "talk a lot", "--primary", "--output-format", fmt],
            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        assert p.stdout is not None and p.stderr is not None
        p.stdout.read(10)  # like `| head -c 10`
        p.stdout.close()
        err = p.stderr.read().decode()
        assert p.wait(timeout=60) in (0, 1)
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    listing = run_milk("sessions", "list", "--json", cwd=tmp_path)
    assert json.loads(listing.stdout), "the turn is recorded even though nobody read it"
