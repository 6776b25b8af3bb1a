"""Incremental parser for a streamed OpenAI Responses API call
(https://platform.openai.com/docs/api-reference/responses-streaming).

The framing is SSE like chat completions, so the line splitting, the end-of-stream rules
and the coalescing of same-kind deltas per network read are ``openai_sse.SSEParser``'s;
this class reads the events instead of chat chunks.  Each event names its ``type``: text
and reasoning deltas become chunks, function-call items and their argument deltas become
the round's tool calls, ``response.completed`` ends the round with its usage, and
``response.failed`` / ``error`` end it with the backend's message.  The types of the fields
read are checked where they are read (``wire_shape.get``): a wrong one is one line naming
the event and the field.  Unknown event types are skipped (the API adds new ones).

Hot path: a text delta event is ~150 bytes of JSON around a short string, and OpenAI
numbers every event (``sequence_number``).  As in ``SSEParser``, once a delta event has
been fully parsed its bytes around the delta string are remembered (a ``Skeleton``, with
the sequence number as a slot of digits) and verified with a probe; a later event with the
same bytes, a valid number and a valid string literal is, by construction, the same event
with another delta, so only the literal is decoded (C ``scanstring``).  Anything else
takes the full ``json.loads`` path.
"""

from __future__ import annotations

import json
from _json import scanstring  # the C string decoder json.decoder itself uses
from dataclasses import dataclass, field
from typing import Any

from milk_tui.agents import openai_responses_wire as ev
from milk_tui.agents.base import TextChunk, ThinkingChunk
from milk_tui.agents.openai_sse import (
    SSEBackendError,
    SSEFormatError,
    SSEIncompleteError,
    SSEParser,
)
from milk_tui.agents.round_backend import RoundResult, ToolCall
from milk_tui.agents.wire_shape import WireShapeError, get, wrong

_TEXT, _THINK = 1, 2
"""Piece kinds, as ``SSEParser._lines`` coalesces them."""
_SEQ = '"sequence_number":'
_PROBE = "\x01milk-probe"
_PROBE_SEQ = 7


@dataclass(slots=True)
class Skeleton:
    """The bytes of one delta event around its sequence number and its delta string."""

    kind: int
    key: tuple[str, str, int]
    """The reasoning part the event belongs to (a new part starts a new paragraph)."""
    head: str
    """Up to the sequence number's digits, or up to the string when the event has none."""
    mid: str | None
    """Between the digits and the string (incl. its opening quote); None: no number."""
    tail: str
    heads: tuple[bytes, bytes] | None
    """``head`` framed as a whole SSE event, with its ``event:`` line and without, as
    bytes (None when ``head`` or ``mid`` is not ASCII: byte and text offsets differ)."""
    bmid: bytes | None
    hot_tail: str
    """``tail`` and the blank line that ends the event."""
    used: bool = False
    """Matched at least once since it was learned."""
    digits: int = 1
    """Length of the last sequence number matched on the hot path."""

    def match(self, s: str, i: int, tail: str) -> str | None:
        """The delta of ``s`` (its ``head`` ending at ``i``) when ``s`` is this event
        ending in ``tail``, else None."""
        mid = self.mid
        if mid is not None:
            j = s.find(mid, i)
            if j < 0 or not _is_json_int(s[i:j]):
                return None
            i = j + len(mid)
        try:
            text, end = scanstring(s, i)
        except ValueError:
            return None
        if len(s) - end != len(tail) or not s.endswith(tail):
            return None
        self.used = True
        return text


@dataclass(slots=True)
class _Call:
    item_id: str
    seq: int
    output_index: int | None = None
    call_id: str = ""
    name: str = ""
    arg_parts: list[str] = field(default_factory=list)
    arguments: str | None = None
    """The whole arguments from a ``.done`` event or the finished item: they win."""


class ResponsesParser(SSEParser):
    """Feed raw response bytes; get coalesced Text/Thinking chunks; read the round at the end."""

    def __init__(self, model: str = "") -> None:
        super().__init__(model)
        self._items: list[_Call] = []
        self._by_item: dict[str, _Call] = {}
        self._texted: set[str] = set()
        """Message items whose text came as deltas (a ``.done`` text is then a repeat)."""
        self._think_key: tuple[str, str, int] | None = None
        self._text_sk: Skeleton | None = None
        self._think_sk: Skeleton | None = None

    # ----- feeding ------------------------------------------------------------------------

    def feed(self, data: bytes) -> list[TextChunk | ThinkingChunk]:
        sk = self._text_sk
        if sk is None or self._pending or self.done:
            return self._feed(data)
        # One HTTP chunk = one whole event (an optional "event:" line, "data: …", a blank
        # line), as servers write them: match the text skeleton framed that way, else the
        # general path.  The framing is part of the match, so a hit is one complete event.
        heads = sk.heads
        if heads is None:
            return self._feed(data)
        # Checked on the bytes first: everything before the string is ASCII, so a byte
        # offset there is a text offset too; bytes.isdigit() is ASCII digits only.
        if data.startswith(heads[0]):
            i = len(heads[0])
        elif data.startswith(heads[1]):
            i = len(heads[1])
        else:
            return self._feed(data)
        mid = sk.bmid
        if mid is not None:
            # The number has as many digits as the last one, almost always: look there
            # first, search only when it grew.
            k = sk.digits
            if not data.startswith(mid, i + k):
                k = data.find(mid, i) - i
                sk.digits = k
            if k <= 0 or not data[i : i + k].isdigit() or (data[i] == 48 and k > 1):
                return self._feed(data)  # (48: a leading "0" JSON does not allow)
            i += k + len(mid)
        try:
            s = data.decode()
            t, end = scanstring(s, i)
        except ValueError:  # (UnicodeDecodeError is one)
            return self._feed(data)
        tail = sk.hot_tail
        if len(s) - end != len(tail) or not s.endswith(tail):
            return self._feed(data)
        sk.used = True
        if not t:
            return []
        self.text_parts.append(t)
        return [TextChunk(t)]

    def _payload(self, payload: bytes, pieces: list[tuple[int, str]]) -> None:
        try:
            s = payload.decode()
        except UnicodeDecodeError:
            raise SSEFormatError(_excerpt(payload)) from None
        sk = self._skeleton_of(s)
        if sk is not None:
            t = sk.match(s, len(sk.head), sk.tail)
            if t is not None:
                if t:
                    pieces.append((sk.kind, t))
                return
        obj = _json_object(s, payload)
        kind = obj.get("type")
        if type(kind) is not str:
            raise SSEFormatError(str(wrong("type", kind, "a string")))
        try:
            self._event(kind, obj, s, pieces)
        except WireShapeError as e:
            raise SSEFormatError(f"{kind}: {e}") from None

    def _skeleton_of(self, s: str) -> Skeleton | None:
        """The skeleton whose head ``s`` starts with (a thinking one only within its part)."""
        for sk in (self._text_sk, self._think_sk):
            if sk is not None and s.startswith(sk.head):
                if sk.kind == _TEXT or sk.key == self._think_key:
                    return sk
        return None

    # ----- events -------------------------------------------------------------------------

    def _event(self, kind: str, obj: dict[str, Any], s: str, pieces: list[tuple[int, str]]) -> None:
        if kind == ev.TEXT_DELTA or kind == ev.REFUSAL_DELTA:
            d = get(obj, "delta", str, "")
            item = get(obj, "item_id", str, "") or ""
            self._texted.add(item)
            if d:
                pieces.append((_TEXT, d))
            if kind == ev.TEXT_DELTA:
                self._learn_skeleton(_TEXT, ("", "", 0), obj, s)
        elif kind in ev.THINKING_DELTAS:
            d = get(obj, "delta", str, "")
            key = (
                get(obj, "item_id", str, "") or "",
                kind,
                get(obj, "summary_index", int, "") or get(obj, "content_index", int, "") or 0,
            )
            if key != self._think_key:
                if self._think_key is not None and d:
                    pieces.append((_THINK, "\n\n"))
                self._think_key = key
            if d:
                pieces.append((_THINK, d))
            self._learn_skeleton(_THINK, key, obj, s)
        elif kind == ev.TEXT_DONE:
            item = get(obj, "item_id", str, "") or ""
            text = get(obj, "text", str, "")
            if text and item not in self._texted:
                pieces.append((_TEXT, text))
                self._texted.add(item)
        elif kind == ev.ITEM_ADDED or kind == ev.ITEM_DONE:
            item = get(obj, "item", dict, "")
            if item is not None and get(item, "type", str, "item") == "function_call":
                self._call_item(item, get(obj, "output_index", int, ""), kind == ev.ITEM_DONE)
        elif kind == ev.ARGS_DELTA:
            d = get(obj, "delta", str, "")
            if d:
                self._call_for(obj).arg_parts.append(d)
        elif kind == ev.ARGS_DONE:
            args = get(obj, "arguments", str, "")
            if args is not None:
                self._call_for(obj).arguments = args
        elif kind in (ev.COMPLETED, ev.INCOMPLETE):
            self._finish(kind, get(obj, "response", dict, "") or {})
        elif kind == ev.FAILED:
            resp = get(obj, "response", dict, "") or {}
            raise SSEBackendError(ev.error_text(get(resp, "error", dict, "response"), "failed"))
        elif kind == ev.ERROR:
            err = obj.get("error")
            raise SSEBackendError(ev.error_text(err if type(err) is dict else obj, "error"))

    def _call_item(self, item: dict[str, Any], index: int | None, done: bool) -> None:
        item_id = get(item, "id", str, "item") or ""
        call = self._by_item.get(item_id) if item_id else None
        if call is None:
            call = self._new_call(item_id, index)
        call.call_id = get(item, "call_id", str, "item") or call.call_id
        call.name = get(item, "name", str, "item") or call.name
        args = get(item, "arguments", str, "item")
        if done and args is not None:
            call.arguments = args

    def _call_for(self, obj: dict[str, Any]) -> _Call:
        """The call an arguments event belongs to: by item id, else output index, else the
        last one (servers that send neither)."""
        item_id = get(obj, "item_id", str, "") or ""
        index = get(obj, "output_index", int, "")
        call = self._by_item.get(item_id)
        if call is None and index is not None:
            call = next((c for c in self._items if c.output_index == index), None)
        if call is None and not item_id and index is None and self._items:
            call = self._items[-1]
        if call is None:  # arguments before their item: kept, dropped if no name comes
            call = self._new_call(item_id, index)
        return call

    def _new_call(self, item_id: str, index: int | None) -> _Call:
        call = _Call(item_id, len(self._items), index)
        self._items.append(call)
        if item_id:
            self._by_item[item_id] = call
        return call

    def _finish(self, kind: str, resp: dict[str, Any]) -> None:
        usage = get(resp, "usage", dict, "response")
        if usage is not None:
            self.usage = ev.chat_usage(usage)
        if kind == ev.INCOMPLETE:
            details = get(resp, "incomplete_details", dict, "response") or {}
            reason = get(details, "reason", str, "response.incomplete_details")
            self.finish_reason = reason or "incomplete"
        else:
            self.finish_reason = "tool_calls" if self.tool_calls() else "stop"
        self.done = True

    # ----- skeletons ----------------------------------------------------------------------

    def _learn_skeleton(
        self, kind: int, key: tuple[str, str, int], obj: dict[str, Any], s: str
    ) -> None:
        """Remember this delta event's bytes (see the module docstring)."""
        old = self._text_sk if kind == _TEXT else self._think_sk
        if old is not None and not old.used:
            return  # re-learn only where skeletons pay off (not for randomly padded events)
        delta = obj.get("delta")
        i = s.find('"delta":"')
        if type(delta) is not str or i < 0:
            return
        start = i + 9
        try:
            text, end = scanstring(s, start)
        except ValueError:
            return
        if text != delta:
            return
        pre, tail = s[:start], s[end:]
        head, mid = pre, None
        n = pre.find(_SEQ)
        if n >= 0:
            i = n + len(_SEQ)
            j = i
            while j < len(pre) and pre[j].isdigit():
                j += 1
            if not _is_json_int(pre[i:j]):
                return
            head, mid = pre[:i], pre[j:]
        numbered = pre if mid is None else f"{head}{_PROBE_SEQ}{mid}"
        try:
            probe = json.loads(numbered[:-1] + json.dumps(_PROBE) + tail)
        except ValueError:
            return
        expected = dict(obj, delta=_PROBE)
        if mid is not None:
            expected["sequence_number"] = _PROBE_SEQ
        if probe != expected:
            return
        framed = None
        if head.isascii() and (mid or "").isascii():
            framed = (f"event: {obj['type']}\ndata: {head}".encode(), b"data: " + head.encode())
        bmid = None if mid is None else mid.encode()
        sk = Skeleton(kind, key, head, mid, tail, framed, bmid, tail + "\n\n")
        if kind == _TEXT:
            self._text_sk = sk
        else:
            self._think_sk = sk

    # ----- the round ----------------------------------------------------------------------

    def tool_calls(self) -> list[ToolCall]:
        """Calls in output order; a call that never got a name is dropped."""
        out = []
        for c in sorted(self._items, key=lambda c: (c.output_index or 0, c.seq)):
            if not c.name:
                continue
            args = c.arguments if c.arguments is not None else "".join(c.arg_parts)
            out.append(ToolCall(c.call_id or c.item_id or f"call_{c.seq}", c.name, args))
        return out

    def result(self) -> RoundResult:
        if not self.complete:
            raise SSEIncompleteError("stream ended unexpectedly (no response.completed)")
        return super().result()


def _is_json_int(s: str) -> bool:
    """Non-negative, ASCII digits, no leading zero: valid JSON in a number's place."""
    return s.isdigit() and s.isascii() and (s[0] != "0" or len(s) == 1)


def _json_object(s: str, payload: bytes) -> dict[str, Any]:
    """The event as a JSON object, or SSEFormatError quoting the start of the line."""
    try:
        obj = json.loads(s)
    except ValueError:
        obj = None
    if type(obj) is not dict:
        raise SSEFormatError(_excerpt(payload))
    return obj


def _excerpt(b: bytes, n: int = 120) -> str:
    s = b.decode(errors="replace")
    return s if len(s) <= n else s[:n] + "…"
