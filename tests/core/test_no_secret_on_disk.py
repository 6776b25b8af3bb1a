"""No secret on disk: real runs of the command line against the fake OpenAI server whose
reply echoes the configured key split across SSE events; the wire log, the database and
the printed answer are read back as the files a user has, permission bits included."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

KEY = "sk-proj-Q7vT2mN9xR4wL1"
HEADER_KEY = "hdr-4c1d9e7f2b8a"
TOKEN = "tok-cmd-8d3f0a5e6b"


def _config(home: Path, url: str, *, token_cmd: str = "", mode: int = 0o600) -> Path:
    auth = f'token_cmd = "{token_cmd}"' if token_cmd else f'api_key = "{KEY}"'
    cfg = home / "config.toml"
    cfg.write_text(
        f"""agent = "fake"
escalation_agent = "demo"
[[agents]]
name = "fake"
provider = "openrouter"
url = "{url}"
model = "fake-model"
{auth}
headers = {{ "X-Custom-Token" = "{HEADER_KEY}", "X-Title" = "milk" }}
[[agents]]
name = "demo"
provider = "demo"
"""
    )
    cfg.chmod(mode)
    return cfg


def _split(secret: str) -> list[str]:
    """The reply echoing ``secret`` in four SSE events, plus the header value in two."""
    a, b, c = len(secret) // 3, len(secret) // 2, 2 * len(secret) // 3
    h = len(HEADER_KEY) // 2
    return [
        f"Here it is: {secret[:a]}",
        secret[a:b],
        secret[b:c],
        f"{secret[c:]} and the header {HEADER_KEY[:h]}",
        f"{HEADER_KEY[h:]}. Done.",
    ]


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "MILK_HOME": str(home)}


def _disk_bytes(home: Path) -> bytes:
    """Everything milk-tui wrote (the user's own config.toml holds the key, of course)."""
    return b"".join(
        p.read_bytes() for p in home.rglob("*") if p.is_file() and p.name != "config.toml"
    )


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


@pytest.mark.parametrize("use_token_cmd", [False, True], ids=["api_key", "token_cmd"])
def test_an_echoed_key_is_masked_in_the_wire_log_the_database_and_the_answer(
    tmp_path: Path, use_token_cmd: bool
) -> None:
    home = tmp_path / "fresh-home"  # created by milk-tui itself
    home.mkdir(mode=0o700)
    secret = TOKEN if use_token_cmd else KEY
    work = tmp_path / "proj"
    work.mkdir()
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=_split(secret), delay=0.01)
        _config(home, srv.url, token_cmd=f"echo {TOKEN}" if use_token_cmd else "")
        r = run_milk("-p", "say my key", "--primary", "--debug", cwd=work, env=_env(home))
        assert r.returncode == 0, r.stderr
        sent = srv.chat_requests[0].headers
    assert sent["authorization"] == f"Bearer {secret}" and sent["x-custom-token"] == HEADER_KEY
    assert "Here it is: ***" in r.stdout and "Done." in r.stdout
    for value in (secret, HEADER_KEY):
        assert value not in r.stdout and value not in r.stderr
        assert value.encode() not in _disk_bytes(home), f"{value} written to disk"
    log = (home / "wire-debug.log").read_text()
    assert "X-Title" in log and "Here it is: " in log  # the log is there, only masked
    assert _mode(home / "wire-debug.log") == 0o600
    shown = run_milk(
        "sessions", "show", "--json", _session_id(work, home), cwd=work, env=_env(home)
    )
    assert "Here it is: ***" in shown.stdout and secret not in shown.stdout


def _session_id(work: Path, home: Path) -> str:
    import json

    listing = run_milk("sessions", "list", "--json", cwd=work, env=_env(home))
    return str(json.loads(listing.stdout)[0]["id"])


def test_data_dir_is_0700_and_database_and_its_journal_files_0600(tmp_path: Path) -> None:
    home = tmp_path / "new" / "milk-home"
    work = tmp_path / "proj"
    work.mkdir()
    r = run_milk("--demo", "-p", "hello there", "--debug", cwd=work, env=_env(home))
    assert r.returncode == 0, r.stderr
    assert _mode(home) == 0o700
    made = [p for p in home.iterdir() if p.name.startswith("milk.db")]
    assert home / "milk.db" in made
    for p in made:
        assert _mode(p) == 0o600, p


def test_an_old_world_readable_database_is_tightened(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "proj"
    work.mkdir()
    assert run_milk("--demo", "-p", "one", cwd=work, env=_env(home)).returncode == 0
    (home / "milk.db").chmod(0o644)
    assert run_milk("sessions", "list", cwd=work, env=_env(home)).returncode == 0
    assert _mode(home / "milk.db") == 0o600


def test_a_readable_config_holding_a_key_gets_one_warning_with_the_fix(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "proj"
    work.mkdir()
    cfg = _config(home, "http://127.0.0.1:9", mode=0o644)
    r = run_milk("--demo", "-p", "hi", cwd=work, env=_env(home))
    warnings = [ln for ln in r.stderr.splitlines() if f"chmod 600 {cfg}" in ln]
    assert len(warnings) == 1 and str(cfg) in warnings[0] and KEY not in r.stderr
    cfg.chmod(0o600)
    quiet = run_milk("--demo", "-p", "hi", cwd=work, env=_env(home))
    assert "chmod" not in quiet.stderr
    cfg.write_text('theme = "milk-dark"\n')  # readable, but nothing secret in it
    cfg.chmod(0o644)
    assert "chmod" not in run_milk("--demo", "-p", "hi", cwd=work, env=_env(home)).stderr
