"""oterm, headless, measured the way the milk-tui benchmarks measure milk-tui.

Runs under the oterm venv's interpreter (``bench/peers/oterm_venv.py``), never milk-tui's:
it imports from ``bench/`` only the measuring code (``first_token.measure``,
``tui_stream.Probe``, ``tui_cold_start._report_ready``) and the repo's fake server, all
standard library.  Every process gets its own temporary HOME and oterm data dir (one saved
chat with model ``fake-model`` on the Ollama provider, the splash screen off), so no real
user data is read or written; oterm's check for a newer release on PyPI is replaced by
"up to date" (a benchmark must not leave the machine).

    python oterm_child.py --first-token --rounds N --chunks N   # own in-process fake server
    python oterm_child.py --stream --url URL --chunks N         # one tui_stream.py sample
    python oterm_child.py --seed HOME                           # make a HOME for --cold
    python oterm_child.py --cold                                # to the prompt focused

* ``--first-token``: as ``bench/first_token.py`` times the minimal app — the prompt put in
  oterm's prompt box, an Enter key posted; ``first`` is when the frame that shows the first
  reply token (the reply's ``Markdown`` has source and a laid-out block inside the view)
  goes to the terminal, ``wire`` when the server has the chat request.  Each sample is a
  new app on an emptied chat (as the minimal app starts empty).  Prints a JSON list.
* ``--stream``: as ``bench/tui_stream.py``'s children — the prompt submitted, keys typed
  every 25 ms into the prompt box, the 2 ms watchdog; done when oterm's response task has
  finished (its final ``Markdown.update`` of the whole reply and the store writes
  included).  Prints ``Probe.result`` as JSON.
* ``--cold``: as ``bench/tui_cold_start.py``'s children — oterm's CLI module imported as
  the ``oterm`` command does, the app run headless at 120×40 until its prompt box has the
  focus and a frame was painted after; prints the ready line.  ``OTERM_DATA_DIR`` and
  ``OLLAMA_URL`` come from the parent (``isolated_env`` of a ``--seed`` HOME, the
  parent's fake server).
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]  # bench/, the repo (fake server)

MODEL = "fake-model"


def isolated_env(home: str, url: str = "") -> dict[str, str]:
    """HOME, the XDG dirs and oterm's data dir (``HOME/data``) inside ``home``."""
    env = {v: home for v in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    env["OTERM_DATA_DIR"] = os.path.join(home, "data")
    env["PYDANTIC_AI_NO_BANNER"] = "1"  # pydantic-ai's advertisement on stderr
    if url:
        env["OLLAMA_URL"] = url
    return env


def isolate(home: str = "", url: str = "") -> str:
    """Run this process in ``isolated_env`` (a new temp dir by default); call before
    importing oterm, which reads its environment at import.  Returns the data dir."""
    if not home:
        home = tempfile.mkdtemp(prefix="milk-bench-oterm-")
        atexit.register(shutil.rmtree, home, ignore_errors=True)
    os.environ.update(isolated_env(home, url))
    os.chdir(home)  # python-dotenv is not to find a .env of the caller's folder
    return os.environ["OTERM_DATA_DIR"]


async def seed(data: str) -> None:
    """oterm's config (no splash screen) and a store holding one chat on ``fake-model``."""
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(data, "config.json"), "w") as f:
        json.dump({"theme": "textual-dark", "splash-screen": False}, f)
    from oterm.store.store import Store
    from oterm.types import ChatModel

    store = await Store.get_store()
    await store.save_chat(ChatModel(name="bench", model=MODEL, provider="ollama"))


def app_class() -> type:
    """oterm's ``OTerm`` with the PyPI release check answered locally."""
    import oterm.app.oterm as module
    from packaging.version import parse

    async def up_to_date() -> tuple[bool, Any, Any]:
        v = parse("0")
        return True, v, v

    module.is_up_to_date = up_to_date  # type: ignore[assignment]
    return module.OTerm


def prompt_area(app: Any) -> Any:
    from oterm.app.widgets.prompt import PostableTextArea

    focused = app.focused
    return focused if isinstance(focused, PostableTextArea) else None


async def until_ready(app: Any) -> None:
    while prompt_area(app) is None:
        await asyncio.sleep(0.002)


def new_reply(chat: Any, before: set[Any]) -> Any:
    from oterm.app.widgets.chat import ChatItem
    from textual.widgets import Markdown

    items = [i for i in chat.query(ChatItem) if i not in before and i.author == "assistant"]
    found = list(items[-1].query(Markdown).filter(".response")) if items else []
    return found[0] if found else None  # none until the item has composed


# ----- prompt → first token on screen ---------------------------------------------------------


async def first_token_sample(url: str, srv: Any) -> dict[str, float]:
    import first_token
    from oterm.app.widgets.chat import ChatContainer, ChatItem
    from oterm.store.store import Store

    store = await Store.get_store()
    for chat_model in await store.get_chats():
        await store.clear_chat(chat_model.id)
    app = app_class()()
    async with app.run_test(size=(120, 40)) as pilot:
        await until_ready(app)
        await pilot.pause()
        await asyncio.sleep(0.3)  # as first_token.py: launch-time work settles
        chat = app.query_one(ChatContainer)
        prompt_area(app).text = first_token.prompt()
        await pilot.pause()
        before = set(chat.query(ChatItem))
        view = chat.query_one("#messageContainer")

        def shown() -> bool:
            md = new_reply(chat, before)
            if md is None or not md.source:
                return False
            bottom = view.region.bottom
            return any(b.region.height > 0 and b.region.y < bottom for b in md.children)

        out = await first_token.measure(app, lambda: first_token._enter_key(app), shown, srv)
        while chat.inference_task is None or not chat.inference_task.done():
            await asyncio.sleep(0.002)
        await pilot.pause()
    return out


async def first_token_run(rounds: int, chunks: int) -> None:
    from fake_ollama import FakeOllamaServer

    from milk_tui.testing.fake_openai import FakeReply, usage

    with FakeOllamaServer() as srv:
        await seed(isolate(url=srv.url))
        srv.default_reply = FakeReply.bulk(chunks, usage=usage(10, chunks))
        await first_token_sample(srv.url, srv)  # warm-up, as first_token.py
        out = [await first_token_sample(srv.url, srv) for _ in range(rounds)]
    print(json.dumps(out))


# ----- keys while a reply streams -------------------------------------------------------------


async def stream_sample(url: str, chunks: int) -> dict[str, Any]:
    import tui_stream
    from oterm.app.widgets.chat import ChatContainer, ChatItem
    from oterm.app.widgets.prompt import FlexibleInput

    await seed(os.environ["OTERM_DATA_DIR"])
    app = app_class()()
    probe = tui_stream.Probe()
    async with app.run_test(size=(120, 40)) as pilot:
        await until_ready(app)
        await pilot.pause()
        await asyncio.sleep(tui_stream.SETTLE_S)
        chat = app.query_one(ChatContainer)
        box = chat.query_one(FlexibleInput)
        area = prompt_area(app)
        before = set(chat.query(ChatItem))

        def shown() -> bool:
            md = new_reply(chat, before)
            return md is not None and bool(md.source)

        def finished() -> bool:
            task = chat.inference_task
            return task is not None and task.done()

        stop = asyncio.Event()
        tasks = [asyncio.create_task(probe.ticker(stop))]
        t0 = time.perf_counter()
        probe.cpu0 = time.process_time()
        # As tui_stream.py submits milk-tui's prompt: the prompt box's own submit message
        # (what Enter posts), with the box left empty for the keys typed meanwhile.
        box.post_message(FlexibleInput.Submitted(box, "stream please"))
        tasks += [
            asyncio.create_task(probe.first_token(t0, shown)),
            asyncio.create_task(probe.keys(app, lambda: len(area.text), area.clear, stop)),
        ]
        while not finished() and time.perf_counter() - t0 < tui_stream.MINIMAL_CAP_S:
            await asyncio.sleep(0.002)
        await pilot.pause()
        total = time.perf_counter() - t0
        done = finished()
        stop.set()
        for t in tasks:
            t.cancel()
        if chat.inference_task is not None:
            chat.inference_task.cancel()
        return probe.result(chunks, total, done)


# ----- cold start -----------------------------------------------------------------------------


def cold() -> None:
    import tui_cold_start

    os.chdir(os.environ["HOME"])  # the parent's isolated_env
    import oterm.cli.oterm  # noqa: F401  what the `oterm` command imports before the app

    base = app_class()

    class Timed(base):  # type: ignore[valid-type, misc]
        # Textual resolves a relative CSS_PATH beside the module of the class using it.
        CSS_PATH = str(Path(sys.modules[base.__module__].__file__ or "").parent / base.CSS_PATH)

        def on_ready(self) -> None:
            self._exit_when_focused()

        def _exit_when_focused(self) -> None:
            if prompt_area(self) is not None:
                tui_cold_start._report_ready()
                self.exit()
            else:
                self.call_after_refresh(self._exit_when_focused)

    Timed().run(headless=True, size=(120, 40))


def main() -> None:
    ap = argparse.ArgumentParser()
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--first-token", action="store_true")
    mode.add_argument("--stream", action="store_true")
    mode.add_argument("--cold", action="store_true")
    mode.add_argument("--seed", metavar="HOME")
    ap.add_argument("--url", default="")
    ap.add_argument("--chunks", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    if a.seed:
        asyncio.run(seed(isolate(a.seed)))
    elif a.cold:
        cold()
    elif a.stream:
        isolate(url=a.url)
        print(json.dumps(asyncio.run(stream_sample(a.url, a.chunks))))
    else:
        asyncio.run(first_token_run(a.rounds, a.chunks))


if __name__ == "__main__":
    main()
