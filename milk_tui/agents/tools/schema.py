"""A small JSON-schema validator for the subset our tool schemas use.

Why not ``jsonschema``: we need ~60 lines of it, and a runtime dependency for that is not
worth it.  Supported keywords: ``type`` (object, string, integer, number, boolean, array,
or a list of those), ``properties``, ``required``, ``enum``, ``items``,
``additionalProperties: false``.  Unknown keywords are ignored.

Small local models often quote numbers and booleans (``"offset": "10"``); rejecting those
would only cost a round, so scalars are COERCED where unambiguous and the coerced value is
returned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class SchemaError(ValueError):
    """Arguments do not match the tool's schema; the message names the path and the rule."""


_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no"}


def validate(value: Any, schema: dict[str, Any], path: str = "arguments") -> Any:
    """Return ``value`` (scalars coerced) or raise SchemaError naming what is wrong."""
    types = schema.get("type")
    if types is not None:
        allowed = [types] if isinstance(types, str) else list(types)
        value = _check_type(value, allowed, path)
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(json_repr(c) for c in schema["enum"])
        raise SchemaError(f"{path}: {json_repr(value)} is not one of {choices}")
    if isinstance(value, dict):
        value = _check_object(value, schema, path)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        value = [validate(v, schema["items"], f"{path}[{i}]") for i, v in enumerate(value)]
    return value


def _check_object(value: dict[str, Any], schema: dict[str, Any], path: str) -> dict[str, Any]:
    props: dict[str, Any] = schema.get("properties") or {}
    for name in schema.get("required") or []:
        if name not in value or value[name] is None:
            raise SchemaError(f"{path}: missing required property {name!r}")
    if schema.get("additionalProperties") is False:
        extra = sorted(set(value) - set(props))
        if extra:
            raise SchemaError(f"{path}: unexpected properties {', '.join(extra)}")
    out = dict(value)
    for name, sub in props.items():
        if name in out and out[name] is not None and isinstance(sub, dict):
            out[name] = validate(out[name], sub, f"{path}.{name}")
    return out


def _check_type(value: Any, allowed: list[str], path: str) -> Any:
    for t in allowed:
        ok, coerced = _matches(value, t)
        if ok:
            return coerced
    raise SchemaError(f"{path}: expected {' or '.join(allowed)}, got {_type_name(value)}")


def _matches(value: Any, t: str) -> tuple[bool, Any]:
    if t == "null":
        return value is None, value
    if t == "object":
        return isinstance(value, dict), value
    if t == "array":
        return isinstance(value, list), value
    if t == "string":
        return isinstance(value, str), value
    if t == "boolean":
        if isinstance(value, bool):
            return True, value
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return True, value.strip().lower() in _TRUE
        return False, value
    if t == "integer":
        if isinstance(value, bool):
            return False, value
        if isinstance(value, int):
            return True, value
        if isinstance(value, float) and value.is_integer():
            return True, int(value)
        if isinstance(value, str):
            return _from_text(value, int)
        return False, value
    if t == "number":
        if isinstance(value, bool):
            return False, value
        if isinstance(value, int | float):
            return True, value
        if isinstance(value, str):
            return _from_text(value, float)
        return False, value
    return True, value  # unknown type keyword: do not reject what we cannot judge


def _from_text(value: str, parse: Callable[[str], Any]) -> tuple[bool, Any]:
    """A number the model quoted: (True, the number) or (False, the text unchanged)."""
    try:
        return True, parse(value.strip())
    except ValueError:
        return False, value


_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),  # before int: bool is a subclass of int
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    for kind, name in _TYPE_NAMES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


def json_repr(v: Any) -> str:
    import json

    try:
        return json.dumps(v)
    except (TypeError, ValueError):
        return repr(v)
