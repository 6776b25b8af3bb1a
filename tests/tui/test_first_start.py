"""A home's first start (facade/start_card.py ``HOME_DEFAULTS``): with no card and no config
to read, the main screen is painted from the defaults and the config is read after that
frame, as a start from a card does; the card is written then.  A config that appears or
breaks meanwhile is still the one that counts."""

from __future__ import annotations

import ast
import os
import threading
from pathlib import Path

import pytest

from milk_tui.config.settings import MilkConfig
from milk_tui.engine.boot import configure
from milk_tui.facade.opening import Opening, open_application
from milk_tui.facade.start_card import (
    CARD_FILE,
    HOME_DEFAULTS,
    NOT_CONFIG_PREFIX,
    NOT_CONFIG_VARIABLES,
    card_of,
)
from milk_tui.tui.app import EXIT_STARTUP_FAILED, MilkApp
from milk_tui.tui.screens.main import MainScreen
from milk_tui.tui.widgets.escalation_pane import EscalationPane
from milk_tui.tui.widgets.welcome import Welcome

from .conftest import until

TUI_OPTIONS: dict[str, object] = {
    "cooperative": True,
    "from_card": True,
    "skip_broken_config": True,
    "probe_later": True,
}
"""As ``tui/launch.py`` opens the application (without ``--demo``)."""

CONFIG = """
agent = "local"
escalation_agent = "big"
[[agents]]
name = "local"
provider = "local"
url = "http://127.0.0.1:9"
model = "small"
[[agents]]
name = "big"
provider = "openai"
url = "http://127.0.0.1:9"
model = "large"
"""


@pytest.mark.parametrize("demo", [False, True])
def test_the_home_defaults_are_what_the_config_half_finds_in_a_new_home(demo: bool) -> None:
    """The card painted without reading the config is the one reading it gives."""
    real = configure(demo=demo, probe_later=True, skip_broken_config=True)
    assert card_of(real) == HOME_DEFAULTS


def test_the_variables_taken_for_the_programs_own_override_no_config_key() -> None:
    keys = {k.lower() for k in MilkConfig.model_fields}
    assert not [v for v in NOT_CONFIG_VARIABLES if v.removeprefix("MILK_").lower() in keys]
    test_prefix = NOT_CONFIG_PREFIX.removeprefix("MILK_").lower()
    assert not [k for k in keys if k.startswith(test_prefix)]


def test_the_suites_own_variables_do_not_turn_the_first_start_off(
    tmp_path: Path, milk_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MILK_TEST_CLAUDE_BIN", "/nonexistent/claude")  # as scripts/test sets
    assert _open(tmp_path).from_defaults
    monkeypatch.setenv("MILK_THEME", "milk-light")  # a config key: the config is read first
    assert not _open(tmp_path / "b").from_defaults


def _open(cwd: Path, **options: object) -> Opening:
    return open_application(cwd=str(cwd), **{**TUI_OPTIONS, **options})  # type: ignore[arg-type]


def test_a_new_home_paints_its_defaults_and_writes_the_card_after_the_config(
    tmp_path: Path, milk_home: Path
) -> None:
    first = _open(tmp_path)
    assert first.from_card and first.from_defaults
    assert not (milk_home / CARD_FILE).exists()  # written once the config is read
    assert first.startup_info().escalation.name == "demo-claude"
    first.finish().close_database()
    assert first.card_matched
    second = _open(tmp_path)
    assert second.from_card and not second.from_defaults  # the card the first one wrote
    second.close()


@pytest.mark.parametrize("what", ["config file", "override", "agent option"])
def test_a_home_with_something_to_read_reads_the_config_first(
    what: str, tmp_path: Path, milk_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options: dict[str, object] = {}
    if what == "config file":
        (milk_home / "config.toml").write_text(CONFIG)
    elif what == "override":
        monkeypatch.setenv("MILK_THEME", "milk-light")
    else:
        (milk_home / "config.toml").write_text(CONFIG)
        (milk_home / CARD_FILE).unlink(missing_ok=True)
        options["agent"] = "big"
    opening = _open(tmp_path, **options)
    assert not opening.from_card
    if what == "override":
        assert opening.theme == "milk-light"
    else:
        assert opening.startup_info().escalation.name == "big"
    opening.close()


def _config_written_before_finish(cwd: Path, home: Path, text: str):  # type: ignore[no-untyped-def]
    """A factory whose opening's config appears (``text``) after the first frame was
    painted and before the config is read: what the config says must win."""
    painted = threading.Event()

    def factory() -> Opening:
        opening = _open(cwd)
        assert opening.from_defaults
        finish = opening.finish

        def later():  # type: ignore[no-untyped-def]
            (home / "config.toml").write_text(text)
            painted.set()
            return finish()

        opening.finish = later  # type: ignore[method-assign]  # this opening only
        return opening

    return factory, painted


async def test_a_first_start_paints_the_main_screen_and_later_shows_the_configs_agents(
    tmp_path: Path, milk_home: Path
) -> None:
    factory, painted = _config_written_before_finish(tmp_path, milk_home, CONFIG)
    app = MilkApp(runtime_factory=factory)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        await until(pilot, painted.is_set)
        await until(pilot, lambda: app.application is not None)
        screen = app.screen
        await until(pilot, lambda: screen.query_one(EscalationPane).agent_name == "big")
        greeting = str(screen.query_one(Welcome).render())
        assert "big" in greeting and "demo-claude" not in greeting
    # The card was keyed before the config appeared: the next start reads the config first.
    again = _open(tmp_path)
    assert not again.from_card and again.startup_info().escalation.name == "big"
    again.close()


async def test_a_broken_config_in_a_new_home_still_says_its_line(
    tmp_path: Path, milk_home: Path
) -> None:
    """A file that does not parse is skipped with its one line in the welcome, as at any
    start; the first frame painted from the defaults does not hide it."""
    factory, painted = _config_written_before_finish(tmp_path, milk_home, "agents = [oops\n")
    app = MilkApp(runtime_factory=factory)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.application is not None)
        screen = app.screen
        await until(pilot, lambda: "config error" in str(screen.query_one(Welcome).render()))
        greeting = " ".join(str(screen.query_one(Welcome).render()).split())
        assert "config.toml" in greeting and "started without it" in greeting
        assert "Traceback" not in greeting


async def test_a_broken_override_in_a_new_home_ends_the_start_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An override that cannot be parsed is refused in one line naming it, at a first start
    as at any other (it is a variable the defaults cannot stand for: read first)."""
    monkeypatch.setenv("MILK_AGENTS", "[not json")
    app = MilkApp(runtime_factory=lambda: _open(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: bool(app.startup_error))
    assert app.return_value == EXIT_STARTUP_FAILED
    assert app.startup_error.startswith("config error: MILK_AGENTS: invalid JSON")
    assert "\n" not in app.startup_error and "Traceback" not in app.startup_error
    assert "not json" not in app.startup_error  # the value is not echoed
    assert os.environ["MILK_AGENTS"] == "[not json"


CREATE_EARLY = """
import sqlite3, sys
from milk_tui.config.paths import database_file
from milk_tui.facade.early import check_database_soon
from milk_tui.storage import db

check_database_soon()  # a command's: a home with no database gets none
print(database_file().exists() or bool(db._creating))
check_database_soon(create=True)  # the TUI's: created beside the start-up
done, thread = db._creating[database_file().resolve()]
thread.join(30)
print(done.is_set(), "milk_tui.engine.open_store" in sys.modules)
conn = sqlite3.connect(database_file())  # as the thread left it (no migration of ours)
print(conn.execute("PRAGMA journal_mode").fetchone()[0])
print([r[0] for r in conn.execute("SELECT name FROM schema_migrations")])
"""


def test_a_new_homes_database_is_made_beside_the_start_and_its_tables_by_the_open(
    tmp_path: Path, milk_home: Path
) -> None:
    """A first start creates the database file (in WAL mode) in a thread before the TUI
    opens it, importing none of the store's modules: they are Python, which would contend
    with Textual's imports for the GIL; the open makes the tables.  A command in a new home
    creates none early."""
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", CREATE_EARLY],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        timeout=120,
    )
    before, done, journal, early = run.stdout.splitlines()
    assert before == "False" and done == "True False" and journal == "wal"
    assert ast.literal_eval(early) == ["001_sessions"]  # storage/db.py's own, no more
    opened = _open(tmp_path)  # the open finds the file and makes every table
    made = set(opened._opened.db.schema_version)
    assert {"001_sessions", "003_attachments", "005_turn_kinds", "010_percepts"} <= made
    opened.close()
