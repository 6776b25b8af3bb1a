"""The CLI's error lines quote what the user or a file gave it — a config value, a session
name, a path — and are written inert like every other line: the bytes on stderr hold no
ESC or BEL, only their visible stand-ins (milk_tui/model/terminal_text.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from milk_tui.testing.cli_run import MILK_COMMAND

TITLE = "\x1b]0;PWNED\x07"
SHOWN = "␛]0;PWNED␇"


def _stderr(args: list[str], cwd: Path, **env: str) -> bytes:
    r = subprocess.run(
        [*MILK_COMMAND, *args], cwd=cwd, capture_output=True, timeout=60, env={**os.environ, **env}
    )
    assert r.returncode != 0
    assert b"Traceback" not in r.stderr, r.stderr
    assert b"\x1b" not in r.stderr and b"\x07" not in r.stderr, r.stderr
    return r.stderr


def test_config_error_quoting_an_escape_sequence(tmp_path: Path, milk_home: Path) -> None:
    (milk_home / "config.toml").write_text(
        'agent = "ghost\\u001b]0;PWNED\\u0007"\n'
        '[[agents]]\nname = "a"\nprovider = "local"\nurl = "http://127.0.0.1:1"\n'
    )
    # A warning now (the run goes on with agent 'a', which is down: exit non-zero).
    err = _stderr(["-p", "hi"], tmp_path).decode()
    assert "key 'agent': " in err and f"no agent named 'ghost{SHOWN}'" in err


def test_no_session_with_an_escape_sequence_in_its_name(tmp_path: Path) -> None:
    err = _stderr(["sessions", "show", f"x{TITLE}"], tmp_path).decode()
    assert f"milk-tui: no session with id or name 'x{SHOWN}'" in err


def test_storage_error_quoting_a_path_with_an_escape_sequence(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    home = tmp_path / "file" / f"h{TITLE}"
    err = _stderr(["sessions", "list"], tmp_path, MILK_HOME=str(home)).decode()
    assert "milk-tui: storage error: " in err and f"h{SHOWN}" in err
