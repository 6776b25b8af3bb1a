"""The start-up notices of a config file: one that does not parse (the TUI starts without
it and says so in red on the welcome view) and a key it refuses, said after a resumed
session's transcript, which has no welcome (SVGs under snapshots/tui/)."""

from __future__ import annotations

import os
from pathlib import Path

from tui.conftest import make_app
from tui.snapshot_base import SnapshotCase
from tui.test_transcript import _big_session

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

    def test_a_refused_key_said_after_a_resumed_session(self) -> None:
        refusing = BROKEN.with_name("refusing.json")
        refusing.parent.mkdir(parents=True, exist_ok=True)
        scratch = refusing.with_name(f".refusing.{os.getpid()}.tmp")
        scratch.write_text('{"debug_local": true}\n')
        os.replace(scratch, refusing)
        _big_session(4)
        assert self.shot(app=make_app(config_path=str(refusing)))
