"""Argument parsing and schema validation before any tool handler runs."""

from __future__ import annotations

import json

import pytest

from milk_tui.agents.base import ToolOutcome, ToolSpec
from milk_tui.agents.tools import CompositeToolBox, LocalToolBox, SchemaError, Tool, validate

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "mode": {"type": "string", "enum": ["fast", "slow"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "opts": {
            "type": "object",
            "properties": {"depth": {"type": "integer"}},
            "required": ["depth"],
        },
    },
    "required": ["path"],
}


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({}, "missing required property 'path'"),
        ({"path": None}, "missing required property 'path'"),
        ({"path": 3}, "arguments.path: expected string, got integer"),
        ({"path": "a", "count": "many"}, "arguments.count: expected integer, got string"),
        ({"path": "a", "count": 1.5}, "arguments.count: expected integer, got number"),
        ({"path": "a", "count": True}, "arguments.count: expected integer, got boolean"),
        ({"path": "a", "flag": "perhaps"}, "arguments.flag: expected boolean, got string"),
        ({"path": "a", "mode": "medium"}, 'arguments.mode: "medium" is not one of "fast", "slow"'),
        ({"path": "a", "tags": ["x", 2]}, "arguments.tags[1]: expected string, got integer"),
        ({"path": "a", "tags": "x"}, "arguments.tags: expected array, got string"),
        ({"path": "a", "opts": {}}, "arguments.opts: missing required property 'depth'"),
        ({"path": "a", "opts": {"depth": "deep"}}, "arguments.opts.depth: expected integer"),
        ([1, 2], "arguments: expected object, got array"),
    ],
)
def test_rejections_name_the_path_and_rule(args: object, error: str) -> None:
    with pytest.raises(SchemaError) as e:
        validate(args, SCHEMA)
    assert error in str(e.value)


def test_scalars_are_coerced_where_unambiguous() -> None:
    out = validate(
        {
            "path": "a",
            "count": "10",
            "ratio": "0.5",
            "flag": "true",
            "opts": {"depth": 2.0},
            "extra": 1,
        },
        SCHEMA,
    )
    assert out == {
        "path": "a",
        "count": 10,
        "ratio": 0.5,
        "flag": True,
        "opts": {"depth": 2},
        "extra": 1,
    }


def test_additional_properties_false() -> None:
    with pytest.raises(SchemaError, match="unexpected properties other"):
        validate(
            {"a": 1, "other": 2},
            {"type": "object", "properties": {"a": {}}, "additionalProperties": False},
        )


def _recording_box(name: str, calls: list) -> LocalToolBox:
    async def handler(args: dict) -> ToolOutcome:
        calls.append((name, args))
        return ToolOutcome(f"{name} ok")

    return LocalToolBox([Tool(ToolSpec(name, "d", SCHEMA), handler)])


async def test_handler_never_runs_on_invalid_arguments() -> None:
    calls: list = []
    box = CompositeToolBox([_recording_box("t", calls)])
    bad_json = await box.call("t", '{"path": "a"')
    assert bad_json.is_error and "invalid JSON arguments for tool 't'" in bad_json.content
    bad_schema = await box.call("t", '{"count": 1}')
    assert bad_schema.is_error and "missing required property 'path'" in bad_schema.content
    assert calls == []
    ok = await box.call("t", '{"path": "a", "count": "3"}')
    assert ok == ToolOutcome("t ok")
    assert calls == [("t", {"path": "a", "count": 3})]


async def test_unknown_tool_lists_the_available_ones() -> None:
    box = CompositeToolBox([_recording_box("a", []), _recording_box("b", [])])
    out = await box.call("nope", "{}")
    assert out.is_error and "unknown tool 'nope'" in out.content and "a, b" in out.content


async def test_first_box_owns_a_duplicated_name() -> None:
    first: list = []
    second: list = []
    box = CompositeToolBox([_recording_box("t", first), _recording_box("t", second)])
    assert [s.name for s in box.specs()] == ["t"]
    await box.call("t", json.dumps({"path": "x"}))
    assert first and not second


async def test_empty_arguments_mean_an_empty_object() -> None:
    async def handler(args: dict) -> ToolOutcome:
        return ToolOutcome(json.dumps(args))

    box = CompositeToolBox([LocalToolBox([Tool(ToolSpec("n", "d", {"type": "object"}), handler)])])
    assert (await box.call("n", "")).content == "{}"


async def test_a_crashing_handler_becomes_an_error_result() -> None:
    async def handler(args: dict) -> ToolOutcome:
        raise RuntimeError("disk on fire")

    box = CompositeToolBox([LocalToolBox([Tool(ToolSpec("n", "d", {"type": "object"}), handler)])])
    out = await box.call("n", "{}")
    assert out.is_error and "disk on fire" in out.content
