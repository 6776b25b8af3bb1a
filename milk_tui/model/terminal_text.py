"""Untrusted text made inert before it meets a terminal (docs/adr/0013-untrusted-text-is-inert.md).

Model output, tool results, facts, session names, file names and server error messages can
hold terminal controls: ``ESC ] 52 ; … BEL`` writes the user's clipboard, ``ESC ] 0 ; …``
sets the window title, ``ESC [ 2 J`` clears the screen, a lone CR overwrites the start of
a line.  ``inert`` maps every such character to a visible stand-in, one character at a
time, so a stream cut in the middle of a sequence is as safe as the whole text:

- C0 controls except LF and TAB become their Unicode control pictures (ESC → ``␛``,
  BEL → ``␇``, CR → ``␍``); DEL becomes ``␡``.  LF and TAB are kept because every renderer
  (Rich, Textual, a plain terminal) lays them out and none interprets them as commands.
  A CR directly followed by LF in the same piece is dropped (Windows line ends read as
  line ends); a CR anywhere else shows as ``␍`` instead of moving the cursor.
- C1 controls (U+0080–U+009F, which a terminal may take as the 8-bit forms of ESC
  sequences: U+009B is CSI, U+009D is OSC) become their ECMA-48 names, ``⟨CSI⟩``.
- Bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) become their
  names, ``⟨RLO⟩``: they make the displayed order differ from the stored order (a command
  shown reversed), and an LLM reply has no need of them; the implicit marks LRM/RLM stay.
- Lone surrogates (from a JSON ``\\ud800`` escape) become U+FFFD: they cannot be encoded
  for a terminal at all and would stop the program at the first write.

Nothing else changes, so text without these characters comes back as the same object
(the fast path the streaming text takes on every chunk).  Rich/Textual markup is a
different matter: widgets render untrusted text as ``Text``/``Content`` objects or with
``markup=False``, never as markup.

``inert_json`` is the counterpart for JSON output: the same characters written as
``\\uXXXX`` escapes, so a JSON document stays exact (it parses to the original string)
and still never carries a raw control to the terminal.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, TypeVar, cast

from milk_tui.model.bus_event import BusEvent

_C1_NAMES = (
    "PAD HOP BPH NBH IND NEL SSA ESA HTS HTJ VTS PLD PLU RI SS2 SS3 "
    "DCS PU1 PU2 STS CCH MW SPA EPA SOS SGCI SCI CSI ST OSC PM APC"
).split()
_BIDI_NAMES = {
    0x202A: "LRE",
    0x202B: "RLE",
    0x202C: "PDF",
    0x202D: "LRO",
    0x202E: "RLO",
    0x2066: "LRI",
    0x2067: "RLI",
    0x2068: "FSI",
    0x2069: "PDI",
}
_KEPT = (0x09, 0x0A)
"""TAB and LF: laid out by every renderer, interpreted by none."""

_TABLE: dict[int, str] = {c: chr(0x2400 + c) for c in range(0x20) if c not in _KEPT}
_TABLE[0x7F] = "\u2421"  # ␡
_TABLE.update({0x80 + i: f"⟨{name}⟩" for i, name in enumerate(_C1_NAMES)})
_TABLE.update({c: f"⟨{name}⟩" for c, name in _BIDI_NAMES.items()})
# Lone surrogates (U+D800–U+DFFF) are replaced by ``_SURROGATE`` before the table is
# applied: 2,048 entries in each of four tables held ~0.5 MiB for a character that is rare.

_JSON_TABLE: dict[int, str] = {c: f"\\u{c:04x}" for c in _TABLE}

# ``str.translate`` leaves a character alone when the lookup raises; an identity entry for
# the printable ASCII characters (most of any hostile piece) saves that exception per
# character: the slow path runs about twice as fast on a long piece (bench/sanitiser.py).
_ASCII_KEPT: dict[int, int] = {c: c for c in (*_KEPT, *range(0x20, 0x7F))}
_TRANSLATE: dict[int, str | int] = {**_ASCII_KEPT, **_TABLE}
_JSON_TRANSLATE: dict[int, str | int] = {**_ASCII_KEPT, **_JSON_TABLE}

_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""Exactly the keys of ``_TABLE`` and the surrogates (a test keeps them equal): one C-level
scan decides whether a piece needs any work at all."""


def inert(text: str) -> str:
    """``text`` with every terminal control made visible and inert (module docstring)."""
    if _UNSAFE.search(text) is None:
        return text
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    if _SURROGATE.search(text) is not None:
        text = _SURROGATE.sub("\ufffd", text)
    return text.translate(_TRANSLATE)


def inert_json(document: str) -> str:
    """A JSON document with the characters ``inert`` replaces written as ``\\uXXXX``.

    They can only occur inside JSON strings (the syntax is ASCII), where the escape means
    the same character: ``json.loads`` returns exactly what was dumped (as for any JSON
    writer, but a lone high surrogate followed by a lone low one: their escapes read as
    one pair).  ``json.dumps``
    and pydantic already escape C0 controls, but with ``ensure_ascii=False`` (and always,
    in pydantic) they write DEL, C1 controls and bidi overrides raw."""
    if _UNSAFE.search(document) is None:
        return document
    if _SURROGATE.search(document) is not None:
        document = _SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", document)
    return document.translate(_JSON_TRANSLATE)


def encodable(text: str) -> str:
    """``text`` with each lone surrogate (a JSON ``\\ud800`` escape decodes to one) replaced by
    U+FFFD, the character every UTF-8 decoder puts for what is not text; anything else
    exact.  Such text can be written to SQLite, a UTF-8 stream or a JSON line."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub("\ufffd", text)


T = TypeVar("T")


def inert_copy(value: T) -> T:
    """``value`` with every string in it made inert: a str, or a list, tuple, dict (keys
    and values), bus event or dataclass holding them, at any depth.

    Returns the same object when nothing needed a change, so a clean event costs one scan
    of its strings and no copy."""
    if isinstance(value, str):
        return cast(T, inert(value))
    if isinstance(value, BusEvent):
        changes = _changed(value, type(value)._fields)
        return value.replace(**changes) if changes else value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = [f.name for f in dataclasses.fields(value) if f.init]
        changes = _changed(value, names)
        return dataclasses.replace(value, **changes) if changes else value
    if isinstance(value, dict):
        items = [(inert_copy(k), inert_copy(v)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(items, value.items(), strict=True)):
            return value
        return cast(T, type(value)(items))
    if isinstance(value, list | tuple):
        parts = [inert_copy(v) for v in value]
        if all(p is v for p, v in zip(parts, value, strict=True)):
            return value
        if isinstance(value, list):
            return cast(T, parts)
        return cast(T, tuple(parts) if type(value) is tuple else type(value)(*parts))
    return value


def _changed(obj: Any, names: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        v = getattr(obj, name)
        c = inert_copy(v)
        if c is not v:
            out[name] = c
    return out
