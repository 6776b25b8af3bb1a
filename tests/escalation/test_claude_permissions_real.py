"""Claude permissions that ask once, against the REAL Claude CLI and the fake Anthropic server.

What the CLI does is the thing under test: a tool in the baseline allow-list runs without
a ``can_use_tool`` request, a rule stored by "Always" stops the next run from asking, a
refused call is granted and the session resumed, and ``AskUserQuestion`` answers reach the
model as the CLI's own tool result.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from milk_tui.agents.base import PermissionAnswer
from milk_tui.agents.claude_settings import settings_path
from milk_tui.engine.dispatch import RETRY_PROMPT
from milk_tui.testing.claude_rig import CliRig
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_anthropic import FakeAnthropic, Reply

pytestmark = pytest.mark.real_peer

FETCH_RULE = "WebFetch(domain:127.0.0.1)"


def _fetch(path: str = "/page") -> Reply:
    return Reply.tool("WebFetch", {"url": f"http://127.0.0.1:9{path}", "prompt": "summarise"})


def _answer_permissions(rig: CliRig, *, allow: bool, always: bool = False) -> None:
    def answer(event: object) -> None:
        if getattr(event, "type", "") == "permission_requested":
            rig.dispatcher.answer_permission(
                event.request_id,  # type: ignore[attr-defined]
                PermissionAnswer(allow, always=always),
            )

    rig.bus.add_listener(answer)


async def test_baseline_tools_run_without_a_question(cli_rig: CliRig) -> None:
    rig = cli_rig
    rig.dispatcher.permission_policy = "ask"
    _answer_permissions(rig, allow=False)  # any question would be refused
    target = rig.cwd / "notes.txt"
    rig.server.push(
        Reply.tool("Write", {"file_path": str(target), "content": "from claude"}),
        Reply.tool("Bash", {"command": "echo baseline-ran", "description": "echo"}),
        Reply.text("Both done."),
    )
    out = await rig.escalate("Write the notes and echo")
    assert out.ok
    assert rig.of("permission_requested") == []
    assert target.read_text() == "from claude"
    results = rig.of("tool_result")
    assert [r.name for r in results] == ["Write", "Bash"]
    assert not any(r.is_error for r in results) and "baseline-ran" in results[1].content


async def test_always_stores_the_cli_rule_and_the_next_run_does_not_ask(cli_rig: CliRig) -> None:
    rig = cli_rig
    rig.dispatcher.permission_policy = "ask"
    settings = settings_path(str(rig.cwd))
    settings.parent.mkdir()
    settings.write_text(json.dumps({"env": {"KEEP": "1"}, "permissions": {"deny": ["Bash(rm *)"]}}))
    _answer_permissions(rig, allow=True, always=True)
    rig.server.push(_fetch(), Reply.text("first"))
    assert (await rig.escalate("fetch it")).ok
    (asked,) = rig.of("permission_requested")
    assert asked.always_rules == (FETCH_RULE,)
    (decided,) = rig.of("permission_decided")
    assert decided.how == "always"
    stored = json.loads(settings.read_text())
    # merged: the user's keys stay, the CLI's rule is added
    assert stored == {
        "env": {"KEEP": "1"},
        "permissions": {"deny": ["Bash(rm *)"], "allow": [FETCH_RULE]},
    }
    rig.events.clear()
    rig.server.push(_fetch("/other"), Reply.text("second"))
    assert (await rig.escalate("fetch again")).ok
    assert rig.of("permission_requested") == [] and rig.of("permission_decided") == []
    (result,) = rig.of("tool_result")
    assert "permission denied" not in result.content  # the CLI ran it (offline, it fails)


async def test_always_creates_the_settings_file_private(cli_rig: CliRig) -> None:
    rig = cli_rig
    rig.dispatcher.permission_policy = "ask"
    _answer_permissions(rig, allow=True, always=True)
    rig.server.push(_fetch(), Reply.text("done"))
    assert (await rig.escalate("fetch it")).ok
    settings = settings_path(str(rig.cwd))
    assert json.loads(settings.read_text()) == {"permissions": {"allow": [FETCH_RULE]}}
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600


async def test_a_broken_settings_file_is_left_alone_and_named(cli_rig: CliRig) -> None:
    rig = cli_rig
    rig.dispatcher.permission_policy = "ask"
    settings = settings_path(str(rig.cwd))
    settings.parent.mkdir()
    settings.write_text("{not json")
    _answer_permissions(rig, allow=True, always=True)
    rig.server.push(_fetch(), Reply.text("done"))
    assert (await rig.escalate("fetch it")).ok  # allowed this once all the same
    assert settings.read_text() == "{not json"
    (warning,) = [n for n in rig.of("notice") if n.level == "warning"]
    assert "settings.local.json" in warning.message and "not valid JSON" in warning.message


async def test_denials_are_listed_and_grant_and_retry_resumes(cli_rig: CliRig) -> None:
    rig = cli_rig  # permission_policy "deny": no one to ask, as in a headless run
    rig.server.push(_fetch(), Reply.text("I was not allowed to fetch."))
    first = await rig.escalate("fetch the page")
    assert first.ok
    (denied,) = rig.of("permissions_denied")
    assert denied.agent_name == "claude"
    (call,) = denied.denials
    assert (call.tool_name, call.summary, call.rules) == (
        "WebFetch",
        "http://127.0.0.1:9/page",
        (FETCH_RULE,),
    )
    sid = rig.session.escalation_session_id
    rig.events.clear()
    rig.server.push(_fetch(), Reply.text("Fetched it this time."))
    task = rig.dispatcher.grant_and_retry()
    assert task is not None
    out = await task
    assert out.ok and out.text == "Fetched it this time."
    assert json.loads(settings_path(str(rig.cwd)).read_text())["permissions"]["allow"] == [
        FETCH_RULE
    ]
    # resumed: the same Claude session, which still holds the first exchange
    assert rig.session.escalation_session_id == sid
    sent = rig.server.message_requests[-2]
    # a resumed CLI session gets this turn's tag block after the prompt (escalation_delta.py)
    assert sent.last_user_text.split("\n\n[Milk: tags for this turn]")[0] == RETRY_PROMPT
    assert "I was not allowed to fetch." in sent.all_message_text
    assert rig.of("permission_decided") == [] and rig.of("permissions_denied") == []
    # nothing left to grant
    assert rig.dispatcher.grant_and_retry() is None


async def test_ask_user_question_round_trip(cli_rig: CliRig) -> None:
    rig = cli_rig
    rig.dispatcher.permission_policy = "ask"
    question = {
        "question": "Which database should we use?",
        "header": "Database",
        "multiSelect": False,
        "options": [
            {"label": "PostgreSQL", "description": "the big one"},
            {"label": "SQLite", "description": "one file"},
        ],
    }

    def answer(event: object) -> None:
        if getattr(event, "type", "") == "question_asked":
            rig.dispatcher.answer_question(
                event.request_id,  # type: ignore[attr-defined]
                {"Which database should we use?": "SQLite"},
            )

    rig.bus.add_listener(answer)
    rig.server.push(
        Reply.tool("AskUserQuestion", {"questions": [question]}), Reply.text("SQLite it is.")
    )
    out = await rig.escalate("set up storage")
    assert out.ok and out.text == "SQLite it is."
    (asked,) = rig.of("question_asked")
    assert asked.agent_name == "claude" and asked.questions == [question]
    assert rig.of("permission_requested") == []
    # the CLI turned our answers into its own tool result for the model
    sent = rig.server.message_requests[-1].all_message_text
    assert '"Which database should we use?"="SQLite"' in sent


async def test_an_unanswerable_question_is_declined_not_listed(cli_rig: CliRig) -> None:
    rig = cli_rig  # headless: no one to answer
    rig.server.push(
        Reply.tool(
            "AskUserQuestion",
            {
                "questions": [
                    {
                        "question": "Tabs or spaces?",
                        "header": "Style",
                        "multiSelect": False,
                        "options": [
                            {"label": "Tabs", "description": "t"},
                            {"label": "Spaces", "description": "s"},
                        ],
                    }
                ]
            },
        ),
        Reply.text("I will pick spaces."),
    )
    assert (await rig.escalate("format it")).ok
    assert rig.of("question_asked") == [] and rig.of("permissions_denied") == []
    assert "did not answer" in rig.server.message_requests[-1].all_message_text


async def test_skip_permissions_covers_claude(cli_rig: CliRig) -> None:
    rig = cli_rig
    rig.dispatcher.permission_policy = "ask"
    rig.dispatcher.permissions.skip_permissions = True
    rig.server.push(_fetch(), Reply.text("done"))
    assert (await rig.escalate("fetch it")).ok
    assert rig.of("permission_requested") == []
    (decided,) = rig.of("permission_decided")
    assert (decided.tool_name, decided.allowed, decided.how) == ("WebFetch", True, "skip")
    assert not settings_path(str(rig.cwd)).exists()  # skipping stores nothing


def test_headless_refusal_is_named_and_a_grant_lets_the_next_run_through(
    claude_bin: str, real_claude_env: dict[str, str], fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    project = tmp_path / "work"
    project.mkdir()
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps({"agents": [{"name": "claude", "provider": "claude-cli", "bin": claude_bin}]})
    )
    env = {**os.environ, **real_claude_env, "MILK_HOME": str(tmp_path / "milk-home")}
    env["MILK_CONFIG"] = str(config)
    fake_anthropic.push(_fetch(), Reply.text("Could not fetch."))
    r = run_milk("-p", "fetch the page", "--escalate", cwd=project, env=env)
    assert r.returncode == 0, r.stderr
    assert (
        "milk-tui: claude was refused: WebFetch http://127.0.0.1:9/page (allow with "
        "--allow-tools or `milk-tui permissions grant WebFetch`)"
    ) in r.stderr
    assert run_milk("permissions", "grant", "WebFetch", cwd=project, env=env).returncode == 0
    fake_anthropic.push(_fetch(), Reply.text("Fetched."))
    r = run_milk("-p", "fetch it again", "--escalate", cwd=project, env=env)
    assert r.returncode == 0 and "refused" not in r.stderr and "Fetched." in r.stdout
