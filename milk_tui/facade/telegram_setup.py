"""``/setup telegram``'s steps for the TUI: check a token (the bot's name), find the chat a
message was sent from, save both and (re)start remote oversight."""

from __future__ import annotations

from typing import TYPE_CHECKING

from milk_tui.agents.redact import register
from milk_tui.agents.telegram_api import BotApi, TelegramError
from milk_tui.config.errors import ConfigError
from milk_tui.config.writer import set_remote_oversight, target_file

if TYPE_CHECKING:
    from milk_tui.facade.application import Application


def mask_token(token: str) -> str:
    """The token as the wizard echoes it: all but its last 6 characters hidden."""
    return "*" * max(len(token) - 6, 0) + token[-6:] if len(token) > 6 else "*" * len(token)


class TelegramSetup:
    def __init__(self, app: Application) -> None:
        self._app = app
        self.api_url = app.runtime.config.remote_oversight.telegram.api_url
        self.token = ""
        self.bot = ""

    async def check_token(self, token: str) -> str:
        """The bot's @name; ValueError with one line when the token does not work."""
        token = token.strip()
        if not token:
            raise ValueError("token is required")
        register(token)  # masked from here on, wherever it would show
        api = BotApi(token, self.api_url)
        try:
            name = await api.get_me()
        except TelegramError as e:
            why = "invalid token — check the value from @BotFather" if not e.unreachable else str(e)
            raise ValueError(f"token validation failed: {why}") from None
        finally:
            await api.aclose()
        self.token, self.bot = token, name
        return name

    async def find_chat(self) -> int | None:
        """The chat of the newest message sent to the bot (None when there is none yet);
        ValueError when Telegram cannot be asked."""
        api = BotApi(self.token, self.api_url)
        try:
            updates = await api.get_updates(0, timeout=0, limit=10)
        except TelegramError as e:
            raise ValueError(str(e)) from None
        finally:
            await api.aclose()
        chats = [u.chat_id for u in updates if u.chat_id and not u.callback_id]
        return chats[-1] if chats else None

    async def save(self, chat_id: int) -> str:
        """Write the token and chat id to the config in use, switch oversight on now; the
        file written.  ValueError with one line when the file cannot be written."""
        path = target_file(self._app.runtime.config_path)
        try:
            set_remote_oversight(path, {"token": self.token, "chat_id": chat_id})
        except ConfigError as e:
            raise ValueError(str(e)) from None
        ro = self._app.runtime.config.remote_oversight
        ro.backend = "telegram"
        ro.telegram.token, ro.telegram.chat_id = self.token, chat_id
        await self._app.restart_remote()
        return str(path)


async def switch(app: Application, on: bool) -> str:
    """``/setup telegram on|off``: the switch written to the config and applied now; the line
    to show.  ValueError when ``on`` lacks a token or chat id."""
    ro = app.runtime.config.remote_oversight
    if on and ro.missing():
        raise ValueError("no Telegram credentials configured — run /setup telegram first")
    path = target_file(app.runtime.config_path)
    try:
        set_remote_oversight(path, {}, backend="telegram" if on else "")
    except ConfigError as e:
        raise ValueError(str(e)) from None
    ro.backend = "telegram" if on else ""
    await app.restart_remote()
    return f"Telegram oversight {'enabled' if on else 'disabled'}"
