"""The start card (facade/start_card.py): the main screen is painted from what the last
start found in the config, the config is read after that frame, and a card that is wrong
or stale is never believed past it."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from milk_tui.facade.opening import open_application
from milk_tui.facade.start_card import CARD_FILE, new_key, write_card
from milk_tui.facade.views import AgentInfo
from milk_tui.tui.app import MilkApp
from milk_tui.tui.screens.main import MainScreen
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.escalation_pane import EscalationPane
from milk_tui.tui.widgets.welcome import Welcome

from .conftest import until

CONFIG = """
agent = "local"
escalation_agent = "big"
theme = "milk-light"
[keymap]
memory = "f9"
[[agents]]
name = "local"
provider = "local"
url = "http://127.0.0.1:9"
model = "small"
api_key = "sk-do-not-store-me"
[[agents]]
name = "big"
provider = "openai"
url = "http://user:pass-do-not-store@127.0.0.1:9"
api_key = "sk-do-not-store-me-either"
bogus_key = 1
"""
"""Two agents, a theme, a keymap, a secret each and an unknown key (a note)."""


@pytest.fixture
def configured(milk_home: Path) -> Path:
    config = milk_home / "config.toml"
    config.write_text(CONFIG)
    return config


def _open(cwd: Path):  # type: ignore[no-untyped-def]
    return open_application(cwd=str(cwd), from_card=True)


def test_the_second_start_paints_from_the_card_and_the_config_agrees(
    configured: Path, tmp_path: Path
) -> None:
    first = _open(tmp_path)
    assert not first.from_card  # no card yet: the config was read, and the card written
    painted = (first.startup_info(), first.theme, first.keymap)
    first.finish().close_database()
    second = _open(tmp_path)
    assert second.from_card
    assert (second.startup_info(), second.theme, second.keymap) == painted
    assert painted[0].primary == AgentInfo("local", "openai small http://127.0.0.1:9")
    assert any("bogus_key" in n for n in painted[0].notes)
    application = second.finish()
    assert second.card_matched
    assert application.startup_info().primary == painted[0].primary
    assert application.startup_notes[: len(painted[0].notes)] == list(painted[0].notes)
    application.close_database()


def test_the_card_holds_no_secret(configured: Path, tmp_path: Path, milk_home: Path) -> None:
    _open(tmp_path).close()
    card = (milk_home / CARD_FILE).read_text()
    assert "sk-do-not" not in card and "pass-do-not" not in card and '"local"' in card
    assert '"openai http://127.0.0.1:9"' in card  # the URL without its user and password
    assert (milk_home / CARD_FILE).stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("change", ["config", "mode", "environment", "path", "option"])
def test_a_card_of_another_config_is_not_used(
    change: str, configured: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _open(tmp_path).close()
    options: dict[str, object] = {}
    if change == "config":  # same size, other bytes: mtime alone could miss it
        configured.write_text(configured.read_text().replace('"big"', '"bog"'))
    elif change == "mode":  # the secret-file warning depends on it
        configured.chmod(0o644 if configured.stat().st_mode & 0o044 == 0 else 0o600)
    elif change == "environment":
        monkeypatch.setenv("MILK_THEME", "milk-dark")
    elif change == "path":  # where `claude` and the other agents' programs are found
        monkeypatch.setenv("PATH", os.environ["PATH"] + os.pathsep + str(tmp_path))
    else:
        options["agent"] = "big"
    opening = open_application(cwd=str(tmp_path), from_card=True, **options)  # type: ignore[arg-type]
    assert not opening.from_card
    opening.close()


def test_a_wrong_card_is_corrected_by_the_config(
    configured: Path, tmp_path: Path, milk_home: Path
) -> None:
    _open(tmp_path).close()
    real = _open(tmp_path)
    wrong = dataclasses.replace(
        real._card, escalation=AgentInfo("stale", "gone"), notes=("an old note",)
    )
    real.close()
    write_card(new_key({}), wrong)  # what a start would have found, had the config said so
    opening = _open(tmp_path)
    assert opening.from_card and opening.startup_info().escalation.name == "stale"
    application = opening.finish()
    assert not opening.card_matched
    assert application.startup_info().escalation.name == "big"
    assert "an old note" not in application.startup_notes
    application.close_database()
    again = _open(tmp_path)  # the card was rewritten
    assert again.from_card and again.startup_info().escalation.name == "big"
    again.close()


def test_a_broken_card_is_no_card(configured: Path, tmp_path: Path, milk_home: Path) -> None:
    for broken in ("{not json", json.dumps({"version": 1}), json.dumps([1, 2])):
        (milk_home / CARD_FILE).write_text(broken)
        opening = _open(tmp_path)
        assert not opening.from_card and opening.startup_info().primary.name == "local"
        opening.close()


async def test_the_screen_painted_from_a_wrong_card_is_set_right(
    configured: Path, tmp_path: Path
) -> None:
    _open(tmp_path).close()
    real = _open(tmp_path)
    wrong = dataclasses.replace(
        real._card,
        escalation=AgentInfo("stale", "gone"),
        theme="milk-dark",
        keymap={},
        notes=("an old note",),
    )
    real.close()
    write_card(new_key({}), wrong)
    app = MilkApp(runtime_factory=lambda: open_application(cwd=str(tmp_path), from_card=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        await until(pilot, lambda: app.application is not None)
        screen = app.screen
        await until(pilot, lambda: screen.query_one(EscalationPane).agent_name == "big")
        assert screen.query_one(Conversation).names["escalation"] == "big"
        assert app.theme == "milk-light"
        assert app._keymap.get("memory") == "f9"  # what Textual's set_keymap keeps
        greeting = str(screen.query_one(Welcome).render())  # a new session's welcome
        assert "big" in greeting and "stale" not in greeting
        assert "an old note" not in greeting and "bogus_key" in greeting


def test_the_card_key_is_sha256_without_loading_hashlib() -> None:
    """The key's digest is hashlib's SHA-256, made without loading OpenSSL's (``hashlib``)
    at every start (facade/start_card.py ``sha256_hex``)."""
    import hashlib
    import subprocess
    import sys

    from milk_tui.facade.start_card import sha256_hex

    for data in (b"", b"milk", "é ✓".encode() * 1000):
        assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
    code = (
        "import sys\nfrom milk_tui.facade.start_card import card_key\n"
        "card_key('salt', {})\nprint('hashlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]
