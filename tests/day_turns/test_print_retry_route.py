"""Print mode's own advice, followed: re-running a prompt (with ``--allow-tools``) goes where
the first run went; when a routing rule sends a prompt to the paid agent, stderr says why."""

from __future__ import annotations

from pathlib import Path

from milk_tui.testing.cli_run import run_milk as milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

PROMPT = "please read the file notes.txt and tell me what it says"


def _config(milk_home: Path, url: str) -> None:
    (milk_home / "config.toml").write_text(
        f'agent = "llama"\nescalation_agent = "demo"\n[[agents]]\nname = "llama"\n'
        f'provider = "local"\nurl = "{url}"\n[[agents]]\nname = "demo"\nprovider = "demo"\n'
    )


def test_rerun_with_allow_tools_goes_to_the_primary_again(tmp_path: Path, milk_home: Path):
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["it says hello"])
        _config(milk_home, srv.url)
        first = milk("-p", PROMPT, cwd=tmp_path)
        again = milk("-p", PROMPT, "--allow-tools", cwd=tmp_path)
        asked = len(srv.chat_requests)
    assert first.returncode == 0 and again.returncode == 0, again.stderr
    assert asked == 2  # both runs were answered by the primary
    assert again.stdout.strip() == "it says hello"
    assert "escalated" not in again.stderr


def test_forced_primary_repeated_in_one_sitting_stays_with_the_primary(
    tmp_path: Path, milk_home: Path
):
    import asyncio

    from milk_tui.facade.application import start
    from milk_tui.model import events as ev

    async def two_turns(url: str) -> list[str]:
        app = start(cwd=str(tmp_path), permission_policy="deny")
        answered: list[str] = []
        app.add_listener(
            lambda e: answered.append(e.agent_name) if isinstance(e, ev.TurnCompleted) else None
        )
        try:
            await app.run_turn(PROMPT, force="primary")
            await app.run_turn(PROMPT, force="primary")
            return answered
        finally:
            await app.aclose()

    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["it says hello"])
        _config(milk_home, srv.url)
        assert asyncio.run(two_turns(srv.url)) == ["llama", "llama"]
        assert len(srv.chat_requests) == 2


def test_a_rule_that_escalates_says_why_on_stderr(tmp_path: Path, milk_home: Path):
    with FakeOpenAIServer() as srv:
        _config(milk_home, srv.url)
        r = milk("-p", "please refactor entire module layout", cwd=tmp_path)
        forced = milk("-p", "please refactor entire module layout", "--escalate", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if "escalated" in ln]
    assert lines == ["milk-tui: escalated to demo: escalate keyword 'refactor entire'"]
    assert "escalated" not in forced.stderr  # asked for: nothing to explain


def test_the_primarys_hand_off_says_why_on_stderr(tmp_path: Path, milk_home: Path):
    """The repeated-prompt guard still works within one sitting (the TUI), and a hand-off it
    causes is explained in print mode's stderr too (here: the escalate tool)."""
    from milk_tui.testing.fake_openai_reply import FakeToolCall

    with FakeOpenAIServer() as srv:
        srv.enqueue(
            FakeReply(
                tool_calls=[FakeToolCall(name="escalate", arguments='{"reason": "too hard"}')]
            )
        )
        _config(milk_home, srv.url)
        r = milk("-p", PROMPT, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "milk-tui: escalated to demo: the primary handed it on: too hard" in r.stderr
