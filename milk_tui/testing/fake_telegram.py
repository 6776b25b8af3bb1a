"""A fake Telegram Bot API on 127.0.0.1 that a test drives as the phone.

Serves ``POST /bot<TOKEN>/<method>`` for getMe, getUpdates (long-poll, ``offset`` confirms
earlier updates, ``-1`` = the last one only), sendMessage (inline keyboards kept),
editMessageText and answerCallbackQuery, in a daemon thread (stdlib ``http.server``), so
sync code, pytest-asyncio tests and Textual apps can all use it.  Every call is recorded.
The phone side: ``send_text(chat_id, text)`` and ``press(chat_id, message_id, data)``.
Fault switch: ``down = True`` answers every call with HTTP 502 (as a proxy would when
Telegram cannot be reached); ``stop()`` closes the port.

Usage::

    with FakeTelegram(token="123:abc") as tg:
        tg.send_text(42, "hello")
        ... # point remote_oversight.telegram.api_url at tg.url
        msg = tg.wait_message(lambda m: "Permission" in m.text)
        tg.press(42, msg.message_id, msg.buttons[0][1])
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BOT_NAME = "milk_test_bot"


@dataclass
class Sent:
    message_id: int
    chat_id: int
    text: str
    buttons: list[tuple[str, str]] = field(default_factory=list)
    """(label, callback_data) of the inline keyboard."""
    edits: list[str] = field(default_factory=list)


@dataclass
class Call:
    method: str
    path: str
    body: dict[str, Any]


class FakeTelegram:
    def __init__(self, token: str = "123456:TEST-token-abcdef") -> None:
        self.token = token
        self.calls: list[Call] = []
        self.sent: list[Sent] = []
        self.callback_answers: list[tuple[str, str]] = []
        self.down = False
        self.refuse = ""
        """Set: every call answers HTTP 400 with this description (a hostile or echoing API)."""
        self._updates: list[dict[str, Any]] = []
        self._next_update = 100
        self._next_message = 1000
        self._cond = threading.Condition()
        self._server: ThreadingHTTPServer | None = None

    # ----- server -------------------------------------------------------------------------

    def start(self) -> FakeTelegram:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                n = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(n) if n else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                status, answer = fake._route(self.path, body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(OSError):  # the client gave up (a cancelled poll)
                    self.wfile.write(data)

            do_GET = do_POST

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        with self._cond:
            self._cond.notify_all()

    def __enter__(self) -> FakeTelegram:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # ----- Bot API ------------------------------------------------------------------------

    def _route(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        prefix, _, method = path.split("?")[0].rpartition("/")
        with self._cond:
            self.calls.append(Call(method, path, body))
        if self.down:
            return 502, {"ok": False, "error_code": 502, "description": "Bad Gateway"}
        if self.refuse:
            return 400, {"ok": False, "error_code": 400, "description": self.refuse}
        if prefix != f"/bot{self.token}":
            return 401, {"ok": False, "error_code": 401, "description": "Unauthorized"}
        match method:
            case "getMe":
                return 200, {"ok": True, "result": {"id": 1, "is_bot": True, "username": BOT_NAME}}
            case "getUpdates":
                return 200, {"ok": True, "result": self._get_updates(body)}
            case "sendMessage":
                return 200, {"ok": True, "result": self._send(body)}
            case "editMessageText":
                return self._edit(body)
            case "answerCallbackQuery":
                with self._cond:
                    self.callback_answers.append(
                        (body.get("callback_query_id", ""), body.get("text", ""))
                    )
                return 200, {"ok": True, "result": True}
        return 404, {"ok": False, "error_code": 404, "description": "Not Found"}

    def _get_updates(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(body.get("offset") or 0)
        limit = int(body.get("limit") or 100)
        deadline = time.monotonic() + float(body.get("timeout") or 0)
        with self._cond:
            while True:
                if offset > 0:  # confirmed: gone for good
                    self._updates = [u for u in self._updates if u["update_id"] >= offset]
                ready = self._updates[-1:] if offset < 0 else self._updates[:limit]
                left = deadline - time.monotonic()
                if ready or left <= 0 or self._server is None:
                    return list(ready)
                self._cond.wait(left)

    def _send(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._cond:
            self._next_message += 1
            rows = (body.get("reply_markup") or {}).get("inline_keyboard") or []
            buttons = [(b["text"], b["callback_data"]) for row in rows for b in row]
            msg = Sent(self._next_message, int(body["chat_id"]), str(body["text"]), buttons)
            self.sent.append(msg)
            self._cond.notify_all()
            return {"message_id": msg.message_id, "chat": {"id": msg.chat_id}, "text": msg.text}

    def _edit(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._cond:
            for m in self.sent:
                if m.message_id == body.get("message_id") and m.chat_id == body.get("chat_id"):
                    m.edits.append(str(body.get("text")))
                    m.buttons = []
                    self._cond.notify_all()
                    return 200, {"ok": True, "result": {"message_id": m.message_id}}
        return 400, {
            "ok": False,
            "error_code": 400,
            "description": "Bad Request: message not found",
        }

    # ----- the phone ----------------------------------------------------------------------

    def _push(self, update: dict[str, Any]) -> None:
        with self._cond:
            self._next_update += 1
            update["update_id"] = self._next_update
            self._updates.append(update)
            self._cond.notify_all()

    def send_text(self, chat_id: int, text: str) -> None:
        self._next_message += 1
        msg = {"message_id": self._next_message, "chat": {"id": chat_id}, "text": text}
        self._push({"message": msg})

    def press(self, chat_id: int, message_id: int, data: str) -> None:
        """Press an inline button of message ``message_id``."""
        self._push(
            {
                "callback_query": {
                    "id": f"cb{self._next_update}",
                    "data": data,
                    "message": {"message_id": message_id, "chat": {"id": chat_id}},
                }
            }
        )

    # ----- waiting ------------------------------------------------------------------------

    def wait_message(self, pred: Callable[[Sent], bool], timeout: float = 30.0) -> Sent:
        return self.wait_for(
            lambda: next((m for m in self.sent if pred(m)), None), timeout, "a sent message"
        )

    def wait_for(
        self, probe: Callable[[], Any], timeout: float = 30.0, what: str = "condition"
    ) -> Any:
        """Block until ``probe()`` is truthy (from a thread; tests on a loop use ``await
        asyncio.to_thread``)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                got = probe()
                if got:
                    return got
                left = deadline - time.monotonic()
                if left <= 0:
                    texts = [m.text[:60] for m in self.sent]
                    raise AssertionError(f"timed out waiting for {what}; sent so far: {texts}")
                self._cond.wait(min(left, 0.2))

    @property
    def last_update_id(self) -> int:
        return self._next_update

    def confirmed(self, update_id: int) -> bool:
        """A getUpdates call confirmed ``update_id`` (its offset went past it)."""
        return any(
            c.method == "getUpdates" and int(c.body.get("offset") or 0) > update_id
            for c in self.calls
        )

    def polls(self) -> int:
        return sum(1 for c in self.calls if c.method == "getUpdates")
