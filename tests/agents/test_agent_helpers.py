"""The helpers every backend shares: Redactor, CredentialCommand, WireLog."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from agents.helpers import pid_written, process_gone
from milk_tui.agents.base import AgentError
from milk_tui.agents.credential_cmd import CredentialCommand
from milk_tui.agents.redact import Redactor
from milk_tui.agents.wire_log import WireLog


def test_redactor_masks_known_values_longest_first_and_secret_pairs() -> None:
    r = Redactor("abc", "sk-live-1234", "sk-live-1234-extended")
    assert r("key sk-live-1234-extended and sk-live-1234, abc") == "key *** and ***, abc"
    masked = r('Authorization: Bearer zzz-unknown "api_key": "q9q9q9" keep')
    assert "zzz-unknown" not in masked and "q9q9q9" not in masked and masked.endswith(" keep")
    assert r.values("token = next(it) sk-live-1234") == "token = next(it) ***"


def test_redactor_headers() -> None:
    r = Redactor()
    r.add_headers({"X-Api-Key": "hdr-secret-999", "X-Title": "milk"})
    assert r("echo hdr-secret-999") == "echo ***"
    assert r.headers({"x-api-key": "anything", "X-Title": "milk"}) == {
        "x-api-key": "***",
        "X-Title": "milk",
    }


def command(cmd: str, redact: Redactor, **kw: object) -> CredentialCommand:
    opts: dict = {"setting": "token_cmd", "who": "agent 'x'", "agent": "x", "timeout": 5.0}
    opts.update(kw)
    return CredentialCommand(cmd, redact=redact, **opts)


async def test_credential_command_output_is_a_secret_and_cached() -> None:
    r = Redactor()
    cmd = command("echo '  tok-s3cr3t  '", r)
    assert await cmd.get() == "tok-s3cr3t"
    assert r("got tok-s3cr3t") == "got ***"
    cmd.command = "echo other-token"
    assert await cmd.get() == "tok-s3cr3t"
    assert await cmd.get(refresh=True) == "other-token"


async def test_credential_command_without_a_shell_splits_the_line(tmp_path: Path) -> None:
    script = tmp_path / "creds.py"
    script.write_text("import sys; print(sys.argv[1])")
    cmd = command(f"{sys.executable} {script} 'two words'", Redactor(), shell=False)
    assert await cmd.run() == "two words"


@pytest.mark.parametrize(
    "cmd,kw,message",
    [
        ("echo 'no creds' >&2; echo 'more' >&2; exit 3", {}, "token_cmd `echo` failed (exit 3)"),
        ("echo 'no creds' >&2; exit 3", {"quote_stderr": True}, "failed (exit 3): no creds"),
        ("true", {}, "token_cmd: empty output"),
        ("sleep 30 & wait", {"timeout": 0.2}, "token_cmd timed out after 0.2s"),
        ("/no/such/helper", {"shell": False}, "token_cmd could not start: "),
    ],
)
async def test_credential_command_errors_are_worded(cmd: str, kw: dict, message: str) -> None:
    with pytest.raises(AgentError) as e:
        await command(cmd, Redactor(), **kw).run()
    assert str(e.value).startswith("agent 'x': ") and message in str(e.value)
    assert e.value.agent == "x"


@pytest.mark.parametrize(
    "cmd",
    [
        "echo tok-only-on-stderr-77 >&2; exit 1",  # the token on stderr, none on stdout
        "printf 'tok-above-a-warning-77\\nwarning: expired\\n'; echo tok-above-a-warning-77 >&2; exit 2",
        "echo tok-on-stdout-77; exit 1",
    ],
)
async def test_a_failing_token_cmd_names_the_command_never_its_output(cmd: str) -> None:
    with pytest.raises(AgentError) as e:
        await command(cmd, Redactor()).run()
    message = str(e.value)
    assert message.startswith("agent 'x': token_cmd `") and "failed (exit " in message
    assert "tok-" not in message and "warning" not in message


async def test_credential_command_is_killed_with_its_children_when_cancelled(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "child.pid"
    task = asyncio.create_task(command(f"sleep 30 & echo $! > {pid_file}; wait", Redactor()).run())
    child = await pid_written(pid_file)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)
    assert await process_gone(child)


def test_wire_log_is_redacted_and_tolerates_a_lost_file(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "wire.log"
    log = WireLog(path, "llama", Redactor("sk-secret-1"))
    log.request("POST", "http://h/v1", {"Authorization": "Bearer sk-secret-1"}, b'{"a": 1}')
    log.response(200)
    log.data(b"data: sk-secret-1\n\n")
    log.line("event {}\n")
    log.note("cut")
    text = path.read_text()
    assert "sk-secret-1" not in text
    assert '>>> headers {"Authorization": "***"}' in text and '>>> body {"a": 1}' in text
    assert "<<< [llama] HTTP 200\n" in text and "data: ***\n\n" in text
    assert text.endswith("<<< [llama] event {}\n--- [llama] cut\n")
    path.unlink()
    path.parent.rmdir()
    log.note("still fine")  # the directory is gone: the write is dropped, not raised
