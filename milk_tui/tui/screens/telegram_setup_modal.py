"""``/setup telegram``: the token (checked with getMe, the bot's name shown), then "send any
message to your bot" and Enter (the chat id read from getUpdates), then saved to the config."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Button, Input, Static

from milk_tui.facade.telegram_setup import TelegramSetup, mask_token
from milk_tui.model.terminal_text import inert
from milk_tui.tui.screens.milk_modal import MilkModal

INTRO = (
    "1. Message @BotFather on Telegram.\n"
    "2. Send /newbot and follow the steps.\n"
    "3. BotFather gives you a token like 123456:ABC-DEF…; paste it below and press Enter."
)


class TelegramSetupModal(MilkModal[str | None]):
    """Dismissed with the line to show (or None when cancelled)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, setup: TelegramSetup) -> None:
        super().__init__("Telegram setup")
        self.setup = setup
        self.step = "token"
        """``token`` → ``chat`` (waiting for the message to the bot) → ``done``."""

    def compose_body(self) -> ComposeResult:
        yield Static(INTRO, id="tg-help", markup=False)
        yield Input(placeholder="bot token", password=True, id="tg-token")
        yield Static("", id="tg-status", markup=False)

    def compose_buttons(self) -> ComposeResult:
        yield Button("Next", id="next", variant="primary")
        yield Button("Cancel", id="cancel")

    def status(self, text: str) -> None:
        self.query_one("#tg-status", Static).update(inert(text))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "cancel":
            self.action_cancel()
        else:
            self.action_next()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_next()

    def on_key(self, event: events.Key) -> None:
        if event.key == "enter" and self.step == "chat":
            event.stop()
            self.action_next()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_next(self) -> None:
        if self.step == "token":
            self.run_worker(self._check_token(), group="tg-setup", exclusive=True)
        elif self.step == "chat":
            self.run_worker(self._find_chat(), group="tg-setup", exclusive=True)

    async def _check_token(self) -> None:
        box = self.query_one("#tg-token", Input)
        token = box.value.strip()
        self.status(f"validating token {mask_token(token)}…")
        try:
            name = await self.setup.check_token(token)
        except ValueError as e:
            self.status(str(e))
            return
        box.value = ""
        box.display = False
        self.step = "chat"
        self.query_one("#tg-help", Static).update(
            inert(
                f"bot validated: @{name}\nNow send any message to @{name} on Telegram, "
                "then press Enter here."
            )
        )
        self.status("(press Enter when done)")
        self.query_one("#next", Button).focus()

    async def _find_chat(self) -> None:
        self.status("looking for your chat ID…")
        try:
            chat = await self.setup.find_chat()
        except ValueError as e:
            self.status(f"{e} — press Enter to try again")
            return
        if chat is None:
            self.status("no messages found — send any message to the bot and press Enter again")
            return
        self.step = "done"
        try:
            path = await self.setup.save(chat)
        except ValueError as e:
            self.dismiss(f"Telegram setup not saved: {e}")
            return
        self.dismiss(f"Telegram configured (chat_id: {chat}) in {path} — oversight on")
