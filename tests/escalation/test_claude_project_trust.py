"""Which of a folder's Claude settings reach the CLI: milk's own rules always, a shipped
rule only from a trusted file (by content hash), and the flags that keep an untrusted
folder's settings and ``.mcp.json`` servers out of the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from milk_tui.agents import base as ab
from milk_tui.agents.claude_cli import BASELINE_TOOLS, ClaudeCliAgent
from milk_tui.agents.claude_project import project_trust, store_milk_rules, trust_files
from milk_tui.agents.claude_settings import settings_path
from milk_tui.config.paths import permissions_dir
from milk_tui.config.project_trust import TrustStore, trust_key
from milk_tui.config.settings import AgentConfig
from milk_tui.storage.permission_grants import folder_key


@pytest.fixture
def store(milk_home: Path) -> TrustStore:
    return TrustStore(permissions_dir())


def write(folder: Path, name: str, body: object) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(body))
    return path


def argv(folder: Path) -> list[str]:
    agent = ClaudeCliAgent(AgentConfig(name="claude", provider="claude-cli", bin="/bin/claude"))
    req = ab.AgentRequest(slot="escalation", prompt="hi", cwd=str(folder))
    return agent.build_argv(req, "sid", None)


def allowed(cmd: list[str]) -> list[str]:
    return cmd[cmd.index("--allowedTools") + 1].split(",")


def test_the_trust_file_sits_next_to_the_grants_file(tmp_path: Path) -> None:
    assert trust_key(str(tmp_path)) == folder_key(str(tmp_path))


def test_a_shipped_local_rule_is_left_out_and_milks_own_passes(
    tmp_path: Path, store: TrustStore
) -> None:
    write(tmp_path, ".claude/settings.local.json", {"permissions": {"allow": ["Bash(curl *)"]}})
    store_milk_rules(str(tmp_path), store, ("WebFetch(domain:a.example)",))
    state = project_trust(str(tmp_path), store)
    assert state.rules == ("WebFetch(domain:a.example)",)
    (asked,) = state.ask
    assert asked.allows == ("allow Bash(curl *)",)  # milk's own rule is not asked about
    cmd = argv(tmp_path)
    assert allowed(cmd) == [*BASELINE_TOOLS, "WebFetch(domain:a.example)"]
    assert cmd[cmd.index("--setting-sources") + 1] == "user"


def test_a_folder_with_only_milks_rules_loads_its_settings(
    tmp_path: Path, store: TrustStore
) -> None:
    store_milk_rules(str(tmp_path), store, ("WebFetch(domain:a.example)",))
    state = project_trust(str(tmp_path), store)
    assert state.ask == () and state.load_project_settings and not state.strict_mcp
    assert "--setting-sources" not in argv(tmp_path)


def test_milk_writing_to_a_trusted_file_keeps_it_trusted(tmp_path: Path, store: TrustStore) -> None:
    write(tmp_path, ".claude/settings.local.json", {"permissions": {"allow": ["Bash(make *)"]}})
    trust_files(str(tmp_path), store, project_trust(str(tmp_path), store).ask, True)
    store_milk_rules(str(tmp_path), store, ("WebFetch(domain:a.example)",))
    state = project_trust(str(tmp_path), store)
    assert state.ask == () and state.ignored == ()
    assert state.rules == ("Bash(make *)", "WebFetch(domain:a.example)")
    assert "--setting-sources" not in argv(tmp_path)
    assert json.loads(settings_path(str(tmp_path)).read_text())["permissions"]["allow"] == [
        "Bash(make *)",
        "WebFetch(domain:a.example)",
    ]


def test_a_declined_file_is_not_asked_again_until_it_changes(
    tmp_path: Path, store: TrustStore
) -> None:
    path = write(tmp_path, ".claude/settings.json", {"permissions": {"allow": ["Bash"]}})
    trust_files(str(tmp_path), store, project_trust(str(tmp_path), store).ask, False)
    state = project_trust(str(tmp_path), store)
    assert state.ask == () and [f.name for f in state.ignored] == [".claude/settings.json"]
    assert state.rules == ()
    path.write_text(json.dumps({"permissions": {"allow": ["Bash", "Write"]}}))
    assert [f.name for f in project_trust(str(tmp_path), store).ask] == [".claude/settings.json"]


def test_an_untrusted_mcp_file_lists_its_servers_and_is_kept_out(
    tmp_path: Path, store: TrustStore
) -> None:
    write(tmp_path, ".mcp.json", {"mcpServers": {"evil": {"command": "sh", "args": ["-c", "x"]}}})
    (asked,) = project_trust(str(tmp_path), store).ask
    assert asked.allows == ("MCP server evil: sh -c x",)
    cmd = argv(tmp_path)
    assert "--strict-mcp-config" in cmd and "--setting-sources" not in cmd
    trust_files(str(tmp_path), store, (asked,), True)
    assert "--strict-mcp-config" not in argv(tmp_path)


def test_a_broken_file_is_ignored_and_named(tmp_path: Path, store: TrustStore) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{oops")
    state = project_trust(str(tmp_path), store)
    (f,) = state.ignored
    assert f.allows[0].startswith("not valid JSON")
    assert "--setting-sources" in argv(tmp_path)
