"""Is a newer milk-tui on PyPI?  Asked at most once a day, never on the way to a frame.

The TUI calls ``check`` in a worker after its first frame: one GET of PyPI's JSON API
(https://docs.pypi.org/api/json/) with a short timeout, the answer cached with the time of
the check in ``<data dir>/update-check.json``, so the next start within a day asks nothing.
Offline, a refused request or an answer that is not PyPI's: silent.  milk-tui never
replaces itself: the line names the installer's own upgrade command
(docs/adr/0043-local-metrics-and-install.md).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

from milk_tui.config.paths import data_dir, write_private

CHECK_EVERY_S = 86400.0
TIMEOUT_S = 3.0
HOW = "pipx upgrade milk-tui, or uv tool upgrade milk-tui (pip install -U milk-tui in a venv)"


def installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("milk-tui")
    except PackageNotFoundError:
        return "0"


def _key(v: str) -> tuple[int, ...]:
    """Dotted numbers compared as numbers (``1.2`` = ``1.2.0``); a pre-release tail
    (``1.2.0rc1``) ranks below its release, so it is never offered over the installed one."""
    nums: list[int] = []
    pre = False
    for part in v.strip().lstrip("v").split("."):
        m = re.match(r"\d+", part)
        nums.append(int(m.group()) if m else 0)
        if not m or m.group() != part:
            pre = True
            break
    while nums and nums[-1] == 0:
        nums.pop()
    return (*nums, -1 if pre else 0)


def newer(latest: str, current: str) -> bool:
    return bool(latest) and _key(latest) > _key(current)


@dataclass(frozen=True)
class UpdateState:
    current: str
    latest: str = ""
    """The newest version PyPI named at the last check ("" when never answered)."""
    checked: float = 0.0

    @property
    def available(self) -> bool:
        return newer(self.latest, self.current)

    def line(self) -> str:
        return f"milk-tui {self.latest} is available (you have {self.current}) — {HOW}"


def cache_file(data: Path | None = None) -> Path:
    return (data or data_dir()) / "update-check.json"


def cached(data: Path | None = None) -> UpdateState:
    try:
        raw = json.loads(cache_file(data).read_text())
        return UpdateState(installed_version(), str(raw["latest"]), float(raw["checked"]))
    except (OSError, ValueError, KeyError, TypeError):
        return UpdateState(installed_version())


def check(url: str, *, data: Path | None = None, force: bool = False) -> UpdateState | None:
    """Ask ``url`` when the last check is a day old (or ``force``); the state, or None when
    nothing was asked or the answer was no use (offline, an error, not PyPI's JSON).
    Blocking: run it in a worker thread."""
    import httpx

    before = cached(data)
    if not force and time.time() - before.checked < CHECK_EVERY_S:
        return None
    try:
        r = httpx.get(url, timeout=TIMEOUT_S, follow_redirects=True,
                      headers={"User-Agent": f"milk-tui/{before.current}"})  # fmt: skip
        r.raise_for_status()
        latest = str(r.json()["info"]["version"])
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return None
    state = UpdateState(before.current, latest, time.time())
    try:
        write_private(cache_file(data), json.dumps({"latest": latest, "checked": state.checked}))
    except OSError:
        pass  # asked again next start: no worse than no cache
    return state
