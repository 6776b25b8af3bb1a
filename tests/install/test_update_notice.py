"""The once-a-day version notice against a local fake of PyPI's JSON API: newer → one
line; the same version → nothing; offline → nothing; ``update_check = false`` → no
request; a second start within a day asks nothing; ``/update`` says how to upgrade."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tui.conftest import make_app, settle, type_and_send

from milk_tui.config.settings import MilkConfig
from milk_tui.facade import update_check as uc
from milk_tui.tui.slash.update import check_soon
from milk_tui.tui.widgets.conversation import Conversation


class FakePyPI:
    def __init__(self, version: str) -> None:
        self.version = version
        self.requests: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 — http.server's name
                owner.requests.append(self.path)
                body = json.dumps({"info": {"name": "milk-tui", "version": owner.version}})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/pypi/milk-tui/json"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def pypi() -> Iterator[FakePyPI]:
    srv = FakePyPI("99.0.0")
    yield srv
    srv.close()


def test_versions_compare_as_numbers() -> None:
    assert uc.newer("0.10.0", "0.9.9") and not uc.newer("0.1.0", "0.1.0")
    assert not uc.newer("0.2.0rc1", "0.2.0") and uc.newer("0.2.0", "0.2.0rc1")
    assert not uc.newer("", "0.1.0")


def test_checked_once_a_day_and_cached(pypi: FakePyPI, milk_home: Path) -> None:
    state = uc.check(pypi.url)
    assert state is not None and state.available and state.latest == "99.0.0"
    assert "pipx upgrade milk-tui" in state.line() and len(pypi.requests) == 1
    assert uc.check(pypi.url) is None and len(pypi.requests) == 1  # within a day: no request
    assert uc.cached().latest == "99.0.0"
    assert uc.check(pypi.url, force=True) is not None and len(pypi.requests) == 2


def test_offline_is_silent(milk_home: Path) -> None:
    dead = FakePyPI("1.0")
    dead.close()  # nothing listens on its port now
    assert uc.check(dead.url) is None
    assert not uc.cache_file().exists()


def _notices(app: Any) -> list[str]:
    items = app.main_screen.query_one(Conversation).items
    return [it.text for it in items if it.kind == "notice"]


@pytest.mark.parametrize(("version", "enabled", "said", "asked"), [
    ("99.0.0", True, 1, 1),   # newer: one line
    ("0.1.0", True, 0, 1),    # the same: nothing
    ("99.0.0", False, 0, 0),  # off: no request at all
])  # fmt: skip
async def test_the_notice_after_the_first_frame(
    pypi: FakePyPI,
    milk_home: Path,
    tmp_path: Path,
    version: str,
    enabled: bool,
    said: int,
    asked: int,
) -> None:
    pypi.version = version
    cfg = MilkConfig(update_url=pypi.url, update_check=enabled)
    app = make_app(cwd=str(tmp_path), session="upd", config=cfg)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        assert pypi.requests == []  # headless: the start itself never asks
        check_soon(app.main_screen, headless_too=True)
        await app.workers.wait_for_complete()
        await pilot.pause()
        lines = [n for n in _notices(app) if "is available" in n]
    assert len(lines) == said and len(pypi.requests) == asked
    if said:
        assert lines[0].startswith("milk-tui 99.0.0 is available (you have ")


async def test_update_command_says_how(pypi: FakePyPI, milk_home: Path, tmp_path: Path) -> None:
    cfg = MilkConfig(update_url=pypi.url)
    app = make_app(cwd=str(tmp_path), session="upd", config=cfg)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, "/update")
        assert "/update check asks PyPI now" in _notices(app)[-1]
        await type_and_send(pilot, "/update check")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _notices(app)[-1].startswith("milk-tui 99.0.0 is available")
        assert "uv tool upgrade milk-tui" in _notices(app)[-1]
    assert len(pypi.requests) == 1
