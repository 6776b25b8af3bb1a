"""The suite's one wait (milk_tui/testing/waits.py) fails loudly, naming what it waited for:
a wait that returned quietly at its deadline made every check after it unable to fail."""

from __future__ import annotations

import pytest

from milk_tui.testing.waits import describe, until, wait_for


async def test_until_returns_once_the_condition_holds() -> None:
    calls: list[int] = []

    def done() -> bool:
        calls.append(1)
        return len(calls) >= 3

    await until(None, done)
    assert len(calls) == 3


async def test_until_raises_naming_the_condition_from_its_source() -> None:
    box = {"name": "stale"}
    with pytest.raises(AssertionError, match=r'waiting for box\["name"\] == "big"'):
        await until(None, lambda: box["name"] == "big", timeout=0.05)


async def test_until_raises_with_the_callers_words() -> None:
    with pytest.raises(AssertionError, match="the escalation pane to name 'claude'"):
        await until(None, lambda: False, 0.05, what="the escalation pane to name 'claude'")


def test_wait_for_is_the_synchronous_twin() -> None:
    wait_for(lambda: True)
    with pytest.raises(AssertionError, match="waiting for a pid file"):
        wait_for(lambda: False, 0.05, what="a pid file")


def test_a_named_function_is_described_by_its_name() -> None:
    def server_ready() -> bool:
        return False

    assert describe(server_ready).endswith("server_ready")
