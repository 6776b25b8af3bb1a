"""Fixtures for the end-to-end tests: the real ``milk-tui`` entry point (a subprocess, or the
real TUI driven through Pilot from ``cli.main``) on a fake OpenAI server, ``MILK_HOME`` in
a temp dir (the suite's autouse ``milk_home``)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply


def deadline(done: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """Poll ``done()`` until it is truthy and return it; raise naming ``what`` when the
    deadline passes (a loaded machine makes it slower, never wrong)."""
    end = time.monotonic() + timeout
    while True:
        got = done()
        if got:
            return got
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.05)


def llama_config(url: str, extra: str = "") -> str:
    """A primary "llama" on the fake server and the demo agent for escalation."""
    return (
        f'agent = "llama"\nescalation_agent = "demo"\n{extra}'
        f'[[agents]]\nname = "llama"\nprovider = "local"\nurl = "{url}"\nmodel = "m"\n'
        '[[agents]]\nname = "demo"\nprovider = "demo"\n'
    )


@pytest.fixture
def llama(milk_home: Path) -> Iterator[FakeOpenAIServer]:
    """The fake server as the primary, with a config file naming it."""
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["noted"])
        (milk_home / "config.toml").write_text(llama_config(srv.url))
        yield srv


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "project"
    p.mkdir()
    return p


def ok(*args: str, cwd: Path, **kw: Any) -> str:
    """``milk-tui ARGS`` that must exit 0; its stdout."""
    r = run_milk(*args, cwd=cwd, **kw)
    assert r.returncode == 0, f"milk-tui {' '.join(args)} exited {r.returncode}: {r.stderr}"
    return r.stdout


def sessions(cwd: Path) -> list[dict[str, Any]]:
    return json.loads(ok("sessions", "list", "--json", cwd=cwd))


def shown(cwd: Path, key: str) -> dict[str, Any]:
    return json.loads(ok("sessions", "show", key, "--json", cwd=cwd))


def prompts(doc: dict[str, Any]) -> list[str]:
    return [h["content"] for h in doc["history"] if h["role"] == "user"]


def sent_text(srv: FakeOpenAIServer) -> str:
    """Every message of the last chat request the server received, as one text."""
    return json.dumps(srv.chat_requests[-1].json["messages"])
