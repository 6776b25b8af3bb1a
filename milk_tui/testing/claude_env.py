"""The environment and binary for tests that run the real Claude Code CLI."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def claude_env(tmp_path: Path, base_url: str) -> dict[str, str]:
    """Environment that isolates the CLI (own config dir, no telemetry, no retries).

    ``CLAUDE_CODE_MAX_RETRIES=0`` matters: without it a 401 is retried 10 times with
    backoff, and a failure test would take minutes.
    """
    home = Path(tmp_path) / "claude-home"
    home.mkdir(parents=True, exist_ok=True)
    return {
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "dummy",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "HOME": str(home),
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }


_REPO_ROOT = Path(__file__).resolve().parents[2]
_NPM_BIN = Path(".npm-claude") / "node_modules" / ".bin" / "claude"


def find_claude_bin() -> str | None:
    """The real CLI for tests: $MILK_TEST_CLAUDE_BIN, the repo's npm install, else PATH."""
    explicit = os.environ.get("MILK_TEST_CLAUDE_BIN", "").strip()
    if explicit:
        return explicit if Path(explicit).exists() or shutil.which(explicit) else None
    local = _REPO_ROOT / _NPM_BIN
    if local.exists():
        return str(local)
    return shutil.which("claude")
