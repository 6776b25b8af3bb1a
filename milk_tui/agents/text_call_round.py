"""A round parser that turns tool calls written as text into the round's tool calls.

It wraps the backend's own parser (``RoundParser``): text chunks pass through a
``TextCallDetector``, so the markup never reaches the conversation, and the calls it
found become the round's ``tool_calls`` — the tool loop then runs them exactly like
native ones (same ``before_tool`` check, same timeouts).  Native calls win when a round
has both.  Only used when the request offered tools (docs/adr/0012-text-tool-calls-and-loop-detection.md).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection
from typing import Any

from milk_tui.agents.base import TextChunk
from milk_tui.agents.round_backend import Chunk, RoundParser, RoundResult, ToolCall
from milk_tui.agents.text_call_detect import TextCallDetector, visible_text


class TextCallRound:
    def __init__(
        self,
        inner: RoundParser,
        tool_names: Collection[str],
        *,
        prefer: str = "",
        on_format: Callable[[str], None] | None = None,
    ) -> None:
        self._inner = inner
        self._names = tool_names
        self._prefer = prefer
        self._on_format = on_format
        self._detector = TextCallDetector(tool_names, prefer)
        self._inner_feed = inner.feed
        self._detect = self._detector.feed

    done = False
    """The inner parser's ``done`` after each ``feed``: the tool loop reads it per chunk, and
    an attribute costs less than a property there."""

    def feed(self, item: Any) -> list[Chunk]:
        evs = self._inner_feed(item)
        self.done = self._inner.done
        if len(evs) == 1:
            e = evs[0]
            if type(e) is not TextChunk:
                return evs
            t = e.text
            # The detector's own fast check, inlined: one call less per chunk.
            if self._detector.idle and "<" not in t and "`" not in t and "[" not in t:
                return evs
            shown = self._detect(t)
            if shown is t:
                return evs
            return [TextChunk(shown)] if shown else []
        return self._filter(evs)

    def close(self) -> list[Chunk]:
        out = self._filter(self._inner.close())
        rest = self._detector.finish()
        if rest:
            out.append(TextChunk(rest))
        return out

    def result(self) -> RoundResult:
        r = self._inner.result()
        det = self._detector
        if not det.calls:
            return r
        raw = r.text
        r.text = visible_text(raw, self._names, self._prefer)
        if r.tool_calls:
            return r  # native calls win; the markup stays hidden
        r.tool_calls = [
            ToolCall(f"call_{uuid.uuid4().hex[:12]}", c.name, c.arguments) for c in det.calls
        ]
        r.text_call_format = det.format
        r.raw_text = raw
        if self._on_format is not None:
            self._on_format(det.format)
        return r

    def _filter(self, evs: list[Chunk]) -> list[Chunk]:
        out: list[Chunk] = []
        for e in evs:
            if type(e) is TextChunk:
                shown = self._detect(e.text)
                if shown:
                    out.append(TextChunk(shown))
            else:
                out.append(e)
        return out
