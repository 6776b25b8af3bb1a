"""What each slash command does.  Commands only talk to the dispatcher, the session store
and the memory service; the screen shows the outcome."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from milk_tui.storage.db import StorageError
from milk_tui.tui.commands import SlashCommand
from milk_tui.tui.transcript import export_text

if TYPE_CHECKING:
    from milk_tui.tui.screens.main import MainScreen


class SlashHandler:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen

    @property
    def rt(self):  # type: ignore[no-untyped-def]
        return self.screen.milk.runtime

    def say(self, text: str, kind: str = "notice") -> None:
        from milk_tui.tui.widgets.conversation import Conversation

        self.screen.query_one(Conversation).add_line(kind, text)

    async def run(self, cmd: SlashCommand, arg: str) -> None:
        handler = getattr(self, "cmd_" + cmd.name.lstrip("/"))
        try:
            await handler(arg)
        except StorageError as e:
            self.say(f"{cmd.name}: storage error: {e}", "error")
        except (KeyError, ValueError) as e:
            self.say(f"{cmd.name}: {e}", "error")

    # ----- routing ----------------------------------------------------------------------

    async def cmd_escalate(self, arg: str) -> None:
        prompt = self.rt.dispatcher.escalate_command(arg)
        if prompt:
            self.screen.submit_prompt(prompt, force="escalate")

    async def cmd_primary(self, arg: str) -> None:
        prompt = self.rt.dispatcher.primary_command(arg)
        if prompt:
            self.screen.submit_prompt(prompt, force="primary")

    # ----- sessions ---------------------------------------------------------------------

    async def cmd_new(self, arg: str) -> None:
        d = self.rt.dispatcher
        session = self.rt.store.create(d.cwd, arg.strip())
        await self.switch_to(session)

    async def switch_to(self, session) -> None:  # type: ignore[no-untyped-def]
        d = self.rt.dispatcher
        await d.switch_session(session)
        self.screen.load_session(session)

    async def cmd_sessions(self, arg: str) -> None:
        await self.open_sessions()

    async def open_sessions(self) -> None:
        from milk_tui.tui.sessions_screen import SessionsScreen

        d = self.rt.dispatcher

        async def done(result) -> None:  # type: ignore[no-untyped-def]
            if not result:
                return
            action, value = result
            if d.busy:
                self.say("cannot switch sessions while a turn is running", "warning")
                return
            if action == "switch" and value != d.session.id:
                s = self.rt.store.load(value)
                if s is None:
                    self.say(f"session {value[:8]} no longer exists", "error")
                    return
                await self.switch_to(s)
            elif action == "new":
                await self.switch_to(self.rt.store.create(d.cwd, value or ""))

        self.screen.app.push_screen(
            SessionsScreen(self.rt.store, cwd=d.cwd, current_id=d.session.id), done
        )

    # ----- memory -------------------------------------------------------------------------

    async def cmd_learn(self, arg: str) -> None:
        if not arg.strip():
            raise ValueError("usage: /learn <fact>")
        p = self.rt.memory.record(arg.strip(), producer="user", consumer="all", scope="global")
        if p is not None:
            self.say(f'learned: "{p.content}" (id {p.id})')

    async def cmd_forget(self, arg: str) -> None:
        mem = self.rt.memory
        key = arg.strip().lstrip("#")
        if not key:
            raise ValueError("usage: /forget <id|text>")
        if key.isdigit():
            target = mem.get(int(key))
            if target is None:
                raise ValueError(f"no remembered fact #{key}")
        else:
            hits = mem.search(key, limit=10)
            if not hits:
                raise ValueError(f"no remembered fact matches '{key}'")
            if len(hits) > 1:
                self.say(f"{len(hits)} facts match '{key}' — /forget <id> one of:")
                for p in hits:
                    self.say(f"#{p.id}  {p.content[:100]}")
                return
            target = hits[0]
        from milk_tui.tui.screens.confirm_modal import ConfirmModal

        def confirmed(yes: bool | None) -> None:
            if yes and mem.delete(target.id):
                self.say(f'forgot #{target.id}: "{target.content[:80]}"')

        self.screen.app.push_screen(
            ConfirmModal(
                f"Forget fact #{target.id}?", target.content[:300], confirm_label="Forget"
            ),
            confirmed,
        )

    async def cmd_memory(self, arg: str) -> None:
        await self.open_memory()

    async def open_memory(self) -> None:
        from milk_tui.tui.facts.screen import FactsScreen

        self.screen.app.push_screen(
            FactsScreen(self.rt.memory, session_id=self.rt.dispatcher.session.id)
        )

    async def cmd_need(self, arg: str) -> None:
        s = self.rt.dispatcher.session
        if not s.current_need:
            self.say("no current need recorded yet")
            return
        label = "may already be fulfilled" if s.need_is_stale() else "current"
        self.say(
            f"need: {s.current_need}  [{label}; set by {s.need_producer or '?'} at turn "
            f"{s.current_need_set_at}]"
        )
        from milk_tui.tui.widgets.need_pane import NeedPane

        for old in reversed(self.screen.query_one(NeedPane).earlier):
            self.say(f"before: {old}")

    # ----- presentation -------------------------------------------------------------------

    async def cmd_think(self, arg: str) -> None:
        a = arg.strip().lower()
        if a in ("on", "show", "true", "1"):
            self.screen.set_thinking(True)
        elif a in ("off", "hide", "false", "0"):
            self.screen.set_thinking(False)
        elif not a:
            self.screen.set_thinking(not self.screen.milk.ui_state.show_thinking)
        else:
            raise ValueError("usage: /think [on|off]")

    async def cmd_theme(self, arg: str) -> None:
        name = arg.strip()
        app = self.screen.app
        if not name:
            app.action_change_theme()
            return
        if name not in app.available_themes:
            raise ValueError(
                f"unknown theme '{name}' (known: {', '.join(sorted(app.available_themes))})"
            )
        app.theme = name
        self.say(f"theme: {name}")

    async def cmd_export(self, arg: str) -> None:
        from milk_tui.tui.widgets.conversation import Conversation

        s = self.rt.dispatcher.session
        path = Path(arg.strip() or f"milk-transcript-{s.id[:8]}.txt").expanduser()
        if not path.is_absolute():
            path = Path(self.rt.dispatcher.cwd) / path
        items = self.screen.query_one(Conversation).items
        try:
            path.write_text(export_text(items), encoding="utf-8")
        except OSError as e:
            raise ValueError(f"cannot write {path}: {e.strerror or e}") from None
        self.say(f"exported {len(items)} blocks to {path}")

    async def cmd_help(self, arg: str) -> None:
        self.screen.action_help()

    async def cmd_quit(self, arg: str) -> None:
        await self.screen.app.run_action("quit")
