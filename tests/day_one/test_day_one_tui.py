"""The day-one commands through the real TUI (Pilot): /export, /drop, /otel and the
one-line answers to Go milk commands milk-tui does not have."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from tui.conftest import make_app, type_and_send

from milk_tui.tui.commands import parse_slash
from milk_tui.tui.redirects import REDIRECTS
from milk_tui.tui.screens.confirm_modal import ConfirmModal
from milk_tui.tui.widgets.conversation import Conversation


def lines(app, kind: str | None = None) -> list[str]:  # type: ignore[no-untyped-def]
    items = app.main_screen.query_one(Conversation).items
    return [it.text for it in items if kind is None or it.kind == kind]


async def test_export_markdown_json_and_text_0600(tmp_path: Path) -> None:
    app = make_app(cwd=str(tmp_path), session="export")
    old = os.umask(0o022)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await type_and_send(pilot, "/primary what is a monad")
            await type_and_send(pilot, "/escalate design a cache")
            await type_and_send(pilot, "/export")
            await type_and_send(pilot, "/export json")
            await type_and_send(pilot, f"/export {tmp_path / 'plain.txt'}")
            sid = app.facade.session_id
            notices = lines(app, "notice")
    finally:
        os.umask(old)
    md = tmp_path / f"milk-transcript-{sid[:8]}.md"
    text = md.read_text()
    assert "### ❯ Prompt 1 → demo-local (primary)" in text
    assert "### ❯ Prompt 2 → demo-claude (escalation)" in text
    assert "**demo-claude** (escalation):" in text
    doc = json.loads((tmp_path / f"milk-transcript-{sid[:8]}.json").read_text())
    assert doc["id"] == sid and [h["role"] for h in doc["history"]][:2] == ["user", "assistant"]
    assert "❯ design a cache    [→ demo-claude]" in (tmp_path / "plain.txt").read_text()
    for name in (md.name, f"milk-transcript-{sid[:8]}.json", "plain.txt"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600
    assert any(t.startswith("exported 4 records as md to ") for t in notices)


async def test_export_to_an_unwritable_place_is_one_line(tmp_path: Path) -> None:
    app = make_app(cwd=str(tmp_path), session="export-bad")
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, f"/export {tmp_path / 'missing' / 'x.md'}")
        errors = lines(app, "error")
    assert len(errors) == 1 and errors[0].startswith("/export: cannot write ")


async def test_drop_asks_then_forgets_the_last_exchange(tmp_path: Path) -> None:
    app = make_app(cwd=str(tmp_path), session="drop")
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/drop")
        assert lines(app, "notice")[-1] == "nothing to drop: this session has no exchange yet"
        await type_and_send(pilot, "/primary keep me")
        await type_and_send(pilot, "/primary forget me")
        await type_and_send(pilot, "/drop")
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("n")  # a stray key never drops
        assert len(app.facade.history()) == 4
        await type_and_send(pilot, "/drop")
        await pilot.press("y")
        for _ in range(50):
            await pilot.pause()
            if len(app.facade.history()) == 2:
                break
        users = [t for t in lines(app, "user")]
        stored = app.facade.sessions.load(app.facade.session_id)
        notices = lines(app, "notice")
    assert [t.content for t in app.facade.history()][0] == "keep me"
    assert stored is not None and [t.content for t in stored.history][0] == "keep me"
    assert len(stored.history) == 2
    assert users == ["keep me"]  # the transcript was redrawn from the session
    assert notices[-1].startswith("dropped the last exchange (2 records): ❯ forget me")


async def test_go_commands_get_one_line_and_never_reach_the_model(tmp_path: Path) -> None:
    app = make_app(cwd=str(tmp_path), session="redirects")
    async with app.run_test(size=(120, 40)) as pilot:
        for typed in ("/panel memory", "/mcp add", "/memory show #12", "/history global"):
            await type_and_send(pilot, typed)
        await type_and_send(pilot, "/otel")
        notices = lines(app, "notice")
        history = app.facade.history()
    assert history == []
    assert notices[-5].startswith("/panel: not in milk-tui — F2 or Ctrl+B")
    assert notices[-4].startswith("/mcp add: not in milk-tui — ")
    assert notices[-3].startswith("/memory show: not in milk-tui — /memory (F6)")
    assert notices[-2].startswith("/history: not in milk-tui — ")
    assert notices[-1].startswith("OpenTelemetry export: off (no otel.endpoint in the config); ")


def test_every_redirect_parses_and_none_shadows_a_command_built_elsewhere() -> None:
    built_elsewhere = {"/agent", "/reload", "/config", "/open", "/server", "/usage",
                       "/attach", "/paste"}  # fmt: skip
    for key in REDIRECTS:
        name = key.split()[0]
        assert " " in key or name not in built_elsewhere  # "/agent tool": a sub-command
        parsed = parse_slash(f"{key} something")
        assert parsed is not None and parsed[0].name == name and parsed[0].busy_safe


async def test_otel_shows_where_spans_go_and_how_many_went(tmp_path: Path) -> None:
    from milk_tui.config.otel import OtelConfig
    from milk_tui.config.settings import MilkConfig
    from milk_tui.testing.otlp_receiver import OtlpReceiver

    with OtlpReceiver() as rx:
        cfg = MilkConfig(otel=OtelConfig(endpoint=rx.url))
        app = make_app(cwd=str(tmp_path), session="otel", config=cfg)
        async with app.run_test(size=(120, 40)) as pilot:
            await type_and_send(pilot, "/primary hello")
            assert app.runtime.telemetry is not None
            app.runtime.telemetry.flush()
            await type_and_send(pilot, "/otel")
            last = lines(app, "notice")[-1]
    assert last.startswith(f"OpenTelemetry export: on → {rx.url}/v1/traces; 1 spans sent; ")
