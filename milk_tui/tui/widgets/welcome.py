"""First-run view: which agents answer, or that the demo agents run, and how to configure
a real server.  Shown while the transcript is empty."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from milk_tui.config.paths import config_dir
from milk_tui.model.terminal_text import inert, inert_copy

if TYPE_CHECKING:
    from milk_tui.facade.views import StartupInfo
    from milk_tui.tui.widgets.conversation import Conversation

CONFIG_EXAMPLE = """[[agents]]
name = "llama"
url = "http://127.0.0.1:8080"   # any OpenAI-compatible server
"""
ESCALATION_HINT = 'The Claude Code CLI on PATH is the default escalation agent ("claude").\n'


def welcome_text(
    *,
    primary: str,
    primary_desc: str,
    escalation: str,
    escalation_desc: str,
    demo: bool,
    notes: list[str],
    config_path: str | None,
) -> Text:
    t = Text(justify="left")
    t.append("◈ milk", style="bold #E0B040")
    t.append("  switch models, not context.\n\n", style="dim")
    if demo:
        t.append("Demo agents are running", style="bold yellow")
        t.append(f" ({primary} ↔ {escalation}): scripted replies, no network.\n")
        t.append("Try: ", style="dim")
        t.append("“what is a monad?”  “refactor the parser”  “remember that I prefer tabs”\n")
    else:
        t.append("routing: ", style="dim")
        t.append(f"{primary}", style="bold")
        t.append(f" ({primary_desc})  ↔  ", style="dim")
        t.append(f"{escalation}", style="bold")
        t.append(f" ({escalation_desc})\n", style="dim")
        t.append(
            "Type a message and press Enter.  /primary or /escalate pins an agent, "
            "/auto routes automatically again.\n"
        )
    for n in notes:
        t.append("⚠ " + inert(n) + "\n", style="bold red" if _broken(n) else "yellow")
    if demo:
        where = config_path or str(config_dir() / "config.toml")
        t.append("To use a real model, add agents to ", style="dim")
        t.append(where, style="bold")
        t.append(":\n", style="dim")
        t.append(CONFIG_EXAMPLE, style="cyan")
        t.append(ESCALATION_HINT, style="dim")
    t.append("F1 help · Ctrl+P commands · F2 panes · F6 memory · F7 sessions · /help", style="dim")
    return t


class Welcome(Static):
    DEFAULT_CSS = """
    Welcome { width: 1fr; height: auto; padding: 0 1; margin: 0 1; border: round $primary 50%; }
    """

    def __init__(self, text: Text) -> None:
        super().__init__(text, markup=False)


def _broken(note: str) -> bool:
    """The config file was not read at all (a note said in red)."""
    return note.startswith("config error:")


def welcome_for(info: StartupInfo) -> Text:
    info = inert_copy(info)  # agent names and notes come from the config file and servers
    return welcome_text(
        primary=info.primary.name,
        primary_desc=info.primary.description,
        escalation=info.escalation.name,
        escalation_desc=info.escalation.description,
        demo=info.demo,
        notes=list(info.notes),
        config_path=info.config_path,
    )


def say_start_notes(
    conv: Conversation, info: StartupInfo, said: int, painted: tuple[str, ...] | None = None
) -> int:
    """Start-up notes (config warnings, a stored field that could not be read, a missing
    command …) from the ``said``-th on: a new session's welcome shows them all; a resumed
    session has no welcome, so each is a line after its transcript.  ``painted``: the notes
    of a start card the config did not match: the welcome is written again (its agents
    too), and the notes said are those not among them.  Returns how many have been said."""
    new = info.notes[said:] if painted is None else [n for n in info.notes if n not in painted]
    welcomes = conv.query(Welcome)
    for welcome in welcomes if new or painted is not None else ():
        welcome.update(welcome_for(info))
    if not welcomes:
        for note in new:
            conv.add_line("error" if _broken(note) else "warning", note)
    return len(info.notes)
