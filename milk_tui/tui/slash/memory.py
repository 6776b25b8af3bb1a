"""Remembered facts and the need: /learn, /forget, /memory, /need."""

from __future__ import annotations

from typing import TYPE_CHECKING

from milk_tui.model.percept import Percept
from milk_tui.tui.slash.base import SlashGroup

if TYPE_CHECKING:
    pass


class MemoryCommands(SlashGroup):
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
        await self.open_memory(arg.strip())

    async def open_memory(self, search: str = "") -> None:
        """The facts screen; ``search`` (``/memory PATTERN``) is typed in its search box."""
        from milk_tui.tui.facts.screen import FactsScreen

        self.screen.app.push_screen(
            FactsScreen(self.facade.facts, session_id=self.facade.session_id, search=search)
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
