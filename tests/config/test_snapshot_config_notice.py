"""The start-up notice of a config file that does not parse: the TUI starts without it and
says so in red on the welcome view (one SVG under snapshots/tui/)."""

from __future__ import annotations

import os
from pathlib import Path

from tui.conftest import make_app
from tui.snapshot_base import SnapshotCase

BROKEN = Path("/tmp/milk-snap/broken/config.json")
"""A fixed path: it is shown on screen."""


class TestConfigNotice(SnapshotCase):
    def test_a_config_that_does_not_parse(self) -> None:
        BROKEN.parent.mkdir(parents=True, exist_ok=True)
        scratch = BROKEN.with_name(f".config.{os.getpid()}.tmp")
        scratch.write_text('{\n  "agent": "qwen",\n  "agents": [\n    {"name": "qwen",}\n  ]\n}\n')
        os.replace(scratch, BROKEN)  # atomic: a parallel worker never reads a half file
        app = make_app(config_path=str(BROKEN), skip_broken_config=True)
        assert self.shot(app=app)
