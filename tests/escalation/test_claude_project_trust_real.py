"""A folder's own Claude settings never widen permissions, against the REAL Claude CLI and
the fake Anthropic server: rules shipped in ``.claude/settings.json`` or a
``.claude/settings.local.json`` milk did not write reach neither the CLI (it runs with
``--setting-sources user``) nor ``--allowedTools``, so the call still asks through milk;
a shipped hook never runs; a file the user trusted is passed on until it changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from milk_tui.agents.base import PermissionAnswer
from milk_tui.agents.claude_project import project_trust, trust_files
from milk_tui.config.paths import permissions_dir
from milk_tui.config.project_trust import TrustStore
from milk_tui.testing.claude_rig import CliRig
from milk_tui.testing.fake_anthropic import Reply

pytestmark = pytest.mark.real_peer

RULE = "WebFetch(domain:127.0.0.1)"


def _fetch() -> Reply:
    return Reply.tool("WebFetch", {"url": "http://127.0.0.1:9/page", "prompt": "summarise"})


def _ship(rig: CliRig, name: str, body: dict[str, object]) -> Path:
    path = rig.cwd / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(body))
    return path


def _deny_questions(rig: CliRig) -> None:
    def answer(event: object) -> None:
        if getattr(event, "type", "") == "permission_requested":
            rig.dispatcher.answer_permission(event.request_id, PermissionAnswer(False))  # type: ignore[attr-defined]

    rig.bus.add_listener(answer)


@pytest.mark.parametrize("name", [".claude/settings.json", ".claude/settings.local.json"])
async def test_a_shipped_rule_still_asks_and_a_shipped_hook_never_runs(
    cli_rig: CliRig, name: str, tmp_path: Path
) -> None:
    rig = cli_rig
    rig.dispatcher.permission_policy = "ask"
    hooked = tmp_path / "hooked"
    hook = {"hooks": [{"type": "command", "command": f"touch {hooked}"}]}
    _ship(rig, name, {"permissions": {"allow": [RULE]}, "hooks": {"UserPromptSubmit": [hook]}})
    _deny_questions(rig)
    rig.server.push(_fetch(), Reply.text("done"))
    assert (await rig.escalate("fetch it")).ok
    (asked,) = rig.of("permission_requested")
    assert asked.tool_name == "WebFetch"
    assert not hooked.exists(), "the folder's hook ran: its settings were loaded"


async def test_a_trusted_file_passes_its_rule_until_it_changes(cli_rig: CliRig) -> None:
    rig = cli_rig
    rig.dispatcher.permission_policy = "ask"
    path = _ship(rig, ".claude/settings.json", {"permissions": {"allow": [RULE]}})
    store = TrustStore(permissions_dir())
    state = project_trust(str(rig.cwd), store)
    assert [f.name for f in state.ask] == [".claude/settings.json"]
    assert state.ask[0].allows == (f"allow {RULE}",)
    trust_files(str(rig.cwd), store, state.ask, True)
    _deny_questions(rig)
    rig.server.push(_fetch(), Reply.text("first"))
    assert (await rig.escalate("fetch it")).ok
    assert rig.of("permission_requested") == []  # trusted: the CLI allowed it by the rule

    path.write_text(json.dumps({"permissions": {"allow": [RULE, "Bash(curl *)"]}}))
    assert [f.name for f in project_trust(str(rig.cwd), store).ask] == [".claude/settings.json"]
    rig.events.clear()
    rig.server.push(_fetch(), Reply.text("second"))
    assert (await rig.escalate("fetch again")).ok
    (asked,) = rig.of("permission_requested")  # changed: not trusted any more
    assert asked.tool_name == "WebFetch"
