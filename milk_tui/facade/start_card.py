"""What the last start found in the config, kept so that the next one paints its main
screen before reading it (docs/adr/0032-paint-before-reading-the-config.md).

Loading the config imports pydantic and builds its models: ~60 ms of a start that takes
~380 ms, for a theme, a keymap, two agents' names and the notes about them.  The card holds
exactly those, and is used only when everything the config half of start-up reads is what
it was when the card was written: the config file's bytes and mode, every ``MILK_*``
variable, ``PATH`` (where an agent's program is looked for) and this run's options.  Even
then ``Opening.finish`` reads the config, after the first frame, and says whether the card
matched; a card that did not is rewritten and the screen corrected.

The card holds no secret: the notes never quote one (config/load.py), and what it is
compared by is a salted hash.  A card that cannot be read or written is no card: start-up
reads the config first, as without one — unless there is nothing to read: a home's first
start with no config file and no override paints ``HOME_DEFAULTS``, what the config half
of start-up finds in such a home (tests/tui/test_first_start.py holds the two equal), and
writes the card once ``Opening.finish`` has read the config.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from milk_tui.config.paths import data_dir, ensure_dir, resolve_config_file, write_private
from milk_tui.facade.views import AgentInfo, agent_info
from milk_tui.model.errors import StorageError

if TYPE_CHECKING:
    from milk_tui.engine.boot import Configured

CARD_FILE = "start-card.json"
CARD_VERSION = 1


@dataclass(frozen=True)
class StartCard:
    """The config half of start-up as the main screen paints it."""

    theme: str
    keymap: dict[str, str]
    primary: AgentInfo
    escalation: AgentInfo
    demo: bool
    notes: tuple[str, ...]
    """The config's warnings and the agents' choice (said before the session's notes)."""
    agent_notes: tuple[str, ...]
    """Agent keys in the wrong place (said after the session's notes)."""
    config_path: str | None


HOME_DEFAULTS = StartCard(
    theme="milk-dark",
    keymap={},
    primary=AgentInfo("demo-local", "demo demo-small"),
    escalation=AgentInfo("demo-claude", "demo demo-large"),
    demo=True,
    notes=(),
    agent_notes=(),
    config_path=None,
)
"""The card of a home with no config file, no ``MILK_*`` override and no agent chosen for
the run: the defaults, and the demo agents (asked for, or standing in while the TUI looks
for a local server: ``engine/boot.py`` ``configure``'s ``probe_later``)."""

NOT_CONFIG_VARIABLES = frozenset(
    {"MILK_HOME", "MILK_CONFIG", "MILK_COMMAND", "MILK_DEMO_PACE", "MILK_TUI_TRACE"}
)
"""``MILK_*`` variables the program reads itself: no config key of these names exists
(a test holds it), so they override nothing.  Any other one may: then the config is read."""
NOT_CONFIG_PREFIX = "MILK_TEST_"
"""The test suite's own settings (``MILK_TEST_CLAUDE_BIN`` from scripts/test): no config
key starts with ``test_`` (a test holds it)."""


def home_defaults_apply(options: Mapping[str, object]) -> bool:
    """Whether the config half of start-up, with this run's ``options``, would find
    ``HOME_DEFAULTS``: no config file anywhere it looks, no variable that may override a key,
    no agent chosen, and the demo agents asked for or standing in."""
    if options.get("config_path") or options.get("agent") or options.get("escalation_agent"):
        return False
    if not (options.get("demo") or options.get("probe_later")):
        return False  # without either, nothing configured means looking for a server first
    if any(
        k.upper().startswith("MILK_")
        and k.upper() not in NOT_CONFIG_VARIABLES
        and not k.upper().startswith(NOT_CONFIG_PREFIX)
        for k in os.environ
    ):
        return False
    return resolve_config_file()[0] is None


def card_of(c: Configured) -> StartCard:
    return StartCard(
        theme=c.config.theme,
        keymap=dict(c.config.keymap),
        primary=agent_info(c.primary, "primary"),
        escalation=agent_info(c.escalation, "escalation"),
        demo=c.demo,
        notes=tuple(c.notes),
        agent_notes=tuple(c.agent_notes),
        config_path=str(c.config_path) if c.config_path else None,
    )


def card_key(salt: str, options: Mapping[str, object]) -> str:
    """A salted hash of what the config half of start-up reads (``options``: its own)."""
    given = options.get("config_path")
    path, how = (Path(str(given)), "--config") if given else resolve_config_file()
    file = ""
    if path is not None:
        try:
            file = f"{path.stat().st_mode:o} {sha256_hex(path.read_bytes())}"
        except OSError as e:
            file = f"unreadable {e.errno}"
    env = sorted((k, v) for k, v in os.environ.items() if k.upper().startswith("MILK_"))
    material = [CARD_VERSION, str(path), how, file, env, os.environ.get("PATH", "")]
    material.append(sorted((k, str(v)) for k, v in options.items()))
    return sha256_hex((salt + json.dumps(material)).encode())


def sha256_hex(data: bytes) -> str:
    """SHA-256 of ``data``, in hex.  CPython's own implementation where it has one (the
    ``_sha256`` module ``hashlib`` itself falls back to): ``hashlib`` loads OpenSSL's, ~2.5 ms
    and ~0.5 MiB for every start, for this key alone.  The same digest either way
    (tests/tui/test_start_card.py)."""
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]  # CPython 3.11: typeshed has no stub
    except ImportError:  # another version or build
        from hashlib import sha256
    return sha256(data).hexdigest()


def read_card(options: Mapping[str, object]) -> StartCard | None:
    """The card, when it was written for what this start would read; else None."""
    try:
        raw = json.loads((data_dir() / CARD_FILE).read_text("utf-8"))
        if raw["version"] != CARD_VERSION or raw["key"] != card_key(raw["salt"], options):
            return None
        return _card(raw)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def new_key(options: Mapping[str, object]) -> tuple[str, str]:
    """(salt, key) for a card about to be made: taken before the config is read, so that
    an edit made meanwhile leaves a card that does not match."""
    salt = os.urandom(8).hex()  # not ``secrets``: its imports cost start-up a few ms
    return salt, card_key(salt, options)


def write_card(salt_key: tuple[str, str], card: StartCard) -> None:
    """Replace the card (a cache: a disk that refuses it only costs the next start time)."""
    salt, key = salt_key
    data = {"version": CARD_VERSION, "salt": salt, "key": key, **asdict(card)}
    with contextlib.suppress(OSError, StorageError):
        write_private(ensure_dir(data_dir()) / CARD_FILE, json.dumps(data))


def _card(raw: dict[str, Any]) -> StartCard:
    def text(v: Any) -> str:
        if not isinstance(v, str):
            raise TypeError("not text")
        return v

    def info(v: Any) -> AgentInfo:
        return AgentInfo(text(v["name"]), text(v["description"]), text(v.get("missing", "")))

    path = raw["config_path"]
    return StartCard(
        theme=text(raw["theme"]),
        keymap={text(k): text(v) for k, v in raw["keymap"].items()},
        primary=info(raw["primary"]),
        escalation=info(raw["escalation"]),
        demo=raw["demo"] is True,
        notes=tuple(text(n) for n in raw["notes"]),
        agent_notes=tuple(text(n) for n in raw["agent_notes"]),
        config_path=None if path is None else text(path),
    )
