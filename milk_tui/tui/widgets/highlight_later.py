"""Code blocks on the main screen's first frame: plain until their lexer is loaded.

A Pygments lexer compiles its regular expressions the first time it is used (Python's:
~15 ms), and the first frame of a resumed session renders every reply in the window, so one
code block would hold the frame back.  While ``defer()`` is in force, a fenced block whose
lexer is not loaded yet renders as plain text with the same box (the code theme's background
and padding, so no line moves); ``stop()`` ends it once the lexers are loaded, drops the
render caches that hold plain blocks, and the conversation renders its code blocks again.
Only the TUI's start (``tui/launch.py`` ``run_app``) defers: tests and snapshots highlight at once.
The Markdown classes that read this state are in ``markdown_later.py``: this module loads no
part of the Markdown stack.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

_deferred: set[str] | None = None
"""Languages rendered plain while deferring; None when code is highlighted at once."""
_on_stop: list[Callable[[], None]] = []
plain_shown = 0
"""Code blocks rendered plain so far (any thread): a render during which it moved may
hold plain code (``kept_renders`` does not keep it)."""


def defer() -> None:
    """Render code blocks whose lexer is not loaded as plain text until ``stop()``."""
    global _deferred
    if _deferred is None:
        _deferred = set()


def deferring() -> bool:
    return _deferred is not None


def waiting_languages() -> list[str]:
    """The languages rendered plain so far (load these first)."""
    return sorted(_deferred or ())


def on_stop(clear: Callable[[], None]) -> None:
    """Call ``clear`` when deferring stops: a render cache that may hold plain blocks."""
    _on_stop.append(clear)


def stop() -> bool:
    """Highlight from now on; True when some block was rendered plain (render them again)."""
    global _deferred
    if _deferred is None:
        return False
    plain, _deferred = bool(_deferred), None
    for clear in _on_stop:
        clear()
    return plain


def lexer_loaded(name: str) -> bool:
    """Whether Pygments' lexer for ``name`` has compiled its rules (an unknown name, or one
    whose lexer fails to load, is shown plain by Rich anyway).  A built-in lexer's module is
    looked up in Pygments' table, not imported: one not imported yet has compiled nothing,
    and importing it would cost the first frame a few ms and ~0.2 MiB."""
    from pygments.lexer import RegexLexerMeta
    from pygments.lexers._mapping import LEXERS

    alias = name.lower()
    for class_name, (module_name, _, aliases, _, _) in LEXERS.items():
        if alias in aliases:
            module = sys.modules.get(module_name)
            cls = getattr(module, class_name, None)
            return cls is not None and (
                not isinstance(cls, RegexLexerMeta) or "_tokens" in cls.__dict__
            )
    from pygments.lexers import find_lexer_class_by_name  # a plugin's lexer, or none

    try:
        cls = find_lexer_class_by_name(name)
    except Exception:  # noqa: BLE001 — unknown or broken: Rich shows it plain, nothing to wait for
        return True
    return not isinstance(cls, RegexLexerMeta) or "_tokens" in cls.__dict__
