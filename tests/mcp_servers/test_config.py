"""``mcp_servers`` in a config file: the reference's names and values load, bad entries are
named, an agent's list picks its servers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from milk_tui.config.load import load_config
from milk_tui.config.mcp import McpServerConfig, servers_for_agent


def test_a_go_config_entry_loads_with_its_names_and_durations(tmp_path: Path) -> None:
    f = tmp_path / "config.json"
    f.write_text(
        json.dumps(
            {
                "mcp_servers": [
                    {"name": "jira", "transport": "http", "url": "https://j/mcp", "auth": "bearer",
                     "api_key": "k", "timeout": "90s", "connect_timeout": 5, "enabled": None},
                    {"name": "fs", "command": "npx", "args": ["-y", "fs"], "env": {"A": "b"}},
                    {"name": "web", "transport": "streamableHttp", "url": "http://w/mcp"},
                    {"name": "old", "transport": "sse", "url": "http://o/sse", "enabled": False},
                ],
                "agents": [{"name": "a", "provider": "demo", "mcp_servers": ["fs", "nope"]}],
            }
        )
    )  # fmt: skip
    f.chmod(0o600)  # it holds a key: readable by others would be a warning of its own
    cfg, warnings, _ = load_config(f)
    jira, fs, web, old = cfg.mcp_servers
    assert (jira.transport, jira.call_timeout, jira.start_timeout, jira.enabled) == (
        "http", 90.0, 5.0, True,
    )  # fmt: skip
    assert (fs.transport, fs.call_timeout, fs.start_timeout) == ("stdio", 120.0, 30.0)
    assert web.transport == "http" and old.transport == "sse" and not old.enabled
    assert warnings == ["agent 'a': mcp_servers names unknown server 'nope'"]
    assert [s.name for s in servers_for_agent(cfg.mcp_servers, ["fs"])] == ["fs"]
    assert [s.name for s in servers_for_agent(cfg.mcp_servers, None)] == ["jira", "fs", "web"]


def test_toml_and_an_entry_with_only_a_url_is_http(tmp_path: Path) -> None:
    f = tmp_path / "config.toml"
    f.write_text('[[mcp_servers]]\nname = "x"\nurl = "http://x/mcp"\n')
    cfg, warnings, _ = load_config(f)
    assert cfg.mcp_servers[0].transport == "http" and warnings == []


@pytest.mark.parametrize(
    ("entry", "warning"),
    [
        ({"name": "h", "transport": "http"}, "mcp server 'h': transport http needs a url"),
        ({"name": "s"}, "mcp server 's': transport stdio needs a command"),
        ({"name": ""}, "mcp_servers: an entry has no name; it is ignored"),
    ],
)
def test_unusable_entries_are_named(tmp_path: Path, entry: dict[str, str], warning: str) -> None:
    f = tmp_path / "config.json"
    f.write_text(json.dumps({"mcp_servers": [entry, {**entry}]}))
    _, warnings, _ = load_config(f)
    assert warning in warnings


@pytest.mark.parametrize(
    ("entry", "key"),
    [({"name": "x", "transport": "grpc"}, "transport"), ({"name": "x", "timeout": "soon"}, "timeout"),
     ({"name": "x", "auth": "magic"}, "auth")],
)  # fmt: skip
def test_bad_values_are_one_line_naming_the_key_and_the_entry_is_left_out(
    tmp_path: Path, entry: dict[str, str], key: str
) -> None:
    f = tmp_path / "config.json"
    f.write_text(json.dumps({"mcp_servers": [entry, {"name": "ok", "command": "true"}]}))
    cfg, warnings, _ = load_config(f)
    [line] = warnings
    assert f"key 'mcp_servers[0].{key}'" in line and line.endswith("MCP server 'x' left out")
    assert [s.name for s in cfg.mcp_servers] == ["ok"]


def test_duplicate_names_keep_the_first() -> None:
    a = McpServerConfig(name="dup", command="a")
    b = McpServerConfig(name="DUP", command="b")
    assert servers_for_agent([a, b], None) == [a]


@pytest.mark.parametrize(
    ("entry", "where"),
    [
        ({"name": "gh", "command": "gh-mcp", "env": {"GITHUB_TOKEN": "ghp_x1y2z3w4"}}, "env"),
        ({"name": "j", "url": "https://j/mcp", "auth": "bearer", "api_key": "k-123"}, "api_key"),
        ({"name": "fs", "command": "fs-mcp", "env": {"ROOT": "/srv/data"}}, ""),
    ],
)
def test_a_readable_config_with_a_server_credential_is_one_warning(
    tmp_path: Path, entry: dict, where: str
) -> None:
    f = tmp_path / "config.json"
    f.write_text(json.dumps({"mcp_servers": [entry]}))
    f.chmod(0o644)
    _, warnings, _ = load_config(f)
    said = [w for w in warnings if "holds a secret" in w]
    if where:
        assert said == [
            f"{f}: holds a secret (mcp_servers[0].{where}) and is readable by others "
            f"(mode 644); fix: chmod 600 {f}"
        ]
    else:
        assert said == []
