"""Slash commands and the command palette.

One table drives parsing, ``/help``, Tab completion and the palette, so they never drift.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from textual.command import DiscoveryHit, Hit, Hits, Provider

from milk_tui.tui.redirects import REDIRECTS


@dataclass(frozen=True)
class SlashCommand:
    name: str
    help: str
    args: str = ""
    """What follows the name in ``usage``: ``[optional]`` and ``<required>`` parts."""
    busy_safe: bool = False
    """Allowed while a turn runs (they do not touch the session)."""

    @property
    def usage(self) -> str:
        return f"{self.name} {self.args}" if self.args else self.name


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand(
        "/escalate",
        "pin the escalation agent, or send one prompt there; 'fresh' starts a new session",
        args="[fresh] [prompt]",
    ),
    SlashCommand("/primary", "pin the primary agent, or send one prompt there", args="[prompt]"),
    SlashCommand(
        "/auto",
        "automatic routing again: no pin, the router picks per prompt; shows what it learned"
        " (/auto reset [--global] forgets)",
    ),
    SlashCommand("/new", "start a new session in this folder", args="[name]"),
    SlashCommand("/sessions", "list, switch, rename, delete sessions"),
    SlashCommand("/learn", "remember a fact for both agents", args="<fact>", busy_safe=True),
    SlashCommand("/forget", "delete a remembered fact", args="<id|text>", busy_safe=True),
    SlashCommand(
        "/memory",
        "browse and edit remembered facts; a pattern searches them",
        args="[pattern]",
        busy_safe=True,
    ),
    SlashCommand(
        "/need",
        "show the current need and the needs before it; with text, set it",
        args="[text]",
        busy_safe=True,
    ),
    SlashCommand(
        "/permissions",
        "tools allowed without asking in this folder; revoke or grant some",
        args="[revoke|grant <tool>...]",
        busy_safe=True,
    ),
    SlashCommand(
        "/skip-permissions",
        "run every tool call of both agents without asking, for this session",
        args="[on|off]",
        busy_safe=True,
    ),
    SlashCommand(
        "/mcp",
        "MCP servers and their tools; actions: list, tools, enable, disable, reconnect, auth",
        args="[<action> <server>]",
        busy_safe=True,
    ),
    SlashCommand(
        "/agent",
        "the agents; actions: switch, escalation (this session), add, remove (the config)",
        args="[<action> [name]]",
        busy_safe=True,
    ),
    SlashCommand("/reload", "read the config file again now", busy_safe=True),
    SlashCommand(
        "/config",
        "the config file in use; open: edit it; init: write a starter",
        args="[open|init]",
    ),
    SlashCommand(
        "/open", "open a file in $EDITOR (relative to the session folder)", args="<path|@path>"
    ),
    SlashCommand(
        "/server",
        "the agents' local servers (their run_cmd): status, start, stop",
        args="[status|start|stop] [name]",
        busy_safe=True,
    ),
    SlashCommand(
        "/usage",
        "tokens, cost and cache hits per model and role: session, folder, all time",
        args="[session|folder|all]",
        busy_safe=True,
    ),
    SlashCommand(
        "/eval",
        "an eval run's report: premise, modes, routing (default: the newest run)",
        args="[DIR]",
        busy_safe=True,
    ),
    SlashCommand(
        "/workflow",
        "the dev workflow (designer → generator → evaluator): dev [TASK] opens its form; "
        "also resume, status, clear, reconfigure ROLE=AGENT",
        args="[dev|resume|status|clear|…]",
        busy_safe=True,  # status while it runs; the others are refused while busy
    ),
    SlashCommand("/attach", "send a file with the next prompt", args="<path>", busy_safe=True),
    SlashCommand("/paste", "attach the clipboard's image", busy_safe=True),
    SlashCommand("/detach", "unstage attached files", args="[N|name|all]", busy_safe=True),
    SlashCommand(
        "/think", "show or hide thinking; alone: say which", args="[on|off]", busy_safe=True
    ),
    SlashCommand(
        "/colorize",
        "how replies are drawn: off (raw text), fenced (code only), balanced, full; saved",
        args="[off|fenced|balanced|full]",
        busy_safe=True,
    ),
    SlashCommand(
        "/bash",
        "the direct shell's first words that run without asking (direct_bash); saved",
        args="[list|allow <word>|deny <word>]",
        busy_safe=True,
    ),
    SlashCommand("/theme", "switch theme (no name: pick one)", args="[name]", busy_safe=True),
    SlashCommand(
        "/export",
        "write the session as Markdown (default), JSON or text; a path's suffix picks one",
        args="[md|json|txt] [path]",
        busy_safe=True,
    ),
    SlashCommand("/drop", "forget the last exchange: its prompt and answers (asks first)"),
    SlashCommand(
        "/update",
        "the version and how to upgrade; check: ask PyPI now",
        args="[check]",
        busy_safe=True,
    ),
    SlashCommand(
        "/metrics",
        "local metrics per agent: turns, tokens, cost, seconds, first token; a plot",
        busy_safe=True,
    ),
    SlashCommand(
        "/otel",
        "OpenTelemetry export and the local metrics file; trim: keep the last DAYS (7)",
        args="[trim [DAYS]]",
        busy_safe=True,
    ),
    SlashCommand(
        "/setup",
        "set up remote oversight: a Telegram bot",
        args="telegram [on|off]",
        busy_safe=True,
    ),
    SlashCommand("/oversight", "remote oversight (Telegram): on or off, reachable", busy_safe=True),
    SlashCommand("/tasks", "this session's tasks and the global ones", busy_safe=True),
    SlashCommand(
        "/task",
        "add a task, or mark one done (an id or 4+ of it)",
        args="add [--global] <text>|done <id>",
        busy_safe=True,
    ),
    SlashCommand("/help", "commands and keys", busy_safe=True),
    SlashCommand("/quit", "quit milk-tui", busy_safe=True),
)
BY_NAME = {c.name: c for c in COMMANDS}
REDIRECTED = {
    name: SlashCommand(name, f"not in milk-tui: {hint}", args=args, busy_safe=True)
    for name, (args, hint) in REDIRECTS.items()
    if " " not in name and name not in BY_NAME
}
"""Go milk commands answered with one line saying what to use (tui/redirects.py); parsed so
that their arguments never reach a model, left out of /help and completion."""
ALIASES = {"/exit": "/quit", "/list": "/sessions"}
SUBCOMMANDS: dict[str, tuple[str, ...]] = {
    "/escalate": ("fresh",),
    "/mcp": ("list", "tools", "enable", "disable", "reconnect", "auth"),
    "/agent": ("list", "switch", "escalation", "add", "remove"),
    "/config": ("open", "init"),
    "/server": ("status", "start", "stop"),
    "/usage": ("session", "folder", "all"),
    "/otel": ("trim",),
    "/update": ("check",),
    "/think": ("on", "off"),
    "/workflow": ("dev", "resume", "status", "clear", "reconfigure"),
    "/colorize": ("off", "fenced", "balanced", "full"),
    "/bash": ("list", "allow", "deny"),
    "/skip-permissions": ("on", "off"),
    "/permissions": ("revoke", "grant"),
    "/export": ("md", "json", "txt"),
    "/detach": ("all",),
    "/task": ("add", "done"),
}
"""The words Tab completes after each command (``tui/completion.py``); the names that
follow some of them (agents, MCP servers) are read from the running app."""


def parse_slash(text: str) -> tuple[SlashCommand, str] | None:
    """``(command, argument)`` when ``text`` starts with a known command, else None.

    A first word with a second slash (``/etc/hosts``) is a path, not a command; a leading
    space or ``//`` marks a prompt that really starts with ``/`` (``literal_prompt``).
    """
    head, rest = _command_word(text)
    if not head:
        return None
    name = ALIASES.get(head.lower(), head.lower())
    cmd = BY_NAME.get(name) or REDIRECTED.get(name)
    if cmd is None:
        return None
    return cmd, " ".join(rest.split()) if cmd.name not in (
        "/escalate",
        "/primary",
        "/learn",
        "/need",
        "/task",
    ) else rest.strip()


def _command_word(text: str) -> tuple[str, str]:
    """(``/word``, the rest) when ``text`` is written as a command, else ("", "")."""
    stripped = text.rstrip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return "", ""
    head, _, rest = stripped.partition(" ")
    if "/" in head[1:] or len(head) < 2:
        return "", ""
    return head, rest


def unknown_command(text: str) -> str:
    """The ``/word`` of a command nobody knows (never sent to a model), else ""."""
    head, _ = _command_word(text)
    if head and parse_slash(text) is None:
        return head
    return ""


def literal_prompt(text: str) -> str | None:
    """The prompt to send when ``text`` escapes a leading ``/``: ``//x`` sends ``/x`` and a
    leading space sends the text as typed minus that space; None otherwise."""
    if text.startswith("//"):
        return text[1:]
    stripped = text.lstrip()
    if stripped != text and stripped.startswith("/"):
        return stripped
    return None


def looks_like_command(text: str) -> bool:
    s = text.strip()
    return s.startswith("/") and " " not in s and "/" not in s[1:]


def help_text() -> str:
    width = max(len(c.usage) for c in COMMANDS)
    return "\n".join(f"{c.usage:<{width}}  {c.help}" for c in COMMANDS)


# ----- command palette ---------------------------------------------------------------------


@dataclass(frozen=True)
class PaletteAction:
    title: str
    help: str
    action: str
    """An action string run on the main screen (``MainScreen.run_action``)."""


def slash_entry(title: str, command: str) -> PaletteAction:
    """The entry that runs ``command`` as if the user typed it; its help shows the command."""
    return PaletteAction(title, command, f"slash('{command}')")


PALETTE_ACTIONS: tuple[PaletteAction, ...] = (
    slash_entry("Escalate: pin to the escalation agent", "/escalate"),
    slash_entry("Escalate fresh: next hand-off starts a new session", "/escalate fresh"),
    slash_entry("Primary: pin to the primary agent", "/primary"),
    slash_entry("Auto: automatic routing (no pin)", "/auto"),
    slash_entry("New session", "/new"),
    PaletteAction("Sessions…", "list, switch, rename, delete", "sessions"),
    PaletteAction("Memory: browse remembered facts", "/memory", "memory"),
    slash_entry("Need: show the current need", "/need"),
    slash_entry("Permissions: tools allowed in this folder", "/permissions"),
    slash_entry("MCP servers: state and tools", "/mcp"),
    PaletteAction("Toggle thinking", "/think", "toggle_thinking"),
    PaletteAction("Toggle side panes", "F2", "toggle_side"),
    PaletteAction("Hand-off context: what the escalation agent saw", "F4", "show_context"),
    slash_entry("Export the session as Markdown", "/export"),
    slash_entry("Drop: forget the last exchange", "/drop"),
    PaletteAction("Cancel the running turn", "Ctrl+C", "interrupt"),
    PaletteAction("Next theme", "F8", "cycle_theme"),
    PaletteAction("Search input history", "Ctrl+R", "history_search"),
    PaletteAction("Help: commands and keys", "/help", "help"),
    PaletteAction("Quit", "/quit", "quit"),
)


class MilkCommands(Provider):
    """Every milk action in the palette (Textual adds themes, keys, screenshot…)."""

    def _actions(self) -> Iterable[PaletteAction]:
        return PALETTE_ACTIONS

    async def discover(self) -> Hits:
        for a in self._actions():
            yield DiscoveryHit(a.title, self._runner(a), help=a.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for a in self._actions():
            score = matcher.match(a.title)
            if score > 0:
                yield Hit(score, matcher.highlight(a.title), self._runner(a), help=a.help)

    def _runner(self, a: PaletteAction) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            ready = getattr(self.app, "application_ready", None)
            if ready is not None:  # picked in the first instants: the agents are being built
                await ready.wait()
            main = getattr(self.app, "main_screen", None) or self.screen
            await main.run_action(a.action)

        return run
