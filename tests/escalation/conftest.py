"""Fixtures for the escalation tests: the fake Anthropic server, the real CLI, the fake CLI."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from milk_tui.testing.claude_rig import CliRig
from milk_tui.testing.fake_anthropic import FakeAnthropic
from milk_tui.testing.fake_claude_cli import FakeCli


@pytest.fixture
def fake_cli(tmp_path: Path) -> FakeCli:
    return FakeCli(tmp_path / "fake-cli")


@pytest.fixture
def cli_rig(tmp_path: Path, fake_anthropic: FakeAnthropic, claude_bin: str) -> Iterator[CliRig]:
    rig = CliRig(tmp_path, fake_anthropic, claude_bin)
    yield rig
    rig.close()
