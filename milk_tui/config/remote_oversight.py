"""The ``remote_oversight`` config key: permission questions, turn ends and prompts over a
Telegram bot (docs/adr/0041-remote-oversight-over-telegram.md).

Go milk's keys keep their names and places: ``backend`` is the switch (``"telegram"``),
``telegram.token`` / ``telegram.chat_id`` the bot and the one chat obeyed, and
``perm_timeout_secs``, ``timeout_action``, ``notify_tools`` sit beside them.  Added here:
``telegram.token_cmd`` (the token read from a command, as an agent's ``token_cmd``) and
``telegram.api_url`` (a local server standing in for Telegram).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

DEFAULT_API_URL = "https://api.telegram.org"
DEFAULT_PERM_TIMEOUT_SECS = 120


class TelegramConfig(BaseModel):
    model_config = ConfigDict(extra="ignore")
    token: str = ""
    """The bot's token from @BotFather: a secret, masked in every message and log."""
    token_cmd: str = ""
    """A shell command printing the token (used when ``token`` is empty)."""
    chat_id: int = 0
    """The only chat whose messages and button presses are obeyed."""
    api_url: str = DEFAULT_API_URL
    """The Bot API's base URL (a local fake in tests)."""


class RemoteOversightConfig(BaseModel):
    model_config = ConfigDict(extra="ignore")
    backend: str = ""
    """``"telegram"`` turns oversight on; anything else leaves it off."""
    telegram: TelegramConfig = Field(default_factory=TelegramConfig)
    perm_timeout_secs: int = 0
    """How long a permission question waits for an answer; 0 or less means 120."""
    timeout_action: Literal["allow", "deny"] = "deny"
    """What an unanswered permission question becomes after ``perm_timeout_secs``."""
    notify_tools: bool = True
    """Send a line to the phone for each tool call."""

    @field_validator("telegram", mode="before")
    @classmethod
    def _null_telegram(cls, v: Any) -> Any:
        return {} if v is None else v

    @field_validator("timeout_action", mode="before")
    @classmethod
    def _action(cls, v: Any) -> Any:
        return "allow" if isinstance(v, str) and v.strip().lower() == "allow" else "deny"

    @property
    def perm_timeout(self) -> float:
        return float(
            self.perm_timeout_secs if self.perm_timeout_secs > 0 else DEFAULT_PERM_TIMEOUT_SECS
        )

    @property
    def wanted(self) -> bool:
        """The user switched Telegram oversight on (whether or not it is complete)."""
        return self.backend.strip().lower() == "telegram"

    def missing(self) -> str:
        """What keeps a switched-on oversight from running ("" when nothing)."""
        t = self.telegram
        if not (t.token.strip() or t.token_cmd.strip()):
            return "remote_oversight.telegram.token is not set (run /setup telegram)"
        if not t.chat_id:
            return "remote_oversight.telegram.chat_id is not set (run /setup telegram)"
        return ""
