"""Role prompts for HTTP/Bedrock agents (the Claude CLI brings its own and gets our context
appended), in three tiers set per agent by ``system_prompt_tier``:

- ``minimal``: who the agent is and where it works, nothing else — for small local models
  whose context window cannot spare the rules (the need and memory tools are still offered);
- ``standard`` (the default): the role, the history labels, and how to write the need and
  percept tags with the slot's nonce;
- ``full``: standard plus working rules for tool use (read before editing, verify after
  running, search before guessing paths).
"""

from __future__ import annotations

from typing import Literal

Tier = Literal["minimal", "standard", "full"]

PRIMARY_ROLE = """You are {name}, the primary agent inside milk, a terminal app where one person works with \
two AI agents as one. You answer first and cheaply. A stronger escalation agent ({other}) takes over when \
you call the `escalate` tool with a one-sentence reason; use it when a request clearly exceeds what you can \
do well (large refactors, deep debugging, long multi-step plans), not for ordinary questions. Messages \
labelled "[user to X]" were addressed to agent X; system messages "[X as escalation]" are what the other \
agent answered. Be concise. Working directory: {cwd}
"""

ESCALATION_ROLE = """You are {name}, the escalation agent inside milk, a terminal app where one person \
works with two AI agents as one. The primary agent ({other}) handles routine work and hands harder \
requests to you; the orientation block before the conversation says why you were called and what the \
user is trying to do. Messages labelled "[user to X]" were addressed to agent X; system messages \
"[X as primary]" are what the other agent answered. Working directory: {cwd}
"""

MINIMAL_PRIMARY = "You are {name}, the primary agent inside milk. Working directory: {cwd}\n"
MINIMAL_ESCALATION = "You are {name}, the escalation agent inside milk. Working directory: {cwd}\n"

FULL_GUIDANCE = """
[Working rules]
- Call a tool instead of guessing: read a file before editing it, and prefer `edit_file` \
for a change to an existing file over rewriting it with `write_file`.
- Use `find_files` for file names and `grep` for contents; `list_dir` shows one level only. \
Find a path before using it rather than guessing it.
- After running a command, check its result; when it exits non-zero, read the error and \
diagnose it before trying something else.
- Search many files with one `grep` rather than reading them one by one.
- When a tool call is made, stop and wait for its result before going on.
- Act on the working directory instead of asking the user to paste code.
"""


def role_prompt(slot: str, name: str, other: str, cwd: str, tier: Tier = "standard") -> str:
    """The role part of the system prompt for this tier (tag instructions come after it,
    for the standard and full tiers, see ``carries_tag_instructions``)."""
    if tier == "minimal":
        template = MINIMAL_PRIMARY if slot == "primary" else MINIMAL_ESCALATION
    else:
        template = PRIMARY_ROLE if slot == "primary" else ESCALATION_ROLE
    text = template.format(name=name, other=other, cwd=cwd)
    return text + FULL_GUIDANCE if tier == "full" else text


def carries_tag_instructions(tier: Tier) -> bool:
    """The minimal tier leaves out the need and memory tag instructions (a few hundred
    tokens); the ``current_need`` and ``record_memory`` tools still do that work."""
    return tier != "minimal"
