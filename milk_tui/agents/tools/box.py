"""Tool boxes: argument parsing + schema validation in ONE place, before any handler runs.

The model's output is untrusted: a tool call whose arguments are not valid
JSON, or do not match the tool's schema, becomes an error result fed back to the model —
never an exception that ends the turn.  ``CompositeToolBox`` validates for every box it
holds, so boxes written elsewhere (memory, peers) get the same guarantee.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from milk_tui.agents.base import ToolBox, ToolOutcome, ToolSpec
from milk_tui.agents.tools.schema import SchemaError, validate

Handler = Callable[[dict[str, Any]], Awaitable[ToolOutcome]]


@dataclass(slots=True)
class Tool:
    spec: ToolSpec
    handler: Handler


def parse_arguments(name: str, arguments: str, spec: ToolSpec) -> dict[str, Any] | ToolOutcome:
    """Parsed and validated arguments, or the error outcome to hand back to the model."""
    text = arguments.strip() if arguments else ""
    if not text:
        text = "{}"  # servers send "" for argument-less calls
    try:
        args = json.loads(text)
    except json.JSONDecodeError as e:
        return ToolOutcome(
            f"invalid JSON arguments for tool {name!r}: {e.msg} at position {e.pos}", is_error=True
        )
    try:
        checked = validate(args, spec.parameters or {"type": "object"})
    except SchemaError as e:
        return ToolOutcome(f"invalid arguments for tool {name!r}: {e}", is_error=True)
    if not isinstance(checked, dict):
        return ToolOutcome(
            f"invalid arguments for tool {name!r}: expected a JSON object", is_error=True
        )
    return checked


class LocalToolBox:
    """A box of in-process tools, each a spec plus an async handler taking parsed args."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            self.add(t)

    def add(self, tool: Tool) -> None:
        self._tools[tool.spec.name] = tool

    def specs(self) -> list[ToolSpec]:
        return [t.spec for t in self._tools.values()]

    async def call(self, name: str, arguments: str) -> ToolOutcome:
        tool = self._tools.get(name)
        if tool is None:
            return ToolOutcome(f"unknown tool {name!r}", is_error=True)
        parsed = parse_arguments(name, arguments, tool.spec)
        if isinstance(parsed, ToolOutcome):
            return parsed
        try:
            return await tool.handler(parsed)
        except Exception as e:  # a tool bug must not end the turn; the model sees why
            return ToolOutcome(f"tool {name!r} failed: {type(e).__name__}: {e}", is_error=True)


@dataclass(frozen=True, slots=True)
class ToolFilter:
    """An agent's ``included_tools`` / ``excluded_tools``: ``included`` (when given) keeps
    only the listed tools among ``choosable``; ``excluded`` removes any tool by name.
    Names compare case-insensitively (a config may say ``Bash``)."""

    included: frozenset[str] | None = None
    excluded: frozenset[str] = frozenset()
    choosable: frozenset[str] = frozenset()

    def allows(self, name: str) -> bool:
        key = name.lower()
        if key in {n.lower() for n in self.excluded}:
            return False
        if self.included is None or name not in self.choosable:
            return True
        return key in {n.lower() for n in self.included}


class CompositeToolBox:
    """Several boxes offered as one; the first box that declares a name owns it.  Tools the
    filter refuses are neither offered nor callable."""

    def __init__(self, boxes: Iterable[ToolBox], tool_filter: ToolFilter | None = None) -> None:
        self._boxes = list(boxes)
        self._owner: dict[str, tuple[ToolBox, ToolSpec]] = {}
        for box in self._boxes:
            for spec in box.specs():
                if tool_filter is None or tool_filter.allows(spec.name):
                    self._owner.setdefault(spec.name, (box, spec))

    def specs(self) -> list[ToolSpec]:
        return [spec for _, spec in self._owner.values()]

    def names(self) -> list[str]:
        return list(self._owner)

    async def call(self, name: str, arguments: str) -> ToolOutcome:
        owner = self._owner.get(name)
        if owner is None:
            known = ", ".join(self._owner) or "none"
            return ToolOutcome(f"unknown tool {name!r} (available: {known})", is_error=True)
        box, spec = owner
        parsed = parse_arguments(name, arguments, spec)
        if isinstance(parsed, ToolOutcome):
            return parsed
        try:
            return await box.call(name, json.dumps(parsed))
        except Exception as e:
            return ToolOutcome(f"tool {name!r} failed: {type(e).__name__}: {e}", is_error=True)
