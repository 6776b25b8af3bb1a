"""Which arguments of an MCP tool hold filesystem paths, read from its JSON schema, so the
permission check resolves them like the built-in tools' paths
(docs/adr/0033-path-first-permissions.md).  Schemas come in many shapes: camelCase names,
type lists, ``anyOf``/``allOf`` (an optional argument), local ``$ref``s into ``$defs`` (how
pydantic-based servers describe a nested model), objects and arrays of objects."""

from __future__ import annotations

import re
from typing import Any

from milk_tui.agents.tools.paths import ANY_ARG

PATH_NAMES = frozenset(
    "path paths file files filename filepath file_path dir directory folder source "
    "destination src dst dest target root cwd workdir notebook_path uri url location "
    "output".split()
)
"""Argument names that, in MCP servers' schemas (the reference filesystem server's
``path``/``paths``/``source``/``destination`` among them), hold filesystem paths or
URIs that can name one (``file:///…``; an ``https:`` one resolves inside the folder and
so decides nothing)."""
PATH_SUFFIXES = (
    "_path", "_paths", "_file", "_files", "_dir", "_dirs", "_directory", "_folder", "_uri",
    "_location", "_url",
)  # fmt: skip
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_MAX_DEPTH = 24
"""How deep a schema is read (a recursive model refers to itself)."""


def path_args_of(schema: dict[str, Any]) -> tuple[str, ...]:
    """The properties that hold a path: ``"format": "path"`` or ``"uri"``, or a path-like
    name (``outputPath`` read as ``output_path``), with a string or string-array type (a
    type list or ``anyOf`` naming one counts); or an object, or array of objects, with
    such a property somewhere inside (``call_paths`` then takes every string in it).  A
    schema open to undeclared arguments gives ``ANY_ARG``: every argument's strings."""
    if schema.get("additionalProperties"):
        return (ANY_ARG,)
    schema = _inline(schema, schema, 0)
    props = schema.get("properties")
    out: list[str] = []
    for key, prop in (props if isinstance(props, dict) else {}).items():
        if isinstance(prop, dict) and (_holds_path(str(key), prop) or _nests_path(prop, 0)):
            out.append(str(key))
    return tuple(out)


def _inline(node: Any, root: dict[str, Any], depth: int) -> Any:
    """``node`` with every local ``$ref`` (``#/$defs/Name``) replaced by what it names."""
    if depth > _MAX_DEPTH:
        return {}
    if isinstance(node, list):
        return [_inline(v, root, depth + 1) for v in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        return _inline(target if isinstance(target, dict) else {}, root, depth + 1)
    return {k: _inline(v, root, depth + 1) for k, v in node.items()}


def _alternatives(prop: dict[str, Any]) -> list[dict[str, Any]]:
    """``prop`` and the schemas its ``anyOf``/``oneOf``/``allOf`` offer."""
    alts = [prop]
    for key in ("anyOf", "oneOf", "allOf"):
        given = prop.get(key)
        alts += [a for a in given if isinstance(a, dict)] if isinstance(given, list) else []
    return alts


def _types(prop: dict[str, Any]) -> set[str]:
    kinds: set[str] = set()
    for alt in _alternatives(prop):
        kind = alt.get("type")
        kinds |= {kind} if isinstance(kind, str) else set(kind) if isinstance(kind, list) else set()
        if alt is not prop:
            kinds |= _types(alt)
    return {k for k in kinds if isinstance(k, str)}


def _items(prop: dict[str, Any]) -> dict[str, Any]:
    for alt in _alternatives(prop):
        items = alt.get("items")
        if isinstance(items, dict):
            return items
    return {}


def _path_name(key: str) -> bool:
    low = _CAMEL.sub(r"\1_\2", key).lower()
    return low in PATH_NAMES or low.replace("_", "") in PATH_NAMES or low.endswith(PATH_SUFFIXES)


def _holds_path(key: str, prop: dict[str, Any]) -> bool:
    kinds = _types(prop)
    text = "string" in kinds or ("array" in kinds and "string" in _types(_items(prop)))
    return text and (prop.get("format") in ("path", "uri") or _path_name(key))


def _nests_path(prop: dict[str, Any], depth: int) -> bool:
    if depth > 6:
        return False
    inner = [*_alternatives(prop), *_alternatives(_items(prop))]
    for alt in inner:
        nested = alt.get("properties")
        if isinstance(nested, dict) and any(
            isinstance(p, dict) and (_holds_path(str(k), p) or _nests_path(p, depth + 1))
            for k, p in nested.items()
        ):
            return True
    return False
