"""Bus events as records: the JSON of ``--output-format stream-json`` (a stable interface,
docs/interfaces.md) and its reading back, frozen instances, and one class per ``type``."""

from __future__ import annotations

import json
import typing

import pytest

from milk_tui.model import events as ev
from milk_tui.model.attachment import AttachmentInfo
from milk_tui.model.session import TokenUsage

TS = 1796327191.4756596
ATTACHED = AttachmentInfo(name="a.png", kind="image", mime="image/png", size=12, sha256="ab")
TOKENS = TokenUsage(model="m", role="primary", prompt=1, completion=2, cost_usd=0.25)


def test_fields_are_written_in_declaration_order_with_records_as_objects() -> None:
    started = ev.TurnStarted(prompt="héllo ✓", turn_index=3, attachments=[ATTACHED], ts=TS)
    assert started.to_json() == (
        '{"ts":1796327191.4756596,"session_id":"","type":"turn_started","prompt":"héllo ✓",'
        '"turn_index":3,"attachments":[{"name":"a.png","kind":"image","mime":"image/png",'
        '"size":12,"sha256":"ab","path":""}]}'
    )
    # A subclass's ``type`` keeps the base's place; its own fields follow the base's.
    ready = ev.ServerReady(agent="smol", url="http://x", after_s=0.5, ts=TS)
    assert list(json.loads(ready.to_json())) == [
        "ts", "session_id", "type", "agent", "url", "after_s",
    ]  # fmt: skip


def test_every_event_reads_back_equal_to_what_was_written() -> None:
    events = [
        ev.TurnStarted(prompt="p", attachments=[ATTACHED]),
        ev.SessionChanged(name="n", tokens=(TOKENS,)),
        ev.PermissionsDenied(
            agent_name="a", denials=[ev.DeniedCall(tool_name="Bash", rules=("Bash(ls)",))]
        ),
        ev.PermissionRequested(
            request_id="r",
            agent_name="a",
            tool_name="t",
            outside_paths=("/a",),
            tool_input={"x": [1, {"y": None}]},
        ),  # fmt: skip
        ev.AgentsChanged(primary="p", escalation="e", rebuilt=("primary",)),
        ev.TurnFailed(slot=None, error="e"),
        ev.EscalationStarted(agent_name="c", mode="returning", downgrade_reasons=["turn_gap"]),
        ev.Usage(role="primary", cost_usd=1),
    ]
    for event in events:
        back = ev.parse_event(event.to_json())
        assert back == event and type(back) is type(event)
        assert ev.parse_event(event.to_data()) == event


def test_every_event_class_is_in_the_union_and_found_by_its_type() -> None:
    union = set(typing.get_args(ev.AnyEvent))
    by_type = {cls.type: cls for cls in union}
    assert len(by_type) == len(union)
    for name, cls in by_type.items():
        assert ev.parse_event({"type": name, **_required(cls)}).type == name


def _required(cls: type[ev.BusEvent]) -> dict[str, object]:
    samples = {"slot": "primary", "need": "n", "set_at": 1, "percept_id": 1, "mode": "first",
               "state": "idle", "pinned": "", "how": "user", "target": "primary", "allowed": True, "remaining_s": 1,
               "timeout_s": 1.0, "after_s": 1.0, "pid": 1, "kept": "k", "agent_map": {}, "workflow_id": 1, "sprint": 1,
               "total_sprints": 1, "pass_no": 1, "max_passes": 1, "ok": True}  # fmt: skip
    return {name: samples.get(name, "x") for name in cls._required}


def test_an_event_cannot_be_changed_only_copied() -> None:
    notice = ev.Notice(message="m")
    with pytest.raises(AttributeError, match="frozen"):
        notice.message = "other"  # type: ignore[misc]  # the point: the checker refuses it too
    copied = notice.replace(session_id="s")
    assert (copied.session_id, copied.message, notice.session_id) == ("s", "m", "")
    assert copied != notice and hash(copied) != hash(notice)


def test_a_wrong_field_is_named() -> None:
    with pytest.raises(TypeError, match="unknown field\\(s\\) mesage"):
        ev.Notice(mesage="m")  # type: ignore[call-arg]  # the point: a misspelt field
    with pytest.raises(TypeError, match="missing field\\(s\\) message"):
        ev.Notice()  # type: ignore[call-arg]  # the point: a required field left out
    with pytest.raises(ValueError, match="TextDelta.slot: 'third'"):
        ev.parse_event('{"type":"text_delta","slot":"third","text":"t"}')
    with pytest.raises(ValueError, match="unknown event type 'nope'"):
        ev.parse_event('{"type":"nope"}')
    with pytest.raises(ValueError, match="Usage.prompt_tokens"):
        ev.parse_event({"type": "usage", "role": "r", "prompt_tokens": True})


def test_json_holds_no_value_it_cannot_represent() -> None:
    usage = ev.Usage(role="r", cost_usd=float("inf"))
    assert json.loads(usage.to_json())["cost_usd"] is None


def test_the_hot_path_delta_equals_a_constructed_one() -> None:
    fast = ev.fast_delta(ev.TextDelta, "primary", "hi", "s1")
    slow = ev.TextDelta(slot="primary", text="hi", session_id="s1", ts=fast.ts)
    assert fast == slow and fast.to_json() == slow.to_json()
