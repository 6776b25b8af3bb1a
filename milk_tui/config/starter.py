"""``/config init``: a commented starter ``config.toml`` in the config dir.

Every main key is there, commented out with its default and one line on what it does, so
the file loads as "all defaults" until the user uncomments something.  A setting line is
``#key = value`` (no space after ``#``) and prose is ``# text``: uncommenting every setting
line gives a config that loads without an unknown key (tests/config/test_starter.py).
"""

from __future__ import annotations

import os
from pathlib import Path

STARTER_TOML = """\
# milk-tui configuration (TOML; a Go milk config.json with the same keys works too).
# Lines starting with "#key = value" are settings at their default: remove the "#" to use
# one.  Every key can also be set for one run from the environment as MILK_<KEY>.
# The full list: docs/interfaces.md, "Configuration".

# --- agents -------------------------------------------------------------------------
# The primary agent answers most prompts; the escalation agent takes the hard ones.
# Without "agent", the first entry that is not a CLI agent is the primary.
#agent = "llama"
# The escalation agent; a built-in "claude" (the Claude Code CLI on PATH) always exists.
#escalation_agent = "claude"

# --- routing and memory ---------------------------------------------------------------
# Once escalated, follow-ups stay with the escalation agent until /auto.
#sticky_escalation = true
# After this many primary turns a return to the escalation agent starts fresh (0: never).
#returning_fresh_start_local_turns = 8
# Remembered facts offered with each prompt: how many, how many bytes, only related ones.
#percept_inject_max = 25
#percept_inject_max_bytes = 2048
#percept_relevance_gate = true
# Cap on stored facts after a session ends (0: no cap).
#percept_store_max = 0
# Where an undecided prompt goes when no model classifies it: "local" or "escalation".
#classifier_fallback = ""

# --- budgets --------------------------------------------------------------------------
# Characters of context handed to the escalation agent.
#context_budget_chars = 12000
# Characters of history sent to an API agent.
#local_context_budget_chars = 24000
# Tool-call rounds per turn of an API agent.
#local_max_tool_iterations = 20

# --- the terminal ---------------------------------------------------------------------
#theme = "milk-dark"
# How replies are drawn: off (raw text), fenced (only code blocks), balanced, full.
#colorization = "balanced"
# A typed line that is a shell command runs in a terminal pane (! forces one); its output
# goes with the next prompt.  First words that run without asking (/bash allow WORD):
#direct_bash = false
#direct_bash_allow = ["ls", "git"]
# Editors tried first by /config open and /open (then $VISUAL, $EDITOR, nano, vim, vi).
#config_editors = ["code --wait"]
# A redacted log of every request and reply in the data dir (same as --debug).
#debug = false
# OpenTelemetry: a span per turn and per tool call sent to an OTLP/HTTP collector.  Each
# turn's figures also go to <data dir>/otel/metrics.jsonl (/metrics); metrics = false: not.
#otel = { endpoint = "http://localhost:4318", headers = {}, metrics = true, warn_mb = 50 }
# Permission questions, turn ends and prompts over a Telegram bot (/setup telegram fills it).
#remote_oversight = { backend = "telegram", telegram = { token_cmd = "pass show milk/telegram", chat_id = 123456789 }, perm_timeout_secs = 120, timeout_action = "deny" }
# Once a day, after the first frame, ask PyPI whether a newer milk-tui exists (one line).
#update_check = true
#update_url = "https://pypi.org/pypi/milk-tui/json"

# --- the agents themselves (tables last: in TOML, keys after a [[table]] belong to it) --
# An OpenAI-compatible server (llama.cpp, vLLM, Ollama, LM Studio ...), no key:
#[[agents]]
#name = "llama"
#url = "http://127.0.0.1:8080"
#model = "qwen2.5-coder"
# Optional: the command that starts this server when the url does not answer.
#run_cmd = "llama-server -m ~/models/qwen2.5-coder.gguf --port 8080"
# Optional: sampling sent with every request.
#temperature = 0.2
#max_tokens = 4096
# Model context size in tokens: sizes the history sent when no budget is set.
#context_window_tokens = 32768
# Seconds without a byte from the server before the turn fails.
#timeout_secs = 60

# A hosted service with a Bearer key (any provider name other than local/bedrock/claude-cli):
#[[agents]]
#name = "openrouter"
#provider = "openrouter"
#url = "https://openrouter.ai/api"
#model = "qwen/qwen3-coder"
# Better than api_key: a command that prints the key (the file then holds no secret).
#token_cmd = "pass show openrouter"

# The Claude Code CLI with its own options:
#[[agents]]
#name = "claude"
#provider = "claude-cli"
#bin = "claude"
#allowed_tools = ["Bash(git status:*)"]
"""


def write_starter(directory: Path) -> tuple[Path, bool]:
    """Write ``config.toml`` in ``directory`` (0600, the folder 0700); (path, written).  An
    existing config there — TOML or JSON — is never replaced: (that file, False)."""
    for name in ("config.toml", "config.json"):
        if (directory / name).exists():
            return directory / name, False
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = directory / "config.toml"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # created meanwhile by someone else: still never replaced
        return path, False
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(STARTER_TOML)
    return path, True
