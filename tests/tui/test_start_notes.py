"""What start-up has to say (a config key refused, a stored field that could not be read)
reaches the screen whether the session is new (in the welcome) or resumed (a line after its
transcript, which has no welcome): never dropped."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from milk_tui.facade.opening import Opening, open_application
from milk_tui.tui.app import MilkApp
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.welcome import Welcome

from .conftest import until
from .test_two_part_startup import _resumable_session

REFUSED = "key 'debug_local' is not supported by milk-tui yet; ignored"


def _config(tmp_path: Path) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"debug_local": True}))
    return path


def _opening(cwd: Path, **options: Any) -> Callable[[], Opening]:
    return lambda: open_application(cwd=str(cwd), demo=True, cooperative=True, **options)


async def _started(app: MilkApp, pilot: Pilot[Any]) -> Conversation:
    """The transcript, once the agents are built and the screen has caught up."""
    await until(pilot, lambda: app.application is not None)
    await pilot.pause()
    assert app.main_screen is not None
    return app.main_screen.query_one(Conversation)


def _warnings(conv: Conversation) -> list[str]:
    return [it.text for it in conv.items if it.kind in ("warning", "error")]


async def test_a_resumed_session_says_the_start_up_notes_after_its_transcript(
    tmp_path: Path,
) -> None:
    _resumable_session(tmp_path, 10)
    config = _config(tmp_path)
    app = MilkApp(runtime_factory=_opening(tmp_path, config_path=config))
    async with app.run_test(size=(120, 40)) as pilot:
        conv = await _started(app, pilot)
        assert not conv.query(Welcome)
        assert [w for w in _warnings(conv) if REFUSED in w] == [f"{config}: {REFUSED}"]
        assert conv.items[-1].kind == "warning"  # after the resumed turns
        assert conv.items[-2].text == "turn 9"


async def test_a_new_session_says_them_in_its_welcome_once(tmp_path: Path) -> None:
    app = MilkApp(runtime_factory=_opening(tmp_path, config_path=_config(tmp_path)))
    async with app.run_test(size=(120, 40)) as pilot:
        conv = await _started(app, pilot)
        assert REFUSED in str(conv.query_one(Welcome).render())
        assert _warnings(conv) == []


async def test_a_turn_of_the_tail_that_cannot_be_read_whole_is_named(
    tmp_path: Path,
) -> None:
    """A turn of the held tail that cannot be read whole is named once the start is done
    (older turns stay in the store until something reaches them, model/turn_history.py)."""
    _resumable_session(tmp_path, 100)
    from milk_tui.config.paths import database_file
    from milk_tui.storage.db import Database

    db = Database(database_file())
    with db.transaction() as c:
        c.execute("UPDATE turns SET tool_calls = '{broken' WHERE id = (SELECT MAX(id) FROM turns)")
    db.close()

    app = MilkApp(runtime_factory=_opening(tmp_path, history_tail=20))
    async with app.run_test(size=(120, 40)) as pilot:
        conv = await _started(app, pilot)
        await until(pilot, lambda: bool(_warnings(conv)))
        [warning] = _warnings(conv)
        assert warning.endswith("could not read the tool calls of 1 turn(s); loaded without them")
