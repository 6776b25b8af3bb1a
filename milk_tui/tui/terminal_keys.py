"""Keys some terminals send in a form Textual does not name.

tmux (and xterm without ``modifyOtherKeys``) sends Alt+Enter as ESC CR.  Textual reads
that pair as a plain ``enter`` (the ESC only marks Alt on printable characters), so the
prompt sent instead of inserting the newline that help promises.  Naming the pair
``alt+enter`` makes it reach the prompt's newline binding, as it does in terminals that
report the key with the kitty protocol (``CSI 13;3u``).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from textual import _ansi_sequences

ESC_CR = "\x1b\r"


def name_alt_enter() -> None:
    """Teach the input parser that ESC CR is Alt+Enter (idempotent)."""
    # The parser builds ``Key(entry.value, …)`` for every tuple entry; Textual's Keys enum
    # has no alt+enter member, so the entry is an object with that ``value``.
    table = cast(dict[str, object], _ansi_sequences.ANSI_SEQUENCES_KEYS)
    table.setdefault(ESC_CR, (SimpleNamespace(value="alt+enter"),))
