"""Which config file is used: --config, MILK_CONFIG, MILK_HOME, the platform config dir,
then a Go install's ~/.milk/config.json (read as is, with one notice naming it)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from milk_tui.config import load_config
from milk_tui.config.paths import config_dir, resolution_order, resolve_config_file
from milk_tui.testing.cli_run import run_milk

GO_FIXTURE = Path(__file__).with_name("go_config.json")


def _go_install(home: Path) -> Path:
    go = home / ".milk" / "config.json"
    go.parent.mkdir(mode=0o700)
    shutil.copy(GO_FIXTURE, go)
    go.chmod(0o600)
    return go


def test_the_go_config_is_the_last_fallback_with_one_notice(user_home: Path) -> None:
    go = _go_install(user_home)
    assert resolve_config_file() == (go, "Go milk")
    cfg, warnings, used = load_config()
    assert used == go and cfg.primary_agent().name == "qwen"
    assert warnings == [f"reading the Go milk config {go} as is (no milk-tui config found)"]


def test_the_platform_config_dir_comes_before_the_go_config(user_home: Path) -> None:
    _go_install(user_home)
    own = config_dir() / "config.json"
    assert own.is_relative_to(user_home)  # XDG_CONFIG_HOME in tmp
    own.parent.mkdir(parents=True)
    own.write_text(json.dumps({"agents": [{"name": "mine", "provider": "demo"}]}))
    cfg, warnings, used = load_config()
    assert used == own and cfg.primary_agent().name == "mine" and warnings == []
    toml = own.with_name("config.toml")
    toml.write_text('[[agents]]\nname = "toml"\nprovider = "demo"\n')
    assert resolve_config_file() == (toml, "config dir")  # TOML before JSON in one folder


def test_milk_config_then_flag_win(user_home: Path, tmp_path: Path, monkeypatch) -> None:
    _go_install(user_home)
    env_file, flag_file = tmp_path / "env.toml", tmp_path / "flag.toml"
    env_file.write_text('theme = "env"\n')
    flag_file.write_text('theme = "flag"\n')
    monkeypatch.setenv("MILK_CONFIG", str(env_file))
    assert load_config()[0].theme == "env"
    assert load_config(flag_file)[0].theme == "flag"


def test_milk_home_is_a_home_of_its_own_the_go_config_is_not_read(
    user_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _go_install(user_home)
    monkeypatch.setenv("MILK_HOME", str(tmp_path / "mh"))
    assert resolve_config_file() == (None, "")
    assert not any(".milk" in line for line in resolution_order())
    (tmp_path / "mh").mkdir()
    (tmp_path / "mh" / "config.toml").write_text("")
    assert resolve_config_file() == (tmp_path / "mh" / "config.toml", "MILK_HOME")


def test_resolution_order_as_shown(user_home: Path) -> None:
    order = resolution_order()
    assert order[:2] == ["--config PATH", "MILK_CONFIG"]
    assert str(config_dir() / "config.toml") in order[2] and "platform config dir" in order[2]
    assert order[3].startswith(str(user_home / ".milk" / "config.json"))


def test_a_go_users_print_run_uses_their_config_unchanged(user_home: Path, tmp_path: Path) -> None:
    go = _go_install(user_home)
    cfg = json.loads(go.read_text())
    cfg["agents"].insert(0, {"name": "demo-go", "provider": "demo"})
    cfg["agent"] = "demo-go"
    go.write_text(json.dumps(cfg, indent=2))
    r = run_milk("-p", "hello there", cwd=tmp_path, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert (
        r.stderr.splitlines()[0]
        == f"milk-tui: reading the Go milk config {go} as is (no milk-tui config found)"
    )
    assert "Traceback" not in r.stderr and r.stdout.strip()
