"""Incremental parser for OpenAI chat-completions SSE streams
(https://platform.openai.com/docs/api-reference/chat-streaming).

Kept free of I/O so exact-byte cases are unit-tested without a server.  Performance
matters (a 20,000-chunk turn within 1.10× a bare httpx read, bench/headless_stream.py), so
per chunk we do
one ``bytes.split``, one ``json.loads`` on ``data: `` lines only, a few dict lookups, and
consecutive deltas of the same kind that arrive in one network read are COALESCED into a
single event — chunk boundaries carry no meaning, and fewer events means less work for
every consumer downstream.
"""

from __future__ import annotations

import json
from _json import scanstring  # the C string decoder json.decoder itself uses
from dataclasses import dataclass, field
from typing import Any

from milk_tui.agents.base import TextChunk, ThinkingChunk, UsageEvent
from milk_tui.agents.openai_chunk import check_chunk
from milk_tui.agents.round_backend import RoundResult, ToolCall
from milk_tui.agents.sse_runs import TEXT, THINK, decode_run
from milk_tui.agents.wire_shape import WireShapeError

_DATA = b"data: "
_DONE = b"[DONE]"
_FIELD_KIND = {"content": TEXT, "reasoning_content": THINK, "reasoning": THINK}
_PROBE = "\x01milk-probe"


class SSEFormatError(Exception):
    """The backend sent a ``data:`` line that is not JSON, or JSON of the wrong shape
    (``openai_chunk.check_chunk``)."""


class SSEBackendError(Exception):
    """The backend reported an error object inside the stream."""


class SSEIncompleteError(Exception):
    """The stream ended without ``[DONE]`` or a finish_reason: the connection was cut."""


@dataclass(slots=True)
class ToolCallAcc:
    index: int
    seq: int
    id: str = ""
    name_parts: list[str] = field(default_factory=list)
    arg_parts: list[str] = field(default_factory=list)


Skeleton = tuple[str, int, str, int]
"""(text before the string literal incl. its opening quote, its length, text after, length)."""


class SSEParser:
    """Feed raw response bytes; get coalesced Text/Thinking chunks; read the rest at the end.

    Hot path — why it looks unusual: ``json.loads`` of a ~170-byte chunk costs ~10 µs on a
    small CPU, two thirds of what httpx itself spends per chunk, which alone would break the
    1.10× budget.  Within one completion, servers repeat the same chunk bytes around a
    changing delta string.  So after a chunk has been fully parsed and found to carry only
    one content (or reasoning) string, we remember the bytes around that string literal (the
    "skeleton", verified by re-parsing it with a probe string).  A later chunk with the same
    skeleton and a valid string literal in that place is, by construction, valid JSON of the
    same shape: we decode just the literal with the C ``scanstring``.  Anything else takes the
    full ``json.loads`` path, so correctness never depends on the shortcut.
    """

    def __init__(self, model: str = "") -> None:
        self.model = model
        """Named in the round's UsageEvent."""
        self._pending: list[bytes] = []
        """Bytes of a line not yet ended: kept as a list and joined once the newline
        arrives, so one huge line costs linear time, not a re-copy per network read."""
        self.done = False
        """``data: [DONE]`` seen."""
        self.finish_reason = ""
        self.usage: dict[str, Any] | None = None
        self.text_parts: list[str] = []
        self.reasoning_parts: list[str] = []
        self._calls: list[ToolCallAcc] = []
        self._by_index: dict[int, ToolCallAcc] = {}
        self._text_skel: Skeleton | None = None
        self._think_skel: Skeleton | None = None
        self._skel_used = False
        """A learned skeleton matched at least once since the last (re)learn."""
        self._hot_text: Skeleton | None = None
        self._hot_think: Skeleton | None = None
        """Skeletons framed as whole SSE events ("data: " … blank line) for feed()."""

    # ----- feeding ------------------------------------------------------------------------

    def feed(self, data: bytes) -> list[TextChunk | ThinkingChunk]:
        text, think = self._hot_text, self._hot_think
        if self.done or (text is None and think is None):
            return self._feed(data)
        pending = self._pending
        if pending:
            pending.append(data)
            if b"\n" not in data:
                return []
            data = b"".join(pending)
            pending.clear()
        cut = data.rfind(b"\n") + 1
        if cut < len(data):
            pending.append(data[cut:])  # a line not yet ended
            data = data[:cut]
        # ``data`` is now whole lines: SSE events, one (one HTTP chunk each is how httpx
        # hands llama.cpp's stream over) or many (``read_ahead`` joins what arrived
        # together).  Those of a learned shape are decoded by ``sse_runs``; from the first
        # event of another shape on, the general path reads them.
        try:
            s = data.decode()
        except UnicodeDecodeError:
            return self._lines(data.split(b"\n")[:-1])
        start = 1 if s.startswith("\n") else 0  # the blank line ending the last read's event
        runs, pos = decode_run(s, start, text, think)
        out: list[TextChunk | ThinkingChunk] = []
        if pos > start:
            self._skel_used = True
            for kind, t in runs:
                if kind == TEXT:
                    self.text_parts.append(t)
                    out.append(TextChunk(t))
                else:
                    self.reasoning_parts.append(t)
                    out.append(ThinkingChunk(t))
        if pos < len(s):
            out += self._lines((s[pos:].encode() if pos else data).split(b"\n")[:-1])
        return out

    def _feed(self, data: bytes) -> list[TextChunk | ThinkingChunk]:
        """The general path: split lines, parse each ``data:`` payload."""
        if self.done:
            return []
        pending = self._pending
        if pending:
            if b"\n" not in data:
                pending.append(data)
                return []
            pending.append(data)
            data = b"".join(pending)
            pending.clear()
        lines = data.split(b"\n")
        rest = lines.pop()
        if rest:
            pending.append(rest)
        return self._lines(lines)

    def close(self) -> list[TextChunk | ThinkingChunk]:
        """Process a final line that had no trailing newline."""
        rest = b"".join(self._pending)
        self._pending.clear()
        return self._lines([rest]) if rest and not self.done else []

    @property
    def complete(self) -> bool:
        """The stream ended properly: [DONE], or at least a finish_reason (some servers omit
        [DONE]).  Anything else means the connection was cut mid-answer."""
        return self.done or bool(self.finish_reason)

    def _lines(self, lines: list[bytes]) -> list[TextChunk | ThinkingChunk]:
        pieces: list[tuple[int, str]] = []
        for line in lines:
            if line.endswith(b"\r"):
                line = line[:-1]
            if not line.startswith(_DATA):
                continue
            payload = line[6:]
            if payload.startswith(_DONE):
                self.done = True
                break
            self._payload(payload, pieces)
        # Coalesce consecutive pieces of one kind into one event.
        out: list[TextChunk | ThinkingChunk] = []
        kind = 0
        run: list[str] = []
        for k, t in pieces:
            if k != kind and run:
                out.append(_event(kind, "".join(run)))
                run = []
            kind = k
            run.append(t)
        if run:
            out.append(_event(kind, "".join(run)))
        for ev in out:
            (self.text_parts if type(ev) is TextChunk else self.reasoning_parts).append(ev.text)
        return out

    def _payload(self, payload: bytes, pieces: list[tuple[int, str]]) -> None:
        try:
            s = payload.decode()
        except UnicodeDecodeError:
            raise SSEFormatError(_excerpt(payload)) from None
        for kind, sk in ((TEXT, self._text_skel), (THINK, self._think_skel)):
            if sk is not None and s.startswith(sk[0]):
                t = _match(s, sk)
                if t is not None:
                    self._skel_used = True
                    if t:
                        pieces.append((kind, t))
                    return
        try:
            obj = json.loads(s)
        except ValueError:
            raise SSEFormatError(_excerpt(payload)) from None
        if type(obj) is not dict:
            raise SSEFormatError(_excerpt(payload))
        err = obj.get("error")
        if err:
            raise SSEBackendError(_error_text(err))
        try:
            check_chunk(obj)
        except WireShapeError as e:
            raise SSEFormatError(str(e)) from None
        u = obj.get("usage")
        if u:
            self.usage = u
        choices = obj.get("choices")
        if not choices:
            return
        ch = choices[0]  # the shapes were checked above
        delta = ch.get("delta")
        if delta:
            r = delta.get("reasoning_content") or delta.get("reasoning")
            if r:
                pieces.append((THINK, r))
            c = delta.get("content")
            if c:
                pieces.append((TEXT, c))
            tcs = delta.get("tool_calls")
            if tcs:
                self._tool_deltas(tcs)
        fr = ch.get("finish_reason")
        if fr:
            self.finish_reason = fr
        shape = _single_string_delta(obj)
        if shape is not None:
            self._learn(s, *shape)

    def _learn(self, s: str, field_name: str, value: str) -> None:
        kind = _FIELD_KIND[field_name]
        if (self._text_skel if kind == TEXT else self._think_skel) is not None:
            # Re-learn when the shape drifted (e.g. a per-second "created" stamp), but only
            # if skeletons pay off here: a server that makes every chunk unique (random
            # padding) would otherwise pay for a probe parse on every chunk.
            if not self._skel_used:
                return
            self._skel_used = False
        i = s.find(f'"{field_name}":"')
        if i < 0:
            return
        start = i + len(field_name) + 4
        try:
            text, end = scanstring(s, start)
        except ValueError:
            return
        if text != value:
            return
        pre, suf = s[:start], s[end:]
        try:
            probe = json.loads(pre[:-1] + json.dumps(_PROBE) + suf)
        except ValueError:
            return
        if _single_string_delta(probe) != (field_name, _PROBE):
            return
        skel = (pre, len(pre), suf, len(suf))
        hot = ("data: " + pre, len(pre) + 6, suf + "\n\n", len(suf) + 2)
        if kind == TEXT:
            self._text_skel, self._hot_text = skel, hot
        else:
            self._think_skel, self._hot_think = skel, hot

    # ----- tool calls ---------------------------------------------------------------------

    def _tool_deltas(self, tcs: list[dict[str, Any]]) -> None:
        for tc in tcs:
            idx = tc.get("index")
            tid = tc.get("id") or ""
            acc: ToolCallAcc | None
            if idx is not None:
                acc = self._by_index.get(idx)
            elif tid:
                acc = next((a for a in self._calls if a.id == tid), None)
            else:
                acc = self._calls[-1] if self._calls else None
            if acc is not None and tid and acc.id and tid != acc.id:
                acc = None  # a server reusing index 0 for the next call, with a new id
            if acc is None:
                acc = ToolCallAcc(idx if idx is not None else len(self._calls), len(self._calls))
                self._calls.append(acc)
                if idx is not None:
                    self._by_index[idx] = acc
            if tid and not acc.id:
                acc.id = tid
            fn = tc.get("function") or {}
            name = fn.get("name")
            if name:
                acc.name_parts.append(name)
            args = fn.get("arguments")
            if args:
                acc.arg_parts.append(args)

    def tool_calls(self) -> list[ToolCall]:
        """Calls ordered by wire index (0- or 1-based both work); nameless fragments dropped."""
        out = []
        for acc in sorted(self._calls, key=lambda a: (a.index, a.seq)):
            name = "".join(acc.name_parts)
            if not name:
                continue
            out.append(ToolCall(acc.id or f"call_{acc.seq}", name, "".join(acc.arg_parts)))
        return out

    def result(self) -> RoundResult:
        """The whole completion once the stream has ended; SSEIncompleteError if it was cut."""
        if not self.complete:
            raise SSEIncompleteError("stream ended unexpectedly (no [DONE] or finish_reason)")
        usage = None
        if self.usage:
            fresh, completion, cached = normalise_usage(self.usage)
            usage = UsageEvent(self.model, fresh, completion, cache_read=cached)
        return RoundResult(
            text=self.text,
            reasoning=self.reasoning,
            tool_calls=self.tool_calls(),
            finish_reason=self.finish_reason,
            usage=usage,
        )

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    @property
    def reasoning(self) -> str:
        return "".join(self.reasoning_parts)


def _match(s: str, sk: Skeleton) -> str | None:
    """The string in ``s``'s literal slot when ``s`` has skeleton ``sk`` (caller checked the
    prefix), else None."""
    try:
        text, end = scanstring(s, sk[1])
    except ValueError:
        return None
    if len(s) - end == sk[3] and s.endswith(sk[2]):
        return text
    return None


def _single_string_delta(obj: Any) -> tuple[str, str] | None:
    """(field, value) when ``obj`` is a chunk whose only payload is one delta string."""
    if type(obj) is not dict or obj.get("error") or obj.get("usage"):
        return None
    choices = obj.get("choices")
    if type(choices) is not list or len(choices) != 1 or type(choices[0]) is not dict:
        return None
    ch = choices[0]
    delta = ch.get("delta")
    if ch.get("finish_reason") or type(delta) is not dict:
        return None
    found: tuple[str, str] | None = None
    for k, v in delta.items():
        if v is None or (k == "role" and v == "assistant"):
            continue
        if k not in _FIELD_KIND or type(v) is not str or found is not None:
            return None
        found = (k, v)
    return found


def _event(kind: int, text: str) -> TextChunk | ThinkingChunk:
    return TextChunk(text) if kind == TEXT else ThinkingChunk(text)


def normalise_usage(u: dict[str, Any]) -> tuple[int, int, int]:
    """(fresh prompt, completion, cache_read): OpenAI prompt totals INCLUDE cached tokens
    and we report fresh and cached apart, e.g. 619 prompt / 576 cached → 43 fresh,
    576 cache_read."""
    prompt = int(u.get("prompt_tokens") or 0)
    completion = int(u.get("completion_tokens") or 0)
    details = u.get("prompt_tokens_details") or {}
    cached = int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0
    return max(prompt - cached, 0), completion, cached


def _excerpt(b: bytes, n: int = 120) -> str:
    s = b.decode(errors="replace")
    return s if len(s) <= n else s[:n] + "…"


def _error_text(err: Any) -> str:
    if isinstance(err, dict):
        return str(err.get("message") or err.get("type") or err)
    return str(err)
