"""The fake primary every permission test scripts its tool calls on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from milk_tui.testing.fake_openai import FakeOpenAIServer


@pytest.fixture
def srv() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as s:
        yield s
