"""``milk-tui config [path|show|init|open]`` and ``milk-tui metrics`` as a user runs them
(a subprocess of the real entry point, MILK_HOME in a temp dir)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from milk_tui.testing.cli_run import run_milk

KEY = "sk-config-show-secret-9876"


def test_config_path_init_show_open(tmp_path: Path, milk_home: Path) -> None:
    r = run_milk("config", "path", cwd=tmp_path)
    assert r.returncode == 1 and "running on defaults" in r.stderr and r.stdout == ""
    r = run_milk("config", "init", cwd=tmp_path)
    assert r.returncode == 0 and str(milk_home / "config.toml") in r.stdout
    starter = (milk_home / "config.toml").read_text()
    r = run_milk("config", "init", cwd=tmp_path)
    assert r.returncode == 1 and "exists: left as it is" in r.stderr
    assert (milk_home / "config.toml").read_text() == starter
    assert run_milk("config", cwd=tmp_path).stdout.strip() == str(milk_home / "config.toml")
    (milk_home / "config.toml").write_text(
        'agent = "llama"\n[[agents]]\nname = "llama"\nprovider = "local"\n'
        f'url = "http://user:pw-secret@127.0.0.1:9/v1"\nmodel = "m"\napi_key = "{KEY}"\n'
        '[agents.headers]\nX-Api-Key = "hdr-secret-1234"\nX-Team = "milk"\n'
    )
    r = run_milk("config", "show", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    shown = json.loads(r.stdout)
    (llama,) = [a for a in shown["agents"] if a["name"] == "llama"]
    assert llama["api_key"] == "***" and llama["headers"] == {"X-Api-Key": "***", "X-Team": "milk"}
    assert llama["url"] == "http://***@127.0.0.1:9/v1" and llama["model"] == "m"
    for secret in (KEY, "pw-secret", "hdr-secret-1234"):
        assert secret not in r.stdout
    # open: $VISUAL runs on the file in use
    editor = tmp_path / "ed.sh"
    editor.write_text(f'#!/bin/sh\necho "edited $1" > "{tmp_path}/ed.log"\n')
    editor.chmod(0o755)
    env = {**os.environ, "VISUAL": str(editor), "EDITOR": ""}
    r = run_milk("config", "open", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "ed.log").read_text().strip() == f"edited {milk_home / 'config.toml'}"
    env["VISUAL"] = "false"
    r = run_milk("config", "open", cwd=tmp_path, env=env)
    assert r.returncode == 1 and "false exited with 1" in r.stderr


def test_metrics_cli_table_json_and_trim(tmp_path: Path, milk_home: Path) -> None:
    now = time.time()
    recs = [
        {"kind": "turn", "ts": now - 10 * 86400, "agent": "llama", "seconds": 9.0, "ok": True},
        {"kind": "turn", "ts": now - 60, "agent": "llama", "seconds": 1.0, "ok": False,
         "first_token_seconds": 0.5, "cost_usd": 0.25, "tools": [{"name": "bash", "ok": True}]},
    ]  # fmt: skip
    (milk_home / "otel").mkdir()
    (milk_home / "otel" / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    r = run_milk("metrics", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    head, row, total = r.stdout.splitlines()
    assert head.split()[:3] == ["AGENT", "TURNS", "ERRORS"]
    assert row.split() == ["llama", "2", "1", "0", "0", "0.2500", "1.00", "9.00", "0.50", "1"]
    assert total.startswith("2 turns in ")
    data = json.loads(run_milk("metrics", "--json", cwd=tmp_path).stdout)
    assert data["turns"] == 2 and data["agents"][0]["p95_seconds"] == 9.0
    assert data["tools"] == {"bash": 1}
    r = run_milk("metrics", "trim", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip().endswith(
        "kept 1 turns of the last 7 days, removed 1"
    )
    assert json.loads(run_milk("metrics", "--json", cwd=tmp_path).stdout)["turns"] == 1
