"""The base of every bus event (model/events.py lists them all): frozen, keyword-only records
of plain data, written to and read from the JSON of ``--output-format stream-json``.

Plain classes rather than pydantic models or ``dataclasses``: the vocabulary is some forty
classes, and making each cost ~0.5–0.7 ms either way (a validator's schema, or the code a
dataclass generates with ``exec``), 20–30 ms of every start-up before the first frame.
Here a class costs one walk over its annotations (``__init_subclass__``); the type checker
sees each one as a frozen keyword-only dataclass (``dataclass_transform``, PEP 681), so a
wrong field or type at a call site is caught statically, not at run time.

The JSON is the stable interface of docs/interfaces.md: fields in declaration order (a
subclass's ``type`` keeps the base's place), nested records (``TokenUsage``,
``AttachmentInfo``) as objects, tuples as arrays, non-ASCII written as is.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
import types
import typing
from collections.abc import Callable
from typing import Any, ClassVar, Literal, Self, TypeVar, cast, dataclass_transform

Slot = Literal["primary", "escalation"]
"""Wire names of the two agent slots (the ``agent`` field of the Go-compatible session JSON)."""

T = TypeVar("T")


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default is made anew for each event (a list, a dict, the time)."""
    return cast(T, _Factory(default_factory))


_REQUIRED = object()


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
class _Record:
    """The machinery: the type checker treats each subclass as a frozen keyword-only
    dataclass, whose fields start with ``BusEvent``'s (PEP 681 counts none of this class's)."""

    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}
    _factories: ClassVar[dict[str, Callable[[], Any]]] = {}
    _required: ClassVar[frozenset[str]] = frozenset()
    _by_type: ClassVar[dict[str, type[_Record]]] = {}
    """Every concrete event class by its ``type`` (``event_from_data``)."""

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        _collect_fields(cls)
        own_type = cls.__dict__.get("type")
        if isinstance(own_type, str):
            _Record._by_type[own_type] = cls

    def __init__(self, **values: Any) -> None:
        cls = type(self)
        unknown = values.keys() - cls._defaults.keys() - cls._factories.keys() - cls._required
        missing = cls._required - values.keys()
        if unknown or missing:
            raise TypeError(_signature_error(cls, unknown, missing))
        data: dict[str, Any] = {}
        for name in cls._fields:
            if name in values:
                data[name] = values[name]
            elif name in cls._factories:
                data[name] = cls._factories[name]()
            else:
                data[name] = cls._defaults[name]
        object.__setattr__(self, "__dict__", data)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((type(self), *self.__dict__.values()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"{type(self).__name__}({inner})"

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` (field names only), as ``dataclasses.replace`` makes one."""
        unknown = changes.keys() - self.__dict__.keys()
        if unknown:
            raise TypeError(_signature_error(type(self), unknown, frozenset()))
        copied = object.__new__(type(self))
        object.__setattr__(copied, "__dict__", {**self.__dict__, **changes})
        return copied

    def to_data(self) -> dict[str, Any]:
        """The event as JSON-ready data: what ``to_json`` writes."""
        return {k: _plain(v) for k, v in self.__dict__.items()}

    def to_json(self) -> str:
        """One compact JSON object (non-ASCII as is; ``cli/terminal_out.py`` writes it safely)."""
        return json.dumps(self.to_data(), ensure_ascii=False, separators=(",", ":"))


def _collect_fields(cls: type[_Record]) -> None:
    """The field names in declaration order (a redeclared field keeps its first place) and
    each one's default: the nearest class's that sets one."""
    order: dict[str, None] = {}
    defaults: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        for name in klass.__dict__.get("__annotations__", {}):
            if name.startswith("_"):
                continue
            order[name] = None
            defaults[name] = klass.__dict__.get(name, _REQUIRED)
    cls._fields = tuple(order)
    cls._defaults = {
        k: v for k, v in defaults.items() if v is not _REQUIRED and not isinstance(v, _Factory)
    }
    cls._factories = {k: v.make for k, v in defaults.items() if isinstance(v, _Factory)}
    cls._required = frozenset(k for k, v in defaults.items() if v is _REQUIRED)


def _signature_error(cls: type[_Record], unknown: Any, missing: Any) -> str:
    parts = []
    if unknown:
        parts.append("unknown field(s) " + ", ".join(sorted(unknown)))
    if missing:
        parts.append("missing field(s) " + ", ".join(sorted(missing)))
    return f"{cls.__name__}: " + "; ".join(parts)


class BusEvent(_Record):
    ts: float = field(default_factory=time.time)
    session_id: str = ""
    type: str
    """The event's snake_case name: every event narrows it to its own literal."""


def _plain(value: Any) -> Any:
    """JSON-ready: containers copied, records as objects, a non-finite float as null (what
    JSON can hold)."""
    if isinstance(value, str | bool | int) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    raise TypeError(f"cannot write a {type(value).__name__} as JSON")


def event_from_data(data: dict[str, Any]) -> BusEvent:
    """The event ``to_data`` wrote: its class chosen by ``type``, each value checked against
    its field's type (nested records rebuilt, arrays made the tuples a field holds).
    ``ValueError`` names the first field that does not fit."""
    kind = data.get("type")
    cls = _Record._by_type.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown event type {kind!r}")
    hints = _hints(cls)
    values = {}
    for name, value in data.items():
        if name not in cls._fields:
            raise ValueError(f"{cls.__name__}: unknown field {name!r}")
        values[name] = _convert(hints[name], value, f"{cls.__name__}.{name}")
    try:
        return cast(BusEvent, cls(**values))
    except TypeError as e:
        raise ValueError(str(e)) from None


_HINTS: dict[Any, dict[str, Any]] = {}


def _hints(cls: Any) -> dict[str, Any]:
    """A class's field types, resolved once (its annotations are strings, PEP 563)."""
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _convert(hint: Any, value: Any, where: str) -> Any:  # noqa: C901, PLR0911 — one case per kind of type
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return value
    if origin is Literal:
        if value in args:
            return value
    elif origin is typing.Union or origin is types.UnionType:
        for option in args:
            try:
                return _convert(option, value, where)
            except ValueError:
                continue
    elif hint is type(None):
        if value is None:
            return None
    elif origin is list and isinstance(value, list):
        return [_convert(args[0], v, where) for v in value]
    elif origin is tuple and isinstance(value, list | tuple):
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], v, where) for v in value)
        if len(args) == len(value):
            return tuple(_convert(a, v, where) for a, v in zip(args, value, strict=True))
    elif origin is dict and isinstance(value, dict):
        return dict(value)
    elif hint is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    elif hint is bool or hint is str:
        if isinstance(value, hint):
            return value
    elif hint is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    elif isinstance(hint, type) and dataclasses.is_dataclass(hint) and isinstance(value, dict):
        sub = _hints(hint)
        try:
            return hint(**{k: _convert(sub[k], v, f"{where}.{k}") for k, v in value.items()})
        except (KeyError, TypeError) as e:
            raise ValueError(f"{where}: {e}") from None
    raise ValueError(f"{where}: {value!r} is not a {hint}")
