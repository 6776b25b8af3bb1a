"""The fake Anthropic server and the real Claude CLI (as in tests/escalation/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from milk_tui.testing.fake_anthropic import FakeAnthropic, claude_env, find_claude_bin


@pytest.fixture
def fake_anthropic() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as srv:
        yield srv


@pytest.fixture
def claude_bin() -> str:
    found = find_claude_bin()
    if not found:
        pytest.skip("real Claude CLI not installed (npm install @anthropic-ai/claude-code)")
    return found


@pytest.fixture
def real_claude_env(tmp_path: Path, fake_anthropic: FakeAnthropic) -> dict[str, str]:
    return claude_env(tmp_path, fake_anthropic.url)
