"""The question about a folder's own Claude settings: asked in the TUI before any escalation
turn (naming each file and what it allows; nothing typed answers it), remembered by the
file's content hash, and in print mode one notice line per ignored file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.widgets import Static

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.testing.cli_run import run_milk
from milk_tui.tui.screens.project_trust_modal import ProjectTrustModal
from milk_tui.tui.widgets.conversation import Conversation
from tui.conftest import make_app, until

SHIPPED = {"permissions": {"allow": ["Bash(curl *)"]}, "hooks": {"Stop": []}, "env": {"X": "1"}}


def claude_config() -> MilkConfig:
    return MilkConfig(
        agent="llama",
        escalation_agent="claude",
        agents=[
            AgentConfig(name="llama", provider="local", url="http://127.0.0.1:9", model="m"),
            AgentConfig(name="claude", provider="claude-cli", bin="/nonexistent/claude"),
        ],
    )


def ship(folder: Path, body: dict[str, Any] = SHIPPED) -> Path:
    path = folder / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(body))
    return path


def notices(app: Any) -> list[str]:
    return [it.text for it in app.main_screen.query_one(Conversation).items]


async def opened(pilot: Any, app: Any) -> ProjectTrustModal:
    await until(pilot, lambda: isinstance(app.screen, ProjectTrustModal))
    assert isinstance(app.screen, ProjectTrustModal), "the trust question never opened"
    await pilot.pause()
    return app.screen


async def test_the_question_names_the_file_and_what_it_allows_and_typing_does_not_trust(
    tmp_path: Path,
) -> None:
    path = ship(tmp_path)
    app = make_app(config=claude_config(), demo=False, cwd=str(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        modal = await opened(pilot, app)
        text = str(modal.query_one(".trust-body Static", Static).render())
        assert str(path) in text
        assert "allow Bash(curl *)" in text and "hooks that run commands: Stop" in text
        await pilot.press(*"yes trust it")  # no letter answers: the focus is on Ignore
        assert isinstance(app.screen, ProjectTrustModal)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ProjectTrustModal))
        assert ".claude/settings.json: not trusted, ignored" in notices(app)
        folder = app.facade.project_trust
        assert folder.questions() == () and [f.name for f in folder.ignored()] == [
            ".claude/settings.json"
        ]


async def test_trusting_passes_the_file_on_until_it_changes(tmp_path: Path) -> None:
    path = ship(tmp_path)
    app = make_app(config=claude_config(), demo=False, cwd=str(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot, app)
        await pilot.click("#trust")
        await until(pilot, lambda: not isinstance(app.screen, ProjectTrustModal))
        assert ".claude/settings.json: trusted: passed to the Claude CLI" in notices(app)
        assert app.facade.project_trust.ignored() == ()
        assert app.facade.permissions.show().claude_rules == ("Bash(curl *)",)  # passed on
        path.write_text(json.dumps({**SHIPPED, "env": {"X": "2"}}))
        assert [f.name for f in app.facade.project_trust.questions()] == [".claude/settings.json"]


async def test_no_question_without_the_claude_cli(tmp_path: Path) -> None:
    ship(tmp_path)
    app = make_app(cwd=str(tmp_path))  # the demo agents
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(5):
            await pilot.pause()
        assert not isinstance(app.screen, ProjectTrustModal)
        assert app.facade.project_trust.questions() == ()


def test_print_mode_ignores_the_file_with_one_notice_line(tmp_path: Path, milk_home: Path) -> None:
    (milk_home / "config.toml").write_text(
        'agent = "llama"\nescalation_agent = "claude"\n'
        '[[agents]]\nname = "llama"\nprovider = "local"\nurl = "http://127.0.0.1:9"\n'
        '[[agents]]\nname = "claude"\nprovider = "claude-cli"\nbin = "/nonexistent/claude"\n'
    )
    ship(tmp_path)
    r = run_milk("-p", "hello", "--primary", cwd=tmp_path)
    lines = [ln for ln in r.stderr.splitlines() if ".claude/settings.json" in ln]
    assert len(lines) == 1, r.stderr
    assert "not trusted: ignored" in lines[0] and "allow Bash(curl *)" in lines[0]
