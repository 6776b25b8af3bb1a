"""``/tasks`` (the list, in the conversation, and the tasks pane shown) and ``/task add TEXT``,
``/task done ID`` (an id or a unique prefix of 4+ characters); ``/task add --global TEXT``
adds to the list every session shows."""

from __future__ import annotations

from milk_tui.model.terminal_text import inert
from milk_tui.tui.slash.base import SlashGroup

USAGE = "usage: /task add [--global] TEXT | /task done ID"


class TaskCommands(SlashGroup):
    async def cmd_tasks(self, arg: str) -> None:
        tasks = self.facade.tasks.list()
        lines = ["tasks:"]
        for scope, title in (("session", "this session"), ("global", "global")):
            rows = [t for t in tasks if t.scope == scope]
            lines.append(f"  {title}:" + ("" if rows else " (none)"))
            lines += [f"    {t.id}  {t.status:<11}  {inert(t.text)}" for t in rows]
        self.say("\n".join(lines))

    async def cmd_task(self, arg: str) -> None:
        verb, _, rest = arg.strip().partition(" ")
        rest = rest.strip()
        everywhere = rest.startswith("--global")
        rest = rest.removeprefix("--global").strip() if everywhere else rest
        if verb == "add" and rest:
            t = self.facade.tasks.add(rest, global_=everywhere)
            self.say(f"task {t.id} added: {inert(t.text)}")
        elif verb == "done" and rest:
            t = self.facade.tasks.done(rest)  # an unknown or ambiguous id: ValueError, one line
            self.say(f"task {t.id} marked done: {inert(t.text)}")
        else:
            raise ValueError(USAGE)
