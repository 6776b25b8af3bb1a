"""The real dispatcher with the REAL Claude CLI (against the fake Anthropic server)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from milk_tui.testing.claude_rig import CliRig
from milk_tui.testing.fake_anthropic import FakeAnthropic


@pytest.fixture
def cli_rig(tmp_path: Path, fake_anthropic: FakeAnthropic, claude_bin: str) -> Iterator[CliRig]:
    rig = CliRig(tmp_path, fake_anthropic, claude_bin)
    yield rig
    rig.close()
