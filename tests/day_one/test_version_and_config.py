"""``milk-tui --version`` through the real command line, and the ``otel`` config key as a Go
milk config writes it."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

from milk_tui.config.load import load_config
from milk_tui.testing.cli_run import run_milk


def test_version_prints_the_installed_version_on_one_line(tmp_path: Path) -> None:
    for flag in ("--version", "-V"):
        r = run_milk(flag, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert r.stdout == f"milk-tui {version('milk-tui')}\n" and r.stderr == ""


def _load(tmp_path: Path, otel: object) -> tuple[object, list[str]]:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"otel": otel}))
    cfg, warnings, _ = load_config(path)
    return cfg.otel, [w for w in warnings if "otel" in w]


GO_DEFAULTS = {"enabled": True, "log_level": "INFO", "traces": True, "metrics": True,
               "warn_mb": 50, "max_mb": 0, "metrics_flush_minutes": 5}  # fmt: skip


def test_go_default_otel_object_loads_quietly_and_exports_nothing(tmp_path: Path) -> None:
    otel, warnings = _load(tmp_path, GO_DEFAULTS)
    assert warnings == [] and not otel.active  # type: ignore[attr-defined]
    otel, warnings = _load(tmp_path, None)
    assert warnings == [] and not otel.active  # type: ignore[attr-defined]


def test_endpoint_headers_and_switches(tmp_path: Path) -> None:
    otel, warnings = _load(
        tmp_path, {**GO_DEFAULTS, "endpoint": "http://c:4318/", "headers": {"k": "v"}}
    )
    assert warnings == [] and otel.active  # type: ignore[attr-defined]
    assert otel.traces_url() == "http://c:4318/v1/traces"  # type: ignore[attr-defined]
    for off in ({"enabled": False}, {"traces": False}):
        otel, _ = _load(tmp_path, {"endpoint": "http://c:4318/v1/traces", **off})
        assert not otel.active  # type: ignore[attr-defined]


def test_go_file_settings_and_unknown_keys_are_named(tmp_path: Path) -> None:
    _, warnings = _load(tmp_path, {**GO_DEFAULTS, "log_level": "DEBUG", "endpoit": "x"})
    assert len(warnings) == 2
    assert "otel.log_level is not used (milk-tui writes no local OTel log files)" in warnings[0]
    assert "unknown key 'otel.endpoit' ignored" in warnings[1]


def test_a_wrong_type_is_one_line(tmp_path: Path) -> None:

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"otel": {"headers": "Authorization: x"}}))
    cfg, warnings, _ = load_config(path)  # a bad value is one line; the rest still loads
    (line,) = [w for w in warnings if "otel.headers" in w]
    assert "\n" not in line and "Authorization" not in line  # a header may hold a secret
    assert cfg.otel.headers == {}
