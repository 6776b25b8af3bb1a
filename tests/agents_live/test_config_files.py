"""The config writer and the config diff on real files (fast: no app)."""

from __future__ import annotations

import json
import stat
import tomllib
from pathlib import Path

import pytest

from milk_tui.config.diff import config_diff
from milk_tui.config.load import ConfigError, load_config
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.config.writer import add_agent, remove_agent


def test_inline_agents_array_and_removing_the_last_entry(tmp_path: Path) -> None:
    p = tmp_path / "config.toml"
    p.write_text('# keep me\nagents = [{ name = "a", url = "http://127.0.0.1:1" }]  # inline\n')
    add_agent(p, {"name": "b", "provider": "demo", "model": "", "api_key": ""})
    data = tomllib.loads(p.read_text())
    assert data["agents"] == [
        {"name": "a", "url": "http://127.0.0.1:1"},
        {"name": "b", "provider": "demo"},
    ]
    assert p.read_text().startswith("# keep me\n")
    assert remove_agent(p, "A") and remove_agent(p, "b")
    assert not remove_agent(p, "b")
    assert "agents" not in tomllib.loads(p.read_text()) and "# keep me" in p.read_text()
    cfg, _, _ = load_config(p)
    assert cfg.agents == []


def test_a_new_file_is_0600_and_loads(tmp_path: Path) -> None:
    (tmp_path / "new").mkdir()
    p = tmp_path / "new" / "config.toml"
    add_agent(p, {"name": "x", "url": "http://127.0.0.1:9", "api_key": "sk-abcdefgh12345"})
    assert stat.S_IMODE(p.stat().st_mode) == 0o600
    cfg, warnings, _ = load_config(p)
    assert [a.name for a in cfg.agents] == ["x"] and warnings == []
    assert list(p.parent.iterdir()) == [p]  # no temp file left behind


def test_json_keeps_other_keys_and_broken_files_are_one_line(tmp_path: Path) -> None:
    p = tmp_path / "config.json"
    p.write_text(json.dumps({"theme": "x", "update_check": True, "agents": []}))
    add_agent(p, {"name": "a", "url": "http://127.0.0.1:1"})
    assert json.loads(p.read_text()) == {
        "theme": "x", "update_check": True, "agents": [{"name": "a", "url": "http://127.0.0.1:1"}]
    }  # fmt: skip
    p.write_text("{not json")
    with pytest.raises(ConfigError, match=r"invalid JSON at line 1"):
        add_agent(p, {"name": "b"})
    t = tmp_path / "bad.toml"
    t.write_text("agents = [\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        remove_agent(t, "a")
    j = tmp_path / "other.json"
    j.write_text(json.dumps({"agents": "x"}))
    with pytest.raises(ConfigError, match="key 'agents': expected a list"):
        add_agent(j, {"name": "b"})


def test_diff_names_agents_and_keys_never_values() -> None:
    a = AgentConfig(name="one", url="http://127.0.0.1:1", api_key="sk-secret-1")
    old = MilkConfig(agents=[a, AgentConfig(name="gone")], theme="t1")
    new = MilkConfig(
        agents=[a.model_copy(update={"api_key": "sk-secret-2"}), AgentConfig(name="New")],
        theme="t2",
        sticky_escalation=False,
    )
    d = config_diff(old, new)
    assert d.lines() == [
        "agents added: New",
        "agents removed: gone",
        "agents changed: one (api_key)",
        "keys changed: sticky_escalation, theme",
    ]
    assert not config_diff(old, old) and "sk-secret" not in " ".join(d.lines())
