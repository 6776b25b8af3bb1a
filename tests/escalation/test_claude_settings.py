"""The Claude CLI's project settings file: the rules it suggests, and merging "Always"
rules into ``.claude/settings.local.json`` without losing anything of the user's."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from milk_tui.agents.claude_settings import (
    ClaudeSettingsError,
    add_allow_rules,
    allow_rules,
    settings_path,
    suggested_rules,
)


def test_suggested_rules_follow_the_cli_request() -> None:
    req = {
        "tool_name": "Bash",
        "permission_suggestions": [
            {
                "type": "addRules",
                "behavior": "allow",
                "destination": "localSettings",
                "rules": [{"toolName": "Bash", "ruleContent": "npm test *"}],
            },
            {"type": "setMode", "mode": "acceptEdits"},  # not a rule: ignored
            {"type": "addRules", "behavior": "deny", "rules": [{"toolName": "Bash"}]},
        ],
    }
    assert suggested_rules(req) == ("Bash(npm test *)",)
    assert suggested_rules({"tool_name": "mcp__srv__tool"}) == ("mcp__srv__tool",)
    bare = {
        "tool_name": "X",
        "permission_suggestions": [
            {"type": "addRules", "behavior": "allow", "rules": [{"toolName": "X"}]}
        ],
    }
    assert suggested_rules(bare) == ("X",)


def test_merge_keeps_other_keys_order_and_mode(tmp_path: Path) -> None:
    path = settings_path(str(tmp_path))
    path.parent.mkdir()
    path.write_text(json.dumps({"model": "x", "permissions": {"allow": ["Read"], "ask": ["Bash"]}}))
    path.chmod(0o644)
    assert add_allow_rules(str(tmp_path), ["Edit", "Read", "Edit"]) == ["Read", "Edit"]
    assert json.loads(path.read_text()) == {
        "model": "x",
        "permissions": {"allow": ["Read", "Edit"], "ask": ["Bash"]},
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o644  # an existing file keeps its mode
    assert allow_rules(str(tmp_path)) == ["Read", "Edit"]
    assert list(path.parent.iterdir()) == [path]  # no temp file left behind


def test_a_new_file_is_private(tmp_path: Path) -> None:
    add_allow_rules(str(tmp_path), ["WebSearch"])
    path = settings_path(str(tmp_path))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"permissions": {"allow": ["WebSearch"]}}


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("{broken", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"permissions": []}', "'permissions' is not an object"),
        ('{"permissions": {"allow": "Bash"}}', "'permissions.allow' is not a list"),
    ],
)
def test_a_file_we_do_not_understand_is_never_overwritten(
    tmp_path: Path, content: str, why: str
) -> None:
    path = settings_path(str(tmp_path))
    path.parent.mkdir()
    path.write_text(content)
    with pytest.raises(ClaudeSettingsError) as ei:
        add_allow_rules(str(tmp_path), ["Edit"])
    assert str(path) in str(ei.value) and why in str(ei.value)
    assert path.read_text() == content
    assert allow_rules(str(tmp_path)) == []  # reading for argv just finds no rules
