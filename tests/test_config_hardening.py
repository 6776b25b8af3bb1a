"""Configuration errors are one line naming the cause: the environment variable for an
override, MILK_HOME when the data folder cannot be used, the key for a value that cannot
work.  Real runs of the command line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from milk_tui.testing.cli_run import run_milk

AGENT = '{"name": "local", "url": "http://127.0.0.1:9"}'


def _run(tmp_path: Path, home: Path, **env: str):
    return run_milk(
        "--demo", "-p", "hi", cwd=tmp_path, env={**os.environ, "MILK_HOME": str(home), **env}
    )


def _one_line_error(r) -> str:
    lines = r.stderr.strip().splitlines()
    assert r.returncode != 0 and len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("var", "value", "says"),
    [
        ("MILK_AGENTS", "notjson", "MILK_AGENTS: invalid JSON"),
        ("MILK_LOOP_DETECTION", "{oops", "MILK_LOOP_DETECTION: invalid JSON"),
        ("MILK_PERCEPT_INJECT_MAX", "lots", "MILK_PERCEPT_INJECT_MAX: key 'percept_inject_max'"),
        ("MILK_AGENTS", '[{"name": "x", "url": "localhost:8080"}]', "agents[0].url"),
        ("MILK_AGENTS", '[{"name": "x", "url": "http://h", "timeout_secs": -5}]', "greater than 0"),
    ],
)
def test_an_environment_override_error_names_the_variable_not_the_file(
    tmp_path: Path, milk_home: Path, var: str, value: str, says: str
) -> None:
    (milk_home / "config.toml").write_text('theme = "milk-dark"\n')
    line = _one_line_error(_run(tmp_path, milk_home, **{var: value}))
    assert line.startswith(f"milk-tui: config error: {var}: ") and says in line
    assert "config.toml" not in line


def test_an_override_holding_a_key_is_not_echoed_when_its_json_is_broken(
    tmp_path: Path, milk_home: Path
) -> None:
    line = _one_line_error(_run(tmp_path, milk_home, MILK_AGENTS='[{"api_key": "sk-abc123456",'))
    assert "MILK_AGENTS" in line and "sk-abc123456" not in line


@pytest.mark.parametrize(
    ("var", "value", "says"),
    [
        ("MILK_AGENTS", f"[{AGENT}, {AGENT}]", "'local' is used twice; the first (agents[0])"),
        ("MILK_ESCALATION_AGENT", "nobody", "no agent named 'nobody'"),
    ],
)
def test_an_environment_override_naming_agents_wrongly_is_a_warning_naming_the_variable(
    tmp_path: Path, milk_home: Path, var: str, value: str, says: str
) -> None:
    r = _run(tmp_path, milk_home, **{var: value})
    assert r.returncode == 0, r.stderr
    assert f"{var}: key " in r.stderr and says in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize(
    ("toml", "says"),
    [
        ('[[agents]]\nname = "a"\nurl = "ftp://host"\n', "key 'agents[0].url'"),
        ('[[agents]]\nname = "a"\nurl = "http://h"\ntimeout_secs = 0\n', "agents[0].timeout_secs"),
        ('[[agents]]\nname = "a"\n[[agents]]\nname = "A"\n', "key 'agents[1].name'"),
        ('agent = "typo"\n[[agents]]\nname = "a"\n', "key 'agent': no agent named 'typo'"),
    ],
)
def test_values_that_cannot_work_are_one_warning_naming_file_and_key_and_the_run_goes_on(
    tmp_path: Path, milk_home: Path, toml: str, says: str
) -> None:
    cfg = milk_home / "config.toml"
    cfg.write_text(toml)
    r = _run(tmp_path, milk_home)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    [line] = [w for w in r.stderr.splitlines() if says in w]
    assert str(cfg) in line


@pytest.mark.parametrize("text", ["agents = [\n", '{"agents": [}'], ids=["toml", "json"])
def test_a_file_that_does_not_parse_stops_a_print_run_with_one_line(
    tmp_path: Path, milk_home: Path, text: str
) -> None:
    cfg = milk_home / ("config.toml" if text.startswith("agents") else "config.json")
    cfg.write_text(text)
    line = _one_line_error(_run(tmp_path, milk_home))
    assert line.startswith(f"milk-tui: config error: {cfg}: invalid ")


def test_misspelt_nested_keys_are_named_and_working_ones_never_reported(
    tmp_path: Path, milk_home: Path
) -> None:
    (milk_home / "config.toml").write_text(
        '[[agents]]\nname = "a"\nprovider = "demo"\n'
        "[agents.limits]\nturn_timout_secs = 5\ntool_timeout_secs = 30\n"
    )
    r = _run(
        tmp_path,
        milk_home,
        MILK_LOOP_DETECTION='{"enabeld": false, "enabled": true}',
    )
    assert r.returncode == 0, r.stderr
    assert "unknown key 'agents[0].limits.turn_timout_secs'" in r.stderr
    assert "MILK_LOOP_DETECTION: unknown key 'loop_detection.enabeld'" in r.stderr
    assert "tool_timeout_secs" not in r.stderr and "'loop_detection.enabled'" not in r.stderr


def test_misspelt_keys_inside_an_agents_override_are_named_with_the_variable(
    tmp_path: Path, milk_home: Path
) -> None:
    agents = '[{"name": "b", "provider": "demo", "limits": {"max_tool_iteratons": 3}}]'
    r = _run(tmp_path, milk_home, MILK_AGENTS=agents)
    assert "MILK_AGENTS: unknown key 'agents[0].limits.max_tool_iteratons' ignored" in r.stderr


def test_milk_home_that_is_a_file_is_one_line_and_exit_1(tmp_path: Path) -> None:
    home = tmp_path / "not-a-dir"
    home.write_text("x")
    for args in (["--demo", "-p", "hi"], ["sessions", "list"], ["memory", "list"]):
        r = run_milk(*args, cwd=tmp_path, env={**os.environ, "MILK_HOME": str(home)})
        assert _one_line_error(r) == f"milk-tui: storage error: MILK_HOME={home}: not a directory"
        assert r.returncode == 1


def test_read_only_milk_home_is_one_line_and_exit_1(tmp_path: Path) -> None:
    # /proc is read-only even for root, so the check holds whoever runs the suite.
    for home in ("/proc/milk-tui-test", "/proc/self"):
        line = _one_line_error(_run(tmp_path, Path(home)))
        assert line.startswith(f"milk-tui: storage error: MILK_HOME={home}: ")
