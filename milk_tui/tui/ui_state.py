"""Small UI preferences remembered between runs (theme, thinking shown, side panes)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from milk_tui.config.paths import data_dir, ensure_dir, write_private

FILE_NAME = "ui_state.json"


@dataclass
class UIState:
    theme: str = ""
    show_thinking: bool = False
    side_panes: bool = True
    side_tasks: bool = False
    """The side column shows the tasks pane instead of need, escalation and facts (F2)."""

    @classmethod
    def path(cls) -> Path:
        return data_dir() / FILE_NAME

    @classmethod
    def load(cls) -> UIState:
        try:
            raw = json.loads(cls.path().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        known = {f.name for f in fields(cls)}
        return (
            cls(**{k: v for k, v in raw.items() if k in known}) if isinstance(raw, dict) else cls()
        )

    def save(self) -> None:
        """Atomic write: a crash mid-save must not leave a truncated file behind."""
        try:
            write_private(ensure_dir(data_dir()) / FILE_NAME, json.dumps(asdict(self), indent=2))
        except OSError:
            pass  # preferences are a convenience; never fail the app over them
