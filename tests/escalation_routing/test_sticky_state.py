"""Sticky / pinned / auto-sticky semantics as tables on the router
and end-to-end through the dispatcher with scripted agents."""

from __future__ import annotations

from pathlib import Path

import pytest

from milk_tui.config.settings import MilkConfig
from milk_tui.engine.router import RouteFlags, Router
from milk_tui.model.session import Session, State
from milk_tui.testing.scripted_agent import say

E, P = "escalation", "primary"


def router(tmp_path: Path) -> Router:
    return Router(MilkConfig(), str(tmp_path))


# before-flags, final target, ok, forced, sticky_escalation → auto_sticky after
AFTER_TURN = [
    ("router escalation succeeds", RouteFlags(), E, True, None, True, True),
    ("sticky_escalation off", RouteFlags(), E, True, None, False, False),
    ("escalation failed", RouteFlags(), E, False, None, True, False),
    ("primary turn (incl. self-escalation)", RouteFlags(), P, True, None, True, False),
    ("primary turn keeps existing sticky", RouteFlags(auto_sticky=True), P, True, None, True, True),
    (
        "forced /escalate <msg> is that one prompt: not sticky",
        RouteFlags(force_escalate=True),
        E,
        True,
        "escalate",
        True,
        False,
    ),
    (
        "forced /escalate <msg> keeps a stickiness it found",
        RouteFlags(auto_sticky=True, force_escalate=True),
        E,
        True,
        "escalate",
        True,
        True,
    ),
    (
        "pinned escalate never becomes auto",
        RouteFlags(pinned_escalate=True),
        E,
        True,
        None,
        True,
        False,
    ),
    (
        "pinned primary: a one-off stays one-off (deviation)",
        RouteFlags(pinned_primary=True),
        E,
        True,
        "escalate",
        True,
        False,
    ),
    (
        "forced primary clears it",
        RouteFlags(auto_sticky=True, force_primary=True),
        P,
        True,
        "primary",
        True,
        False,
    ),
    (
        "forced primary clears it even on failure",
        RouteFlags(auto_sticky=True, force_primary=True),
        P,
        False,
        "primary",
        True,
        False,
    ),
    ("fallback to escalation counts as escalation", RouteFlags(), E, True, None, True, True),
]


@pytest.mark.parametrize(
    "case,before,target,ok,forced,sticky,expected", AFTER_TURN, ids=[c[0] for c in AFTER_TURN]
)
def test_after_turn_table(tmp_path, case, before, target, ok, forced, sticky, expected):
    router(tmp_path).after_turn(before, target, ok, forced, sticky)
    assert before.auto_sticky is expected
    assert not before.force_escalate and not before.force_primary  # single-turn flags end


def test_primary_command_clears_escalation_state(tmp_path):
    s = Session(id="s", cwd=str(tmp_path))
    s.history = []
    s.state = State.ESCALATION_WAITING
    flags = RouteFlags(pinned_escalate=True, auto_sticky=True, force_escalate=True)
    router(tmp_path).primary_command(flags, s)
    assert flags == RouteFlags(pinned_primary=True)
    assert s.state == State.ROUTING and s.repetition_baseline == s.user_turn_count()
    flags = RouteFlags(auto_sticky=True)
    router(tmp_path).primary_command(flags, s, pin=False)
    assert flags == RouteFlags()


def test_escalate_command_pins_and_unpins_primary(tmp_path):
    flags = RouteFlags(pinned_primary=True)
    router(tmp_path).escalate_command(flags)
    assert flags == RouteFlags(pinned_escalate=True)
    flags = RouteFlags(pinned_primary=True)
    router(tmp_path).escalate_command(flags, pin=False)
    assert flags == RouteFlags(pinned_primary=True, force_escalate=True)


async def test_sequence_through_decide_and_after_turn(tmp_path):
    """Route → finish → route again: the labels the status line would show."""
    r, s, f = router(tmp_path), Session(id="s", cwd=str(tmp_path)), RouteFlags()
    steps = []
    for prompt, forced, ok in [
        ("ls", None, True),
        ("hard one", "escalate", True),
        ("and then?", None, True),
        ("back", "primary", True),
        ("ls", None, True),
    ]:
        f.force_escalate, f.force_primary = forced == "escalate", forced == "primary"
        d = await r.decide(prompt, s, f)
        steps.append((d.target, d.label))
        r.after_turn(f, d.target, ok, forced, True)
    assert steps == [(P, ""), (E, "forced"), (P, ""), (P, "forced"), (P, "")]


# ----- through the dispatcher -----------------------------------------------------------


@pytest.fixture
def routed(rig):
    rig.dispatcher.router = Router(rig.config, rig.cwd)
    return rig


async def test_dispatcher_auto_sticky_after_escalation(routed):
    routed.escalation.push(say("done deal"), say("still here"))
    await routed.dispatcher.run_turn("refactor entire codebase")  # keyword → escalation
    assert routed.dispatcher.flags.auto_sticky
    await routed.dispatcher.run_turn("ls")  # would be primary by rules
    decided = routed.of("route_decided")
    assert [(d.target, d.rule, d.label) for d in decided] == [
        (E, "keyword", ""),
        (E, "explicit", "sticky"),
    ]


async def test_dispatcher_self_escalation_does_not_set_auto_sticky(routed):
    routed.primary.push(say("over to you", escalation_reason="too hard"), say("local again"))
    routed.escalation.push(say("deep answer"))
    out = await routed.dispatcher.run_turn("ls")
    assert out.ok and out.slot == E
    assert not routed.dispatcher.flags.auto_sticky
    await routed.dispatcher.run_turn("ls")
    assert routed.of("route_decided")[-1].target == P


async def test_dispatcher_failed_escalation_leaves_flags(routed):
    from milk_tui.agents.base import AgentError

    routed.escalation.push([AgentError("boom", agent="claude")])
    out = await routed.dispatcher.run_turn("refactor entire codebase")
    assert not out.ok
    assert not routed.dispatcher.flags.auto_sticky
