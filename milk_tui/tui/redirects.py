"""Go milk commands milk-tui does not have, each answered with what to use instead.

A user of the Go original types these by habit; each gets one line rather than "unknown
command" (or, with arguments, being sent to the model as a prompt).  A key with a space is a
sub-command of a command milk-tui has (``/memory show``).  Commands milk-tui has are not
listed here: their own handlers answer.
"""

from __future__ import annotations

REDIRECTS: dict[str, tuple[str, str]] = {
    "/panel": ("[memory|tasks|workflow]",
               "F2 or Ctrl+B cycles the side column: the panes, the tasks pane, nothing; "
               "F6 opens the memory browser"),
    "/history": ("[global|session]", "Up/Down walk this session's prompts, Ctrl+Up/Ctrl+Down "
                                     "every session's, Ctrl+R searches them"),
    "/memory show": ("", "/memory (F6) opens the fact browser; Enter on a fact shows it whole"),
    "/memory global": ("", "/memory (F6) opens the fact browser; its filter picks global facts"),
    "/memory session": ("", "/memory (F6) opens the fact browser; its filter picks this "
                            "session's facts"),
    "/agent tool": ("list|enable|disable|add|remove …", "agents offered as tools are the "
                    "config's agent_tools (an agent's own: its tools); /config open edits them"),
    "/mcp add": ("", "add an entry to mcp_servers in the config (/config open), then /reload"),
    "/mcp remove": ("<name>", "delete its mcp_servers entry in the config (/config open); "
                              "/mcp disable NAME turns it off for this session"),
    "/mcp assign": ("<server> <agent>", "an agent's mcp_servers list in the config names the "
                                        "servers it gets (/config open)"),
    "/mcp unassign": ("<server> <agent>", "an agent's mcp_servers list in the config names "
                                          "the servers it gets (/config open)"),
}  # fmt: skip
"""command (or "command sub-command") → (its arguments in Go milk, what to use instead)."""


def redirect(name: str, arg: str) -> str:
    """The one line answering ``name arg``, or "" when milk-tui handles it."""
    words = arg.split(maxsplit=1)
    for key in (f"{name} {words[0].lower()}" if words else "", name):
        if key in REDIRECTS:
            return f"{key}: not in milk-tui — {REDIRECTS[key][1]}"
    return ""
