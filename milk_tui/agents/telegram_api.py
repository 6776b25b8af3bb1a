"""The Telegram Bot API, the few methods remote oversight needs, over httpx.

https://core.telegram.org/bots/api: every call is ``POST <api_url>/bot<TOKEN>/<method>``
with a JSON body and answers ``{"ok": true, "result": …}`` or ``{"ok": false,
"error_code": N, "description": "…"}``.  The token is part of every URL, so no URL and no
httpx exception text leaves this module unmasked: errors name the method and the reason only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from milk_tui.agents.redact import Redactor

CALL_TIMEOUT_S = 10.0
MAX_TEXT_CHARS = 4096
"""Telegram refuses a longer message text."""


class TelegramError(Exception):
    """A failed call; the text never holds the token.  ``unreachable`` when no answer came."""

    def __init__(self, message: str, *, unreachable: bool = False, retry_after: float = 0) -> None:
        super().__init__(message)
        self.unreachable = unreachable
        self.retry_after = retry_after


@dataclass(frozen=True)
class Update:
    """One incoming update, reduced to what oversight reads."""

    update_id: int
    chat_id: int
    text: str = ""
    message_id: int = 0
    """The message sent (a text) or the message whose button was pressed."""
    callback_id: str = ""
    """Set for a button press (answer it with ``answer_callback_query``)."""
    callback_data: str = ""


@dataclass(frozen=True)
class Button:
    text: str
    data: str


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _update(raw: dict[str, Any]) -> Update | None:
    uid = raw.get("update_id")
    if not isinstance(uid, int):
        return None
    if isinstance(cq := raw.get("callback_query"), dict):
        msg = _obj(cq.get("message"))
        chat = _obj(msg.get("chat"))
        return Update(
            uid,
            int(chat.get("id") or 0),
            message_id=int(msg.get("message_id") or 0),
            callback_id=str(cq.get("id") or ""),
            callback_data=str(cq.get("data") or ""),
        )
    if isinstance(raw.get("message"), dict):
        msg = raw["message"]
        chat = _obj(msg.get("chat"))
        text = msg.get("text")
        return Update(
            uid,
            int(chat.get("id") or 0),
            text=text if isinstance(text, str) else "",
            message_id=int(msg.get("message_id") or 0),
        )
    return Update(uid, 0)


class BotApi:
    def __init__(self, token: str, api_url: str, *, client: httpx.AsyncClient | None = None):
        self._base = f"{api_url.rstrip('/')}/bot{token}/"
        self._redact = Redactor(token)
        self._client = client or httpx.AsyncClient(timeout=CALL_TIMEOUT_S)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def _call(
        self, method: str, body: dict[str, Any], *, timeout: float = CALL_TIMEOUT_S
    ) -> Any:
        try:
            r = await self._client.post(self._base + method, json=body, timeout=timeout)
        except httpx.HTTPError as e:
            why = type(e).__name__
            raise TelegramError(
                f"Telegram {method}: unreachable ({why})", unreachable=True
            ) from None
        try:
            data = r.json()
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise TelegramError(
                f"Telegram {method}: HTTP {r.status_code}", unreachable=r.status_code >= 500
            )
        if not data.get("ok"):
            desc = self._redact(str(data.get("description") or f"HTTP {r.status_code}"))[:200]
            retry = _obj(data.get("parameters")).get("retry_after")
            raise TelegramError(
                f"Telegram {method}: {desc}",
                unreachable=r.status_code >= 500,
                retry_after=float(retry) if isinstance(retry, int | float) else 0,
            )
        return data.get("result")

    async def get_me(self) -> str:
        """The bot's @username (without the @)."""
        result = await self._call("getMe", {})
        return str(result.get("username") or "") if isinstance(result, dict) else ""

    async def get_updates(self, offset: int, *, timeout: int = 20, limit: int = 20) -> list[Update]:
        """Long-poll: updates with ids ≥ ``offset`` (``-1``: the last one only), waiting up to
        ``timeout`` seconds for one; an offset confirms every earlier update."""
        body = {
            "offset": offset, "timeout": timeout, "limit": limit,
            "allowed_updates": ["message", "callback_query"],
        }  # fmt: skip
        result = await self._call("getUpdates", body, timeout=timeout + CALL_TIMEOUT_S)
        raw = result if isinstance(result, list) else []
        return [u for r in raw if isinstance(r, dict) and (u := _update(r)) is not None]

    async def send_message(
        self, chat_id: int, text: str, buttons: list[Button] | None = None
    ) -> int:
        """Send plain text (no parse mode); the new message's id."""
        body: dict[str, Any] = {"chat_id": chat_id, "text": clip(text)}
        if buttons:
            body["reply_markup"] = _keyboard(buttons)
        result = await self._call("sendMessage", body)
        return int(result.get("message_id") or 0) if isinstance(result, dict) else 0

    async def edit_message_text(self, chat_id: int, message_id: int, text: str) -> None:
        """Replace a message's text (its buttons go with the old markup)."""
        body = {"chat_id": chat_id, "message_id": message_id, "text": clip(text)}
        await self._call("editMessageText", body)

    async def answer_callback_query(self, callback_id: str, text: str = "") -> None:
        body: dict[str, Any] = {"callback_query_id": callback_id}
        if text:
            body["text"] = clip(text, 200)
        await self._call("answerCallbackQuery", body)


def _keyboard(buttons: list[Button]) -> dict[str, Any]:
    return {"inline_keyboard": [[{"text": b.text, "callback_data": b.data[:64]} for b in buttons]]}


def clip(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """At most ``limit`` characters (Python cuts by character, never inside one)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
