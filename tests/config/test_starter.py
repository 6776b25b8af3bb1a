"""``/config init``'s starter file: loads as all defaults, every setting line it shows is a
real key, written 0600 and never over an existing config."""

from __future__ import annotations

import re
import stat
import tomllib
from pathlib import Path

from milk_tui.config import load_config
from milk_tui.config.settings import MilkConfig
from milk_tui.config.starter import STARTER_TOML, write_starter

SETTING = re.compile(r"^#(?=\[|\w)", re.MULTILINE)


def test_the_starter_loads_as_all_defaults(tmp_path: Path) -> None:
    path, written = write_starter(tmp_path / "cfg")
    assert written and path == tmp_path / "cfg" / "config.toml"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    cfg, warnings, _ = load_config(path)
    assert warnings == [] and cfg == MilkConfig()


def test_every_setting_line_is_a_known_key_with_a_valid_value(tmp_path: Path) -> None:
    uncommented = SETTING.sub("", STARTER_TOML)
    data = tomllib.loads(uncommented)
    assert {"agent", "escalation_agent", "agents", "theme", "config_editors"} <= set(data)
    p = tmp_path / "all.toml"
    p.write_text(uncommented)
    p.chmod(0o600)
    cfg, warnings, _ = load_config(p)
    assert warnings == [], warnings  # no unknown key, no bad value
    assert [a.name for a in cfg.agents] == ["llama", "openrouter", "claude"]
    assert cfg.agents[0].temperature == 0.2


def test_every_main_key_is_in_the_starter() -> None:
    main = set(MilkConfig.model_fields) - {
        "agent_tools", "mcp_servers", "keymap", "rules", "loop_detection", "show_reasoning",
        "memory_reinjection_turns", "memory_reinjection_bytes", "local_memory_result_max_bytes",
    }  # fmt: skip
    shown = set(re.findall(r"^#(\w+) =|^#\[\[(\w+)\]\]", STARTER_TOML, re.MULTILINE))
    shown = {a or b for a, b in shown}
    assert main - shown == set()


def test_an_existing_config_is_never_replaced(tmp_path: Path) -> None:
    for name in ("config.toml", "config.json"):
        d = tmp_path / name
        d.mkdir()
        (d / name).write_text("{}" if name.endswith("json") else "")
        assert write_starter(d) == (d / name, False)
        assert sorted(p.name for p in d.iterdir()) == [name]
        assert (d / name).read_text() in ("", "{}")
