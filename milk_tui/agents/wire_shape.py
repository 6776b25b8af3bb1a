"""Wrong-typed fields of a streamed wire format, named the way a JSON reader would.

Every wire parser checks the types of the fields it reads in one place of its own
(``openai_chunk``, ``bedrock_events``, ``claude_stream``); they share this wording so a bad
chunk from any backend ends the turn with the same kind of line:
``choices[0].delta.content is a number (expected a string or null)``.
"""

from __future__ import annotations

from typing import Any


class WireShapeError(Exception):
    """A field of a stream chunk / event has the wrong JSON type."""


def json_type(v: Any) -> str:
    """How a JSON reader would name the value's type."""
    if v is None:
        return "null"
    if type(v) is bool:
        return "a boolean"
    if type(v) is int or type(v) is float:
        return "a number"
    if type(v) is str:
        return "a string"
    if type(v) is list:
        return "an array"
    return "an object"


def wrong(where: str, got: Any, expected: str) -> WireShapeError:
    return WireShapeError(f"{where} is {json_type(got)} (expected {expected})")


_NAMES = {str: "a string", int: "an integer", dict: "an object", list: "an array"}


def get(body: dict[str, Any], key: str, kind: type, where: str) -> Any:
    """``body[key]`` when it is absent, null, or of exactly ``kind``; else WireShapeError
    naming ``where.key``."""
    v = body.get(key)
    if v is None or type(v) is kind:
        return v
    raise wrong(f"{where}.{key}" if where else key, v, _NAMES[kind])
