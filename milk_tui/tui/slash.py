"""What each slash command does.  Commands only talk to the application facade; the screen
shows the outcome."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from milk_tui.facade.errors import StorageError
from milk_tui.model.percept import Percept
from milk_tui.tui.commands import SlashCommand
from milk_tui.tui.transcript import Kind, export_text

if TYPE_CHECKING:
    from milk_tui.facade.application import Application
    from milk_tui.tui.screens.main import MainScreen
    from milk_tui.tui.sessions_screen import SessionAction


class SlashHandler:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen

    @property
    def facade(self) -> Application:
        return self.screen.facade

    def say(self, text: str, kind: Kind = "notice") -> None:
        from milk_tui.tui.widgets.conversation import Conversation

        self.screen.query_one(Conversation).add_line(kind, text)

    async def run(self, cmd: SlashCommand, arg: str) -> None:
        handler = getattr(self, "cmd_" + cmd.name.lstrip("/").replace("-", "_"))
        try:
            await handler(arg)
        except StorageError as e:
            self.say(f"{cmd.name}: storage error: {e}", "error")
        except (KeyError, ValueError) as e:
            self.say(f"{cmd.name}: {e}", "error")

    # ----- routing ----------------------------------------------------------------------

    async def cmd_escalate(self, arg: str) -> None:
        prompt = self.facade.escalate_command(arg)
        if prompt:
            self.screen.submit_prompt(prompt, force="escalate")

    async def cmd_primary(self, arg: str) -> None:
        prompt = self.facade.primary_command(arg)
        if prompt:
            self.screen.submit_prompt(prompt, force="primary")

    async def cmd_auto(self, arg: str) -> None:
        self.facade.auto_command()

    # ----- sessions ---------------------------------------------------------------------

    async def cmd_new(self, arg: str) -> None:
        self.screen.load_session(await self.facade.new_session(arg.strip()))

    async def cmd_sessions(self, arg: str) -> None:
        await self.open_sessions()

    async def open_sessions(self) -> None:
        from milk_tui.tui.sessions_screen import SessionsScreen

        a = self.facade

        async def done(result: SessionAction | None) -> None:
            if not result:
                return
            action, value = result
            if a.busy:
                self.say("cannot switch sessions while a turn is running", "warning")
                return
            if action == "switch" and value != a.session_id:
                view = await a.switch_session(value)
                if view is None:
                    self.say(f"session {value[:8]} no longer exists", "error")
                    return
                self.screen.load_session(view)
            elif action == "new":
                self.screen.load_session(await a.new_session(value or ""))

        self.screen.app.push_screen(
            SessionsScreen(a.sessions, cwd=a.cwd, current_id=a.session_id), done
        )

    # ----- memory -------------------------------------------------------------------------

    async def cmd_learn(self, arg: str) -> None:
        if not arg.strip():
            raise ValueError("usage: /learn <fact>")
        p = self.facade.facts.remember(arg.strip(), producer="user", consumer="all", scope="global")
        if p is not None:
            self.say(f'learned: "{p.content}" (id {p.id})')

    async def cmd_forget(self, arg: str) -> None:
        facts = self.facade.facts
        key = arg.strip().lstrip("#")
        if not key:
            raise ValueError("usage: /forget <id|text>")
        target: Percept | None
        if key.isdigit():
            target = facts.get(int(key))
            if target is None:
                raise ValueError(f"no remembered fact #{key}")
        else:
            hits = facts.find(key, limit=10)
            if not hits:
                raise ValueError(f"no remembered fact matches '{key}'")
            if len(hits) > 1:
                self.say(f"{len(hits)} facts match '{key}' — /forget <id> one of:")
                for p in hits:
                    self.say(f"#{p.id}  {p.content[:100]}")
                return
            target = hits[0]
        from milk_tui.tui.screens.confirm_modal import ConfirmModal

        chosen = target

        def confirmed(yes: bool | None) -> None:
            if yes and facts.forget(chosen.id):
                self.say(f'forgot #{chosen.id}: "{chosen.content[:80]}"')

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
            FactsScreen(self.facade.facts, session_id=self.facade.session_id)
        )

    async def cmd_need(self, arg: str) -> None:
        if arg.strip():
            if self.facade.busy:
                raise ValueError("the need can be set once the agent has answered")
            if self.facade.set_need(arg):
                self.say(f"need set: {arg.strip()}")
            else:
                self.say("that is the need already")
            return
        v = self.facade.session_view()
        if not v.need:
            self.say("no current need recorded yet")
            return
        label = "may already be fulfilled" if v.need_stale else "current"
        when = f"in question {v.need_question}" if v.need_question else "after the last answer"
        self.say(f"need: {v.need}  [{label}; set by {v.need_producer or '?'} {when}]")
        from milk_tui.tui.widgets.need_pane import NeedPane

        for old in reversed(self.screen.query_one(NeedPane).earlier):
            self.say(f"before: {old}")

    # ----- MCP servers -------------------------------------------------------------------

    async def cmd_mcp(self, arg: str) -> None:
        from milk_tui.tui.screens.mcp_screen import McpScreen

        verb, _, name = arg.strip().partition(" ")
        servers = self.facade.mcp
        if not verb:
            self.screen.app.push_screen(McpScreen(servers))
        elif verb in ("enable", "disable", "reconnect") and name.strip():
            ok = getattr(servers, verb)(name.strip())
            done = {"enable": "enabled", "disable": "disabled", "reconnect": "reconnecting"}[verb]
            self.say(f"mcp server '{name.strip()}': {done if ok else 'no such server'}")
        elif verb == "tools" and name.strip():
            tools = servers.tools(name.strip())
            if tools is None:
                raise ValueError(f"no mcp server named '{name.strip()}'")
            self.say("\n".join(t.name for t in tools) or f"'{name.strip()}' offers no tools now")
        else:
            raise ValueError("usage: /mcp [tools|enable|disable|reconnect <server>]")

    # ----- permissions -------------------------------------------------------------------

    async def cmd_permissions(self, arg: str) -> None:
        perms = self.facade.permissions
        verb, _, rest = arg.partition(" ")
        tools = rest.split()
        if verb in ("revoke", "grant") and tools:
            left = perms.revoke(tools) if verb == "revoke" else perms.grant(tools)
            self.say(f"{verb}d {', '.join(tools)}; allowed here: {', '.join(left) or 'none'}")
            return
        if verb:
            raise ValueError("usage: /permissions [revoke|grant <tool>...]")
        listed = perms.show()
        for warning in listed.warnings:
            self.say(warning, "warning")
        if listed.tools:
            self.say(f"allowed without asking in {listed.cwd}: {', '.join(listed.tools)}")
            self.say("/permissions revoke <tool> to be asked again")
        else:
            self.say(f"no tools allowed without asking in {listed.cwd}")
        if listed.claude_rules:
            rules = ", ".join(listed.claude_rules)
            self.say(f"Claude CLI rules (.claude/settings.local.json): {rules}")
        if perms.skip:
            self.say("skip-permissions is on: every tool call runs without asking", "warning")

    async def cmd_skip_permissions(self, arg: str) -> None:
        from milk_tui.tui.widgets.status_line import StatusLine

        a = arg.strip().lower()
        if a not in ("on", "off"):
            raise ValueError("usage: /skip-permissions on|off")
        self.facade.permissions.skip = a == "on"
        self.screen.query_one(StatusLine).set_skip_permissions(a == "on")
        if a == "on":
            self.say("skip-permissions on: both agents run every tool without asking", "warning")
        else:
            self.say("skip-permissions off: tools ask again")

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

        path = Path(arg.strip() or f"milk-transcript-{self.facade.session_id[:8]}.txt").expanduser()
        if not path.is_absolute():
            path = Path(self.facade.cwd) / path
        items = self.screen.query_one(Conversation).items
        try:
            # A transcript holds whatever the session held: created 0600 like the database
            # (docs/adr/0015-no-secret-on-disk.md); an existing file keeps its mode.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(export_text(items))
        except OSError as e:
            raise ValueError(f"cannot write {path}: {e.strerror or e}") from None
        self.say(f"exported {len(items)} blocks to {path}")

    async def cmd_help(self, arg: str) -> None:
        self.screen.action_help()

    async def cmd_quit(self, arg: str) -> None:
        await self.screen.app.run_action("quit")
