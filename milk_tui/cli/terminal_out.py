"""The CLI's one way to write untrusted text: an output stream that makes it inert.

Every command wraps its stdout and stderr once (``inert_out``), so no line it prints — a
streamed reply, a fact, a session name, an error quoting a server — can reach the
terminal with a raw control (milk_tui/model/terminal_text.py).  JSON output keeps its
exact values: there the same characters are written as ``\\uXXXX`` escapes.
"""

from __future__ import annotations

from typing import Any, TextIO, cast

from milk_tui.model.bus_event import BusEvent
from milk_tui.model.terminal_text import encodable, inert, inert_json


class _InertWriter:
    """Forwards to ``out`` what the CLI uses of a text stream (``write``, ``flush``, and
    ``print``/argparse through them); anything else goes to ``out`` unchanged."""

    def __init__(self, out: TextIO, json: bool) -> None:
        self._out = out
        self._clean = inert_json if json else inert

    def write(self, text: str) -> int:
        return self._out.write(self._clean(text))

    def flush(self) -> None:
        self._out.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._out, name)


def inert_out(out: TextIO, *, json: bool = False) -> TextIO:
    """``out`` as a stream that writes every piece inert (or, with ``json``, escaped)."""
    if isinstance(out, _InertWriter):
        out = out._out
    # A write/flush façade, not a full TextIO: the CLI only writes and flushes.
    return cast(TextIO, _InertWriter(out, json))


def event_json(event: BusEvent) -> str:
    """One bus event as a JSON line (``--output-format stream-json``).

    A string holding a lone surrogate (a tool result or a server's message can carry one
    from a JSON ``\\ud800`` escape) cannot be written as UTF-8; it is written with U+FFFD
    in its place — what the reply's own text already holds (milk_tui/engine/agent_stream.py)
    and what any UTF-8 reader can take, where strict JSON parsers refuse the escape."""
    return encodable(event.to_json())
