"""A "browser" for ``BROWSER``: Python's ``webbrowser`` runs it with the sign-in page's
address; it notes the address, then — in the background, since ``webbrowser`` waits for
the command — fetches the page and follows its redirect to milk-tui's local callback, as a
user who approves at once would.  Run as ``python browser.py LOG URL`` (the visit)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import httpx


def install(folder: Path) -> tuple[str, Path]:
    """A ``BROWSER`` value and the log file where each visited address is appended."""
    log = folder / "browser.log"
    script = folder / "browser.sh"
    visit = f"{shlex.quote(sys.executable)} {shlex.quote(__file__)} {shlex.quote(str(log))}"
    script.write_text(f'#!/bin/sh\n{visit} "$1" >>{shlex.quote(str(log))}.err 2>&1 &\n')
    script.chmod(0o755)
    return str(script), log


def visit(log: Path, url: str) -> None:
    with log.open("a") as f:
        f.write(url + "\n")
    page = httpx.get(url, timeout=20)
    httpx.get(page.headers["location"], timeout=20)


if __name__ == "__main__":
    visit(Path(sys.argv[1]), sys.argv[2])
