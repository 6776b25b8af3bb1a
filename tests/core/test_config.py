"""Config resolution, env overrides and error wording."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from milk_tui.config import ConfigError, load_config
from milk_tui.config.settings import AgentConfig, AgentLimits, MilkConfig


def test_defaults_without_a_file():
    cfg, warnings, path = load_config(None)
    assert path is None and warnings == []
    assert cfg.returning_fresh_start_local_turns == 8 and cfg.sticky_escalation
    assert cfg.escalation_agent_config().name == "claude"


def test_env_beats_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    f = tmp_path / "c.toml"
    f.write_text("percept_inject_max = 10\ncontext_budget_chars = 500\n")
    monkeypatch.setenv("MILK_PERCEPT_INJECT_MAX", "3")
    cfg, _, _ = load_config(f)
    assert cfg.percept_inject_max == 3 and cfg.context_budget_chars == 500


def test_env_reaches_into_tables_and_merges_over_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Names match in any case; ``__`` sets one key of a table (the file's other keys stay);
    a JSON table is merged with the ``__`` keys; lists and key maps are JSON."""
    f = tmp_path / "c.json"
    f.write_text(json.dumps({"loop_detection": {"tool_echo_threshold": 7}, "keymap": {"a": "b"}}))
    monkeypatch.setenv("milk_loop_detection__Enabled", "false")
    monkeypatch.setenv("MILK_OTEL", '{"Enabled": false}')
    monkeypatch.setenv("MILK_OTEL__HEADERS", '{"k": "v"}')
    monkeypatch.setenv("MILK_CONFIG_EDITORS", '["vi"]')
    monkeypatch.setenv("MILK_KEYMAP__milk.help", "f2")
    cfg, _, _ = load_config(f)
    assert not cfg.loop_detection.enabled and cfg.loop_detection.tool_echo_threshold == 7
    assert not cfg.otel.enabled and cfg.otel.headers == {"k": "v"}
    assert cfg.config_editors == ["vi"] and cfg.keymap == {"a": "b", "milk.help": "f2"}


def test_without_overrides_the_settings_package_is_not_loaded():
    """pydantic-settings reads the overrides; without any it is not imported (start-up)."""
    import subprocess
    import sys

    code = (
        "import os, sys\n"
        "for k in [k for k in os.environ if k.upper().startswith('MILK_')]: del os.environ[k]\n"
        "from milk_tui.config import load_config\n"
        "load_config(None)\n"
        "print('pydantic_settings' in sys.modules)\n"
        "os.environ['MILK_DEBUG'] = 'true'\n"
        "print(load_config(None)[0].debug, 'pydantic_settings' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n") == ["False", "True True", ""]


def test_milk_config_env_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    f = tmp_path / "x.json"
    f.write_text(json.dumps({"agent": "a", "agents": [{"name": "a", "provider": "demo"}]}))
    monkeypatch.setenv("MILK_CONFIG", str(f))
    cfg, _, path = load_config(None)
    assert path == f and cfg.primary_agent().name == "a"


def test_type_error_names_file_key_and_expectation(tmp_path: Path):
    f = tmp_path / "c.json"
    f.write_text(
        json.dumps(
            {
                "agents": [
                    {"name": "a", "provider": "demo", "limits": {"percept_inject_max": "lots"}}
                ]
            }
        )
    )
    cfg, warnings, _ = load_config(f)  # the bad limit falls back to its default, one line
    [msg] = warnings
    assert str(f) in msg and "agents[0].limits.percept_inject_max" in msg and "integer" in msg
    assert "'lots'" in msg and cfg.agents[0].limits.percept_inject_max is None


def test_unknown_keys_warn(tmp_path: Path):
    f = tmp_path / "c.toml"
    f.write_text('colour = "red"\n[[agents]]\nname = "a"\nprovider = "demo"\nflavour = 1\n')
    _, warnings, _ = load_config(f)
    assert any("'colour'" in w for w in warnings) and any(
        "agents[0].flavour" in w for w in warnings
    )


def test_missing_file_is_clear(tmp_path: Path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.toml")


def test_limit_resolvers():
    cfg = MilkConfig(percept_inject_max=10, local_context_budget_chars=-1)
    ac = AgentConfig(name="a", limits=AgentLimits(percept_inject_max=0, message_budget_chars=None))
    assert cfg.resolve_percept_inject_max(ac) == 25  # zero → built-in default
    assert cfg.resolve_percept_inject_max(AgentConfig(name="b")) == 10  # absent → global
    assert (
        cfg.resolve_percept_inject_max(
            AgentConfig(name="c", limits=AgentLimits(percept_inject_max=-1))
        )
        == 0
    )
    assert cfg.resolve_message_budget(AgentConfig(name="d")) == 0  # negative global → unlimited
    assert cfg.resolve_message_budget(AgentConfig(name="e", context_window_tokens=1000)) == 3000


def test_agent_selection_and_builtin_claude():
    cfg = MilkConfig(
        agents=[
            AgentConfig(name="cli", provider="claude-cli"),
            AgentConfig(name="llama", provider="local", url="http://x"),
        ]
    )
    assert cfg.primary_agent().name == "llama"  # external processes are skipped
    assert cfg.escalation_agent_config().provider == "claude-cli"
    assert [a.name for a in cfg.effective_agents()][-1] == "claude"
    assert AgentConfig(name="o", provider="OpenRouter").uses_bearer


@pytest.mark.parametrize(
    "agent",
    [
        {"provider": "openrouter", "api_key": "sk-or-SECRET123", "url": "https://x"},  # no name
        {"name": "a", "api_key": 918273645546372819},  # wrong type on a secret key
        {"name": "a", "headers": {"Authorization": ["Bearer", "sk-or-SECRET123"]}},
        {"name": "a", "aws_secret": {"value": "sk-or-SECRET123"}},
    ],
)
def test_config_errors_never_echo_secrets(tmp_path: Path, agent: dict):
    """Secrets never reach error messages, even when the entry around them is bad."""
    f = tmp_path / "c.json"
    f.write_text(json.dumps({"agents": [agent]}))
    f.chmod(0o600)
    cfg, warnings, _ = load_config(f)  # the entry is left out, named by one line
    [msg] = [w for w in warnings if "left out" in w]
    assert cfg.agents == [] and str(f) in msg and "agents[0]" in msg
    msg = "\n".join(warnings)
    assert "SECRET123" not in msg and "918273645546372819" not in msg
