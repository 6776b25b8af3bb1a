"""Every malformed shape is one line naming the problem, and what is valid still loads."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from milk_tui.config import ConfigError, load_config
from milk_tui.testing.cli_run import run_milk

DEMO = {"name": "d", "provider": "demo"}


def _load(tmp_path: Path, data: dict[str, Any]) -> tuple[Any, list[str], Path]:
    p = tmp_path / "config.json"
    p.write_text(json.dumps(data))
    p.chmod(0o600)
    cfg, warnings, _ = load_config(p)
    for w in warnings:
        assert w.startswith(f"{p}: ") and "\n" not in w, w
    return cfg, warnings, p


@pytest.mark.parametrize(
    ("data", "says", "then"),
    [
        ({"agents": "llama"}, "key 'agents': Input should be a valid list (got 'llama')", []),
        ({"agents": [DEMO, 7]}, "key 'agents[1]': Input should be a valid dictionary", ["d"]),
        ({"agents": [{"provider": "demo"}, DEMO]}, "key 'agents[0].name': Field required", ["d"]),
        (
            {"agents": [DEMO, {**DEMO, "name": "D"}]},
            "'D' is used twice; the first (agents[0])",
            ["d"],
        ),
        (
            {"agents": [DEMO, {**DEMO, "name": "x", "timeout_secs": -1}]},
            "agents[1].timeout_secs",
            ["d", "x"],
        ),
        (
            {"agents": [DEMO, {**DEMO, "name": "x", "limits": "none"}]},
            "key 'agents[1].limits'",
            ["d", "x"],
        ),
    ],
)
def test_bad_agents_are_one_line_and_the_valid_ones_load(
    tmp_path: Path, data: dict[str, Any], says: str, then: list[str]
) -> None:
    cfg, warnings, _ = _load(tmp_path, data)
    assert len(warnings) == 1 and says in warnings[0], warnings
    assert [a.name for a in cfg.agents] == then


def test_indices_stay_those_of_the_file_after_an_entry_is_left_out(tmp_path: Path) -> None:
    bad = {"name": "b", "url": "nope"}
    agents = [
        bad,
        DEMO,
        {**bad, "name": "c"},
        {**DEMO, "name": "e", "limits": {"percept_inject_max": "x"}},
    ]
    cfg, warnings, _ = _load(tmp_path, {"agents": agents})
    assert ["agents[0].url" in warnings[0], "agents[2].url" in warnings[1]] == [True, True]
    assert "agents[3].limits.percept_inject_max" in warnings[2]
    assert [a.name for a in cfg.agents] == ["d", "e"]


@pytest.mark.parametrize(
    ("data", "says", "primary", "escalation"),
    [
        ({"agent": "ghost", "agents": [DEMO]}, "key 'agent': no agent named 'ghost' in agents[] (defined: d, claude); using 'd'", "d", "claude"),
        ({"escalation_agent": "ghost", "agents": [DEMO]}, "key 'escalation_agent': no agent named 'ghost' in agents[] (defined: d, claude); using 'claude'", "d", "claude"),
        ({"agent": "ghost"}, "key 'agent': no agent named 'ghost' in agents[] (defined: claude); no primary agent is configured", None, "claude"),
    ],
)  # fmt: skip
def test_a_missing_named_agent_falls_back_to_the_default_choice_and_names_it(
    tmp_path: Path, data: dict[str, Any], says: str, primary: str | None, escalation: str
) -> None:
    cfg, warnings, p = _load(tmp_path, data)
    assert warnings == [f"{p}: {says}"]
    assert getattr(cfg.primary_agent(), "name", None) == primary
    assert cfg.escalation_agent_config().name == escalation


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("percept_inject_max", "lots", "Input should be a valid integer"),
        ("sticky_escalation", "maybe", "Input should be a valid boolean"),
        ("keymap", {"quit": 3}, "key 'keymap.quit'"),
        ("loop_detection", {"enabled": "sometimes"}, "key 'loop_detection.enabled'"),
        ("loop_detection", [1], "key 'loop_detection'"),
        ("config_editors", "vim", "key 'config_editors'"),
    ],
)
def test_a_wrong_typed_key_is_one_line_and_its_default_is_used(
    tmp_path: Path, key: str, value: Any, says: str
) -> None:
    cfg, warnings, _ = _load(tmp_path, {key: value, "agents": [DEMO]})
    assert (
        len(warnings) == 1 and says in warnings[0] and warnings[0].endswith("the default is used")
    )
    assert [a.name for a in cfg.agents] == ["d"]


def test_a_secret_of_the_wrong_type_is_never_echoed(tmp_path: Path) -> None:
    agent = {"name": "x", "provider": "openrouter", "url": "https://h", "api_key": 1234567890123}
    cfg, warnings, _ = _load(tmp_path, {"agents": [agent, DEMO]})
    assert "1234567890123" not in "".join(warnings) and "got a value of type int" in warnings[0]
    assert [a.name for a in cfg.agents] == ["d"]


def test_many_problems_at_once_each_named_once(tmp_path: Path) -> None:
    agents = [{**DEMO, "name": f"a{i}", "timeout_secs": "slow"} for i in range(40)]
    cfg, warnings, _ = _load(tmp_path, {"agents": agents, "percept_inject_max": "x"})
    assert len(warnings) == 41 and len(cfg.agents) == 40


@pytest.mark.parametrize("text", ['{"agents": [', "[1, 2]", "\xff"], ids=["json", "list", "bytes"])
def test_a_file_that_does_not_parse(tmp_path: Path, text: str) -> None:
    p = tmp_path / "config.json"
    p.write_bytes(text.encode("latin-1"))
    with pytest.raises(ConfigError) as e:  # -p: one line, non-zero exit
        load_config(p)
    cfg, warnings, used = load_config(p, skip_broken_file=True)  # the TUI: without it, said so
    assert used == p and cfg.agents == []
    assert warnings == [f"config error: {e.value}; started without it (/config open to fix it)"]


def test_an_environment_type_error_still_stops_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MILK_PERCEPT_INJECT_MAX", "lots")
    with pytest.raises(ConfigError, match="^MILK_PERCEPT_INJECT_MAX: key 'percept_inject_max'"):
        _load(tmp_path, {"agents": [DEMO]})


def test_a_print_run_goes_on_with_what_is_valid(tmp_path: Path, milk_home: Path) -> None:
    cfg = milk_home / "config.toml"
    cfg.write_text(
        'agent = "gone"\npercept_inject_max = "lots"\n'
        '[[agents]]\nname = "d"\nprovider = "demo"\n'
        '[[agents]]\nname = "d"\nprovider = "demo"\n'
        '[[agents]]\nname = "bad"\nurl = "ftp://x"\n'
    )
    r = run_milk("-p", "hello", cwd=tmp_path, env=dict(os.environ))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    lines = [line for line in r.stderr.splitlines() if str(cfg) in line]
    assert len(lines) == 4, r.stderr
    assert all(line.startswith(f"milk-tui: {cfg}: key '") for line in lines)
    assert r.stdout.strip()  # the demo agent 'd' answered
