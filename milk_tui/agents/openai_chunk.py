"""The expected shape of one chat-completions stream chunk, checked in one place.

A chunk is valid JSON by the time it gets here; this checks the TYPES of every field the
parser reads (https://platform.openai.com/docs/api-reference/chat-streaming/streaming), so
a server that sends ``"content": 5`` or ``"tool_calls": {}`` ends the turn with one line
naming the field instead of a Python traceback deep in the parser.  Fields we do not read
are not checked (servers add their own).  Plain ``type(x) is`` tests, not a schema
library: this runs for every chunk that misses ``SSEParser``'s skeleton shortcut, so a
quick yes/no pass (``_plain``) runs first and the walk that names the field
(``_explain``) only runs for a chunk that failed it.
"""

from __future__ import annotations

from typing import Any

from milk_tui.agents.wire_shape import get, wrong

_DELTA_TEXT = ("content", "reasoning_content", "reasoning")
_USAGE_COUNTS = ("prompt_tokens", "completion_tokens")


def check_chunk(obj: dict[str, Any]) -> None:
    """Raise ``wire_shape.WireShapeError`` naming the first field of the wrong type."""
    if not _plain(obj):
        _explain(obj)


_STR_OR_NONE = (str, type(None))


def _plain(obj: dict[str, Any]) -> bool:
    """True for the usual chunk: choices of content/reasoning deltas (or tool-call deltas
    with string fields), no usage.  False only means "walk it" (``_explain``)."""
    if obj.get("usage") is not None:
        return False
    choices = obj.get("choices")
    if type(choices) is not list:
        return "choices" not in obj
    for ch in choices:
        if type(ch) is not dict or type(ch.get("finish_reason")) not in _STR_OR_NONE:
            return False
        delta = ch.get("delta")
        if delta is None:
            continue
        if (
            type(delta) is not dict
            or type(delta.get("content")) not in _STR_OR_NONE
            or type(delta.get("reasoning_content")) not in _STR_OR_NONE
            or type(delta.get("reasoning")) not in _STR_OR_NONE
        ):
            return False
        tcs = delta.get("tool_calls")
        if tcs is None:
            continue
        if type(tcs) is not list:
            return False
        for tc in tcs:
            if type(tc) is not dict or type(tc.get("id")) not in _STR_OR_NONE:
                return False
            idx, fn = tc.get("index"), tc.get("function")
            if idx is not None and type(idx) is not int:
                return False
            if fn is not None and (
                type(fn) is not dict
                or type(fn.get("name")) not in _STR_OR_NONE
                or type(fn.get("arguments")) not in _STR_OR_NONE
            ):
                return False
    return True


def _explain(obj: dict[str, Any]) -> None:
    """Walk the chunk and raise for the first wrong field (a chunk ``_plain`` did not pass).

    ``choices`` may be absent or an array; ``null`` is accepted only beside a ``usage``
    object (the usage-only last chunk some servers send that way).
    """
    usage = obj.get("usage")
    if usage is not None:
        _check_usage(usage)
    choices = obj.get("choices")
    if type(choices) is not list:
        if choices is None and ("choices" not in obj or usage is not None):
            return
        raise wrong("choices", choices, "an array")
    for i, ch in enumerate(choices):
        at = f"choices[{i}]"
        if type(ch) is not dict:
            raise wrong(at, ch, "an object")
        get(ch, "finish_reason", str, at)
        delta = get(ch, "delta", dict, at)
        if delta is None:
            continue
        at += ".delta"
        for key in _DELTA_TEXT:
            get(delta, key, str, at)
        for j, tc in enumerate(get(delta, "tool_calls", list, at) or ()):
            _check_tool_call(tc, f"{at}.tool_calls[{j}]")


def _check_tool_call(tc: Any, at: str) -> None:
    if type(tc) is not dict:
        raise wrong(at, tc, "an object")
    get(tc, "index", int, at)
    get(tc, "id", str, at)
    fn = get(tc, "function", dict, at)
    if fn is not None:
        get(fn, "name", str, at + ".function")
        get(fn, "arguments", str, at + ".function")


def _check_usage(u: Any) -> None:
    if type(u) is not dict:
        raise wrong("usage", u, "an object")
    for key in _USAGE_COUNTS:
        _check_count(u.get(key), f"usage.{key}")
    details = u.get("prompt_tokens_details")
    if details is None:
        return
    if type(details) is not dict:
        raise wrong("usage.prompt_tokens_details", details, "an object")
    _check_count(details.get("cached_tokens"), "usage.prompt_tokens_details.cached_tokens")


def _check_count(v: Any, where: str) -> None:
    if v is None or (type(v) is int and v >= 0) or (type(v) is float and 0 <= v < 1e18):
        return  # (a float NaN fails both comparisons)
    raise wrong(where, v, "a token count")
