"""A config.json as Go milk's ``Save`` writes it (the whole struct, defaults included, nil
lists as ``null``) loads with no warning; a Go key that asks for something milk-tui does not
do is one warning naming the key and the file; a key that works is never called ignored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.config import load_config

GO_FIXTURE = Path(__file__).with_name("go_config.json")


def _go(tmp_path: Path, **changes: Any) -> Path:
    data = json.loads(GO_FIXTURE.read_text())
    data.update(changes)
    p = tmp_path / "config.json"
    p.write_text(json.dumps(data, indent=2))
    p.chmod(0o600)
    return p


def test_the_go_written_config_loads_without_a_warning(tmp_path: Path) -> None:
    p = tmp_path / "config.json"
    shutil.copy(GO_FIXTURE, p)
    p.chmod(0o600)
    cfg, warnings, used = load_config(p)
    assert warnings == [] and used == p
    assert [a.name for a in cfg.agents] == ["qwen", "openrouter", "claude"]
    assert cfg.primary_agent().name == "qwen" and cfg.escalation_agent_config().name == "claude"
    assert cfg.agents[0].limits.max_tool_iterations == 30
    assert cfg.agents[1].mcp_servers is None  # Go's null: every server, as absent
    assert cfg.loop_detection.enabled and cfg.mcp_servers == []


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("debug_local", True),
        ("aws_auth_refresh", True),
        ("experimental_permission_management", True),
    ],
)
def test_a_go_key_asking_for_something_unsupported_is_one_warning(
    tmp_path: Path, key: str, value: Any
) -> None:
    p = _go(tmp_path, **{key: value})
    _, warnings, _ = load_config(p)
    assert warnings == [f"{p}: key '{key}' is not supported by milk-tui yet; ignored"]


def test_agent_keys_are_named_one_line_each(tmp_path: Path) -> None:
    data = json.loads(GO_FIXTURE.read_text())
    data["agents"][0].update(extra_args=["--x"], tls_ca_cert="/etc/ca.pem", flavour="mild")
    p = _go(tmp_path, agents=data["agents"])
    _, warnings, _ = load_config(p)
    # Every agent key of a Go config works here: only the unknown one is named.
    assert warnings == [f"{p}: unknown key 'agents[0].flavour' ignored"]


def test_sampling_keys_work_and_are_never_called_ignored(tmp_path: Path) -> None:
    data = json.loads(GO_FIXTURE.read_text())
    sampling = {"temperature": 0.2, "max_tokens": 512, "top_p": 0.9, "seed": 7, "stop": ["</s>"]}
    data["agents"][0].update(sampling)
    p = _go(tmp_path, agents=data["agents"])
    cfg, warnings, _ = load_config(p)
    assert warnings == []
    agent = OpenAICompatAgent(cfg.agents[0])
    assert agent._extra_body == sampling  # sent with each request


def test_a_wrong_typed_sampling_key_is_one_line_naming_key_type_and_value(tmp_path: Path) -> None:
    data = json.loads(GO_FIXTURE.read_text())
    data["agents"][0]["temperature"] = "hot"
    p = _go(tmp_path, agents=data["agents"])
    cfg, warnings, _ = load_config(p)
    assert warnings == [
        f"{p}: key 'agents[0].temperature': Input should be a valid number, unable to parse "
        "string as a number (got 'hot'); the default is used"
    ]
    assert cfg.primary_agent().name == "qwen" and cfg.agents[0].temperature is None


def test_a_bad_address_leaves_that_agent_out_and_says_which_agent_answers(
    tmp_path: Path,
) -> None:
    data = json.loads(GO_FIXTURE.read_text())
    data["agents"][0]["url"] = "localhost:8080"
    p = _go(tmp_path, agents=data["agents"])
    cfg, warnings, _ = load_config(p)
    assert warnings == [
        f"{p}: key 'agents[0].url': expected an http:// or https:// URL (got 'localhost:8080'); "
        "agent 'qwen' left out",
        f"{p}: key 'agent': no agent named 'qwen' in agents[] (defined: openrouter, claude); "
        "using 'openrouter'",
    ]
    assert cfg.primary_agent().name == "openrouter"


def test_rules_keys_are_those_the_router_reads_and_unknown_ones_are_named(tmp_path: Path) -> None:
    from dataclasses import fields

    from milk_tui.config.go_keys import RULES_KEYS
    from milk_tui.engine.router_rules import RouterRules

    defaults = RouterRules()
    assert {f.name: type(getattr(defaults, f.name)) for f in fields(RouterRules)} == RULES_KEYS
    rules = json.loads(GO_FIXTURE.read_text())["rules"]
    p = _go(tmp_path, rules={**rules, "escalate_treshold": 9})
    _, warnings, _ = load_config(p)
    assert warnings == [f"{p}: unknown key 'rules.escalate_treshold' ignored"]


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("escalate_threshold", "high", "expected an integer (got 'high')"),
        ("local_verbs", "grep", "expected a list of strings (got 'grep')"),
        ("escalate_keywords", [1, 2], "expected a list of strings (got a list of 2 items)"),
    ],
)
def test_a_wrong_typed_rule_is_one_line_and_the_router_keeps_its_default(
    tmp_path: Path, key: str, value: Any, says: str
) -> None:
    from milk_tui.engine.router_rules import RouterRules

    rules = json.loads(GO_FIXTURE.read_text())["rules"]
    p = _go(tmp_path, rules={**rules, key: value, "local_threshold": "-5"})
    cfg, warnings, _ = load_config(p)
    assert warnings == [f"{p}: key 'rules.{key}': {says}; the default is used"]
    router = RouterRules.from_config(cfg.rules)
    assert getattr(router, key) == getattr(RouterRules(), key)
    assert router.local_threshold == -5  # a number written as a string is read, as before


def test_unknown_keys_in_list_entries_are_named(tmp_path: Path) -> None:
    data = json.loads(GO_FIXTURE.read_text())
    data["agents"][1]["tools"] = [{"agent": "qwen", "descripton": "x"}]
    mcp = [
        {"name": "gh", "command": "gh-mcp", "tls_skip_verify": False, "oauth_client_id": ""},
        {"name": "db", "url": "https://db", "transport": "http", "oauth_client_id": "abc", "x": 1},
    ]
    p = _go(
        tmp_path, agents=data["agents"], mcp_servers=mcp, agent_tools=[{"agent": "qwen", "on": 1}]
    )
    _, warnings, _ = load_config(p)
    assert warnings == [
        f"{p}: key 'mcp_servers[1].oauth_client_id' is not supported by milk-tui yet; ignored",
        f"{p}: unknown key 'mcp_servers[1].x' ignored",
        f"{p}: unknown key 'agent_tools[0].on' ignored",
        f"{p}: unknown key 'agents[1].tools[0].descripton' ignored",
    ]
