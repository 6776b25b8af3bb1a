"""With nothing configured, milk-tui looks for a local OpenAI-compatible server
(engine/boot.py): one answering becomes the primary agent, else the demo agents run and a
notice says so.  The TUI looks after its first frame (``probe_later``): the main screen
paints with the demo agents and the server found is the primary before any turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from milk_tui.engine import boot
from milk_tui.engine.runtime import build_runtime
from milk_tui.facade.opening import Opening, open_application
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.tui.app import MilkApp
from milk_tui.tui.screens.main import MainScreen
from milk_tui.tui.widgets.welcome import Welcome

from .conftest import until

NOBODY = "http://127.0.0.1:9"  # the discard port: nothing answers there


def test_a_local_server_answering_becomes_the_primary(
    milk_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAIServer() as srv:
        monkeypatch.setattr(boot, "LOCAL_SERVER_PROBES", (("llama.cpp", srv.url),))
        rt = build_runtime(cwd=str(tmp_path))
        try:
            primary = rt.dispatcher.primary
            assert primary is not None and primary.config is not None
            assert primary.config.name == "llama.cpp" and not rt.demo
            assert any(f"using the llama.cpp server at {srv.url}" in n for n in rt.startup_notes)
        finally:
            rt.db.close()


def test_no_server_answering_runs_the_demo_agents_and_says_so(
    milk_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(boot, "LOCAL_SERVER_PROBES", (("llama.cpp", NOBODY),))
    rt = build_runtime(cwd=str(tmp_path), probe_later=True)  # the second half looks
    try:
        assert rt.demo
        assert any("No agents configured" in n for n in rt.startup_notes)
    finally:
        rt.db.close()


async def test_the_tui_paints_first_then_the_server_found_answers(
    milk_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["hello ", "from ", "llama"])
        monkeypatch.setattr(boot, "LOCAL_SERVER_PROBES", (("llama.cpp", srv.url),))
        probed_before_paint: list[bool] = []

        def factory() -> Opening:
            opening = open_application(cwd=str(tmp_path), cooperative=True, probe_later=True)
            probed_before_paint.append(bool(srv.requests))
            return opening

        app = MilkApp(runtime_factory=factory)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, MainScreen), 20)
            assert probed_before_paint == [False]  # the first half did not look
            await until(pilot, lambda: app.application is not None, 20)
            welcome = str(app.screen.query_one(Welcome).render())
            assert f"using the llama.cpp server at {srv.url}" in welcome
            assert "No agents configured" not in welcome
            await pilot.press(*"hi there")
            await pilot.press("enter")
            await until(pilot, lambda: len(app.runtime.session.history) == 2, 20)
            assert app.runtime.session.history[-1].agent_name == "llama.cpp"
            assert srv.chat_requests  # the turn went to the server found
