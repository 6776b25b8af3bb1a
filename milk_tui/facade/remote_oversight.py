"""Remote oversight over a Telegram bot: the phone sees permission questions, tool calls and
turn ends, answers permissions (buttons or y/n/always), and sends prompts.

It listens on the bus like a front end and answers through the facade, so the terminal and
the phone race on one ``PermissionBroker``: the first answer wins, the second is ignored.
Off (the default, or incomplete) it abstains entirely: nothing is sent, nothing is answered.
Telegram unreachable: one notice, polling backs off exponentially, sends are dropped, and
no turn waits on Telegram (an unanswered question ends at ``perm_timeout_secs`` with
``timeout_action``).  Messages are plain text (no parse mode), so untrusted text cannot
form markup and needs no escaping; each is capped and masked (the token, every known
secret).  Design: docs/adr/0041-remote-oversight-over-telegram.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from milk_tui.agents.credential_cmd import CredentialCommand
from milk_tui.agents.redact import Redactor
from milk_tui.agents.telegram_api import BotApi, Button, TelegramError, Update
from milk_tui.config.remote_oversight import RemoteOversightConfig
from milk_tui.engine.permissions import summary
from milk_tui.model import events as ev
from milk_tui.model.terminal_text import inert

if TYPE_CHECKING:
    from milk_tui.facade.application import Application

POLL_TIMEOUT_S = 20
BACKOFF_FIRST_S = 1.0
BACKOFF_MAX_S = 60.0
REPLY_CHARS = 600
INPUT_CHARS = 300
TOKEN_CMD_TIMEOUT_S = 15.0
DRAIN_S = 5.0
ANSWERS = {"y": "yes", "yes": "yes", "n": "no", "no": "no", "always": "always", "a": "always"}


@dataclass
class _Pending:
    request_id: str
    tool: str
    message_id: int = 0
    timer: asyncio.Task[None] | None = None


class RemoteOversight:
    def __init__(self, app: Application, cfg: RemoteOversightConfig, api: BotApi, token: str):
        self._app = app
        self._cfg = cfg
        self._api = api
        self._chat = cfg.telegram.chat_id
        self._redact = Redactor(token)
        self._pending: dict[str, _Pending] = {}
        self._sends: asyncio.Queue[Callable[[], Awaitable[None]]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._ignored_chats: set[int] = set()
        self._down = False
        self._remove: Callable[[], None] | None = None
        self.bot_name = ""

    # ----- life ---------------------------------------------------------------------------

    def start(self) -> None:
        self._remove = self._app.add_listener(self._on_event)
        self._app.runtime.dispatcher.state.remote_answerer = True
        self._tasks = [
            asyncio.create_task(self._poll_loop(), name="telegram-poll"),
            asyncio.create_task(self._send_loop(), name="telegram-send"),
        ]

    async def stop(self) -> None:
        """Stop listening; the messages already queued (the last turn's end) get a short
        while to go out."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._sends.join(), DRAIN_S)
        if self._remove is not None:
            self._remove()
        self._app.runtime.dispatcher.state.remote_answerer = False
        for p in self._pending.values():
            if p.timer is not None:
                p.timer.cancel()
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        await self._api.aclose()

    def status(self) -> str:
        state = "unreachable, retrying" if self._down else "connected"
        return f"Telegram oversight on (chat {self._chat}, {state})"

    # ----- outgoing -----------------------------------------------------------------------

    def _text(self, text: str, cap: int = REPLY_CHARS) -> str:
        text = self._redact.values(inert(text))
        return text if len(text) <= cap else text[: cap - 1] + "…"

    def _send(
        self, text: str, buttons: list[Button] | None = None, keep: _Pending | None = None
    ) -> None:
        async def go() -> None:
            mid = await self._api.send_message(self._chat, text, buttons)
            if keep is not None:
                keep.message_id = mid

        self._sends.put_nowait(go)

    def _edit(self, pending: _Pending, text: str) -> None:
        async def go() -> None:
            if pending.message_id:
                await self._api.edit_message_text(self._chat, pending.message_id, text)

        self._sends.put_nowait(go)

    async def _send_loop(self) -> None:
        while True:
            job = await self._sends.get()
            try:
                await job()
                self._reachable()
            except TelegramError as e:
                if e.unreachable:
                    self._unreachable(str(e))
                else:
                    self._warn(str(e))
            finally:
                self._sends.task_done()

    # ----- bus ----------------------------------------------------------------------------

    def _on_event(self, event: ev.BusEvent) -> None:
        match event:
            case ev.PermissionRequested():
                self._ask(event)
            case ev.PermissionDecided(request_id=rid) if rid in self._pending:
                self._decided(self._pending.pop(rid), event)
            case ev.ToolCall(name=name, arguments=args) if self._cfg.notify_tools:
                self._send(self._text(f"⚙ {name}: {_call_summary(args)}", INPUT_CHARS))
            case ev.TurnCompleted(agent_name=agent, text=text):
                self._send(self._text(f"✅ {agent} finished:\n{text.strip() or '(no text)'}"))
            case ev.TurnFailed(cancelled=False, agent_name=agent, error=error):
                self._send(self._text(f"❌ {agent or 'turn'} failed: {error}", INPUT_CHARS))
            case _:
                pass

    def _ask(self, e: ev.PermissionRequested) -> None:
        p = _Pending(e.request_id, e.tool_name)
        self._pending[e.request_id] = p
        lines = [f"🔐 {e.agent_name} asks to use {e.tool_name}", summary(e.tool_input)]
        if e.outside_paths:
            lines.append("outside the folder: " + ", ".join(e.outside_paths))
        lines.append("Answer with a button, or reply y / n / always.")
        text = self._text("\n".join(x for x in lines if x), INPUT_CHARS * 2)
        rid = e.request_id
        buttons = [
            Button("Yes", f"perm:{rid}:y"),
            Button("Always", f"perm:{rid}:a"),
            Button("No", f"perm:{rid}:n"),
        ]
        self._send(text, buttons, keep=p)
        p.timer = asyncio.get_running_loop().create_task(self._time_out(p))

    async def _time_out(self, p: _Pending) -> None:
        await asyncio.sleep(self._cfg.perm_timeout)
        allow = self._cfg.timeout_action == "allow"
        why = "" if allow else f"no answer within {self._cfg.perm_timeout:g}s"
        self._app.answer_permission(p.request_id, allow, reason=why, answered_from="timeout")

    def _decided(self, p: _Pending, e: ev.PermissionDecided) -> None:
        if p.timer is not None and p.timer is not asyncio.current_task():
            p.timer.cancel()
        outcome = "allowed" if e.allowed else "denied"
        if e.how == "always":
            outcome = "allowed for this folder"
        where = {
            "telegram": "answered here",
            "timeout": "no answer in time",
        }.get(e.answered_from, "answered in the terminal" if e.how in ("user", "always") else e.how)
        self._edit(p, self._text(f"🔐 {p.tool}: {outcome} — {where}", INPUT_CHARS))

    # ----- incoming -----------------------------------------------------------------------

    async def _poll_loop(self) -> None:
        offset = -1  # the last update only: a backlog (the setup message, old texts) is skipped
        first = True
        delay = BACKOFF_FIRST_S
        while True:
            try:
                updates = await self._api.get_updates(
                    offset, timeout=0 if first else POLL_TIMEOUT_S
                )
            except TelegramError as e:
                if e.unreachable:
                    self._unreachable(str(e))
                else:
                    self._warn(str(e))
                await asyncio.sleep(max(delay, e.retry_after))
                delay = min(delay * 2, BACKOFF_MAX_S)
                continue
            delay = BACKOFF_FIRST_S
            self._reachable()
            for u in updates:
                offset = max(offset, u.update_id + 1)
                if not first:
                    self._handle(u)
            if first and not updates:
                offset = 0
            first = False

    def _handle(self, u: Update) -> None:
        if u.chat_id != self._chat:
            if u.chat_id not in self._ignored_chats:
                self._ignored_chats.add(u.chat_id)
                self._warn(
                    f"Telegram: messages from chat {u.chat_id} ignored (not the configured chat_id)"
                )
            return
        if u.callback_id:
            self._button(u)
        elif u.text.strip():
            self._message(u.text.strip())

    def _button(self, u: Update) -> None:
        kind, _, rest = u.callback_data.partition(":")
        rid, _, choice = rest.rpartition(":")
        said = "already answered"
        if kind == "perm" and rid in self._pending and choice in ("y", "a", "n"):
            self._answer(rid, {"y": "yes", "a": "always", "n": "no"}[choice])
            said = {"y": "allowed", "a": "allowed for this folder", "n": "denied"}[choice]
        callback = u.callback_id

        async def go() -> None:
            await self._api.answer_callback_query(callback, said)

        self._sends.put_nowait(go)

    def _message(self, text: str) -> None:
        word = ANSWERS.get(text.lower())
        if self._pending:
            rid = next(iter(self._pending))
            if word is None:
                self._send("A permission question is waiting: reply y, n or always.")
            else:
                self._answer(rid, word)
            return
        if word is not None:
            self._send("No permission question is waiting.")
            return
        if text.startswith("/"):
            self._send("Commands are not taken from the phone; send a prompt as plain text.")
            return
        if self._app.submit(text) is None:
            self._send("busy — a turn is running; not sent")
            return
        self._app.runtime.bus.publish(
            ev.Notice(message=f"prompt from Telegram: {inert(text)[:INPUT_CHARS]}")
        )

    def _answer(self, rid: str, word: str) -> None:
        self._app.answer_permission(
            rid, word != "no", always=word == "always", answered_from="telegram"
        )

    # ----- notices ------------------------------------------------------------------------

    def _warn(self, message: str) -> None:
        self._app.runtime.bus.publish(ev.Notice(level="warning", message=self._redact(message)))

    def _unreachable(self, why: str) -> None:
        if not self._down:
            self._down = True
            self._warn(f"{why} — remote oversight retries with back-off")

    def _reachable(self) -> None:
        if self._down:
            self._down = False
            self._app.runtime.bus.publish(ev.Notice(message="Telegram reachable again"))


def _call_summary(arguments: str) -> str:
    try:
        data = json.loads(arguments or "{}")
    except ValueError:
        return arguments
    return summary(data) if isinstance(data, dict) else str(data)


async def start_remote_oversight(app: Application) -> RemoteOversight | None:
    """Start oversight when the config switches it on; None (and at most one notice) when
    it is off or cannot run.  Never raises."""
    cfg = app.runtime.config.remote_oversight
    if not cfg.wanted:
        return None
    if missing := cfg.missing():
        app.runtime.bus.publish(
            ev.Notice(level="warning", message=f"remote oversight off: {missing}")
        )
        return None
    t = cfg.telegram
    token = t.token.strip()
    if not token:
        cmd = CredentialCommand(
            t.token_cmd, "token_cmd", "remote_oversight.telegram", "telegram",
            Redactor(), TOKEN_CMD_TIMEOUT_S,
        )  # fmt: skip
        try:
            token = await cmd.get()
        except Exception as e:  # AgentError: one line, never the output
            app.runtime.bus.publish(
                ev.Notice(level="warning", message=f"remote oversight off: {e}")
            )
            return None
    oversight = RemoteOversight(app, cfg, BotApi(token, t.api_url), token)
    oversight.start()
    return oversight
