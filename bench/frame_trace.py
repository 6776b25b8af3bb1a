"""Wall-clock marks along Enter → request → first delta → painted frame (benchmarks only).

``install(app, srv)`` wraps, on the running process's classes, the steps one turn's first
token goes through; ``marks`` then holds ``(seconds since start(), what, thread CPU ms)``
for each.  Used by ``bench/first_token.py --trace``: where the milliseconds between Enter
and the painted token go, and which of them the loop thread spent working.
"""

from __future__ import annotations

import functools
import threading
import time
from typing import Any

marks: list[tuple[float, str, float]] = []
_t0 = [0.0]
_loop_thread = [0]


def start() -> None:
    marks.clear()
    _t0[0] = time.perf_counter()
    _loop_thread[0] = threading.get_ident()


def stop() -> None:
    _t0[0] = 0.0


def mark(what: str, cpu_ms: float = 0.0) -> None:
    if _t0[0]:
        marks.append((time.perf_counter() - _t0[0], what, cpu_ms))


def _wrap(cls: Any, name: str, label: str, detail: Any = None) -> None:
    fn = getattr(cls, name)
    if getattr(fn, "_traced", False):
        return

    @functools.wraps(fn)
    def traced(*args: Any, **kwargs: Any) -> Any:
        extra = f" {detail(*args)}" if detail is not None else ""
        on_loop = threading.get_ident() == _loop_thread[0]
        where = "" if on_loop else " [thread]"
        c0 = time.thread_time()
        mark(f"{label}{extra}{where} >")
        try:
            return fn(*args, **kwargs)
        finally:
            mark(f"{label}{extra}{where} <", (time.thread_time() - c0) * 1000)

    traced._traced = True  # type: ignore[attr-defined]
    setattr(cls, name, traced)


_installed = [False]


def install(srv: Any) -> None:
    """Wrap the steps (once a process) and stamp when the fake server ``srv`` gets a chat
    request."""
    default = srv.default_reply

    def responder(req: Any) -> Any:
        mark("SERVER has the request")
        return default

    srv.responder = responder
    if _installed[0]:
        return
    _installed[0] = True
    from textual._compositor import Compositor
    from textual.app import App
    from textual.screen import Screen

    from milk_tui.engine.request_builder import RequestBuilder
    from milk_tui.tui.bridge import BusBridge
    from milk_tui.tui.screens.main import MainScreen
    from milk_tui.tui.widgets.conversation import Conversation

    _wrap(MainScreen, "submit_prompt", "submit_prompt")
    _wrap(RequestBuilder, "_primary_request", "build request")
    _wrap(BusBridge, "flush", "bridge flush")
    on_event = BusBridge._on_event

    def seen(self: Any, event: Any) -> None:
        name = type(event).__name__
        if name not in ("TextDelta", "ThinkingDelta") or not any(
            "bus TextDelta" in m for _, m, _ in marks
        ):
            mark(f"bus {name}")
        on_event(self, event)

    BusBridge._on_event = seen  # type: ignore[method-assign]
    _wrap(
        Conversation,
        "_handle",
        "conversation",
        lambda self, e: type(e).__name__,
    )
    from milk_tui.tui.widgets.conversation_next import NextTurn

    if hasattr(NextTurn, "show_waiting"):  # not in a checkout from before it
        _wrap(NextTurn, "show_waiting", "show the waiting blocks")
    _wrap(Screen, "_refresh_layout", "screen layout")
    _wrap(Compositor, "reflow", "  reflow")
    _wrap(Compositor, "render_update", "  render_update")
    _wrap(App, "_display", "display")


def report() -> str:
    out = []
    for t, what, cpu in marks:
        out.append(f"  {t * 1000:7.2f} ms  {what}" + (f"  (CPU {cpu:.2f} ms)" if cpu else ""))
    return "\n".join(out)
