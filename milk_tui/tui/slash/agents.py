"""The agents: /agent (list, switch, escalation, add, remove) and /reload, plus the config
file watch the main screen runs every ``CONFIG_WATCH_S``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from milk_tui.tui.slash.base import SlashGroup

if TYPE_CHECKING:
    from milk_tui.facade.agents import ReloadResult
    from milk_tui.tui.screens.main import MainScreen

CONFIG_WATCH_S = 1.0
"""How often the config file's time and size are compared (a stat, in a thread)."""

USAGE = (
    "usage: /agent [list | switch <name> [as escalation] | escalation <name> | add | remove <name>]"
)


class AgentCommands(SlashGroup):
    async def cmd_agent(self, arg: str) -> None:
        verb, _, rest = arg.strip().partition(" ")
        name = rest.strip()
        agents = self.facade.agents
        match verb.lower():
            case "" | "list" | "status":
                self.open_list()
            case "switch" if name:
                who, _, role = name.partition(" as ")
                slot = role.strip().lower() or "primary"
                if slot not in ("primary", "escalation"):
                    raise ValueError(USAGE)
                self.say(
                    agents.switch(who.strip(), "escalation" if slot == "escalation" else "primary")
                )
            case "escalation" if name:
                self.say(agents.switch(name, "escalation"))
            case "switch" | "escalation":  # no name: pick one in the list (keys p and e)
                self.open_list()
            case "add":
                self.open_form(given_fields(name))
            case "remove" if name:
                self.show(await agents.remove(name))
            case _:
                raise ValueError(USAGE)

    def open_list(self) -> None:
        from milk_tui.tui.screens.agent_screen import AgentScreen

        self.screen.app.push_screen(AgentScreen(self.facade.agents))

    def open_form(self, given: dict[str, str] | None = None) -> None:
        from milk_tui.tui.screens.agent_form import AgentForm, NewAgent

        def added(new: NewAgent | None) -> None:
            if new is not None:
                self.screen.run_worker(self._add(new), group="agent-edit")

        agents = self.facade.agents
        names = [r.name for r in agents.rows()]
        self.screen.app.push_screen(AgentForm(names, given, agents.probe_entry), added)

    async def _add(self, new: Any) -> None:
        try:
            self.show(await self.facade.agents.add(new.entry, keep_slots=not new.answers))
        except ValueError as e:
            self.say(f"/agent add: {e}", "error")

    async def cmd_reload(self, arg: str) -> None:
        result = await self.facade.agents.reload()
        self.show(result, quiet=False)

    def show(self, result: ReloadResult, *, quiet: bool = True) -> None:
        """A reload's lines; ``quiet`` says nothing when nothing changed (the file watch)."""
        if not result.ok:
            self.say(result.lines[0], "warning")
        elif result.lines:
            self.say("config reloaded: " + "\n".join(result.lines))
        elif not quiet:
            self.say("config reloaded: nothing changed")


def given_fields(words: str) -> dict[str, str]:
    """``name=x url=…`` (shell quoting for a value with spaces; any key of an agent entry)
    → the form's fields."""
    from milk_tui.facade.agents import parse_pairs

    try:
        return parse_pairs(words)
    except ValueError as e:
        raise ValueError(f"add: {e}") from None


def watch_config(screen: MainScreen) -> None:
    """One look at the config file (in a worker; a look still running is not doubled)."""
    if any(w.group == "config-watch" and not w.is_finished for w in screen.workers):
        return

    async def look() -> None:
        result = await screen.facade.agents.check_file()
        if result is not None:
            AgentCommands(screen).show(result)

    # The function, not a coroutine: a quit before the worker starts leaves nothing unawaited.
    screen.run_worker(look, group="config-watch", exit_on_error=False)  # type: ignore[arg-type]  # WorkType wants Coroutine[None, None, ...]
