"""The dev workflow's files: one checkpoint and its texts per workflow of a session.

In ``<data dir>/workflows/`` (0700), each file 0600 and written whole in one rename
(``config.paths.write_private``), so a kill at any moment leaves the previous checkpoint or
the new one, never half of one:

* ``<session>.wf<id>.json`` — the ``WorkflowState`` (``.json.cleared`` once cleared);
* ``<session>.wf<id>.plan.md`` — the designer's plan;
* ``<session>.wf<id>.sprint<N>.md`` / ``.findings<N>.md`` — the last pass's generator
  report and evaluator findings of sprint N.

Ids count up per session and are never reused (a cleared workflow keeps its files).
"""

from __future__ import annotations

import re
from pathlib import Path

from milk_tui.config.paths import ensure_dir, workflows_dir, write_private
from milk_tui.model.errors import StorageError
from milk_tui.model.workflow import WorkflowState

CLEARED = ".cleared"


class WorkflowFiles:
    def __init__(self, session_id: str, root: Path | None = None) -> None:
        self.session_id = session_id
        self.root = root or workflows_dir()

    def _ids(self) -> list[int]:
        pattern = re.compile(rf"^{re.escape(self.session_id)}\.wf(\d+)\.")
        if not self.root.is_dir():
            return []
        found = {int(m.group(1)) for p in self.root.iterdir() if (m := pattern.match(p.name))}
        return sorted(found)

    def next_id(self) -> int:
        ids = self._ids()
        return (ids[-1] + 1) if ids else 1

    def state_path(self, wid: int) -> Path:
        return self.root / f"{self.session_id}.wf{wid}.json"

    def text_path(self, wid: int, part: str) -> Path:
        """``part``: ``plan``, ``sprint<N>`` or ``findings<N>``."""
        return self.root / f"{self.session_id}.wf{wid}.{part}.md"

    def current(self) -> WorkflowState | None:
        """The newest workflow of the session with a state file (finished or not, not
        cleared); None when there is none.  ``StorageError`` for an unreadable one."""
        for wid in reversed(self._ids()):
            path = self.state_path(wid)
            if path.is_file():
                try:
                    return WorkflowState.from_json(path.read_text(encoding="utf-8"))
                except (OSError, ValueError) as e:
                    raise StorageError(f"workflow state {path}: {e}") from None
        return None

    def save(self, state: WorkflowState) -> None:
        self._write(self.state_path(state.workflow_id), state.to_json() + "\n")

    def write_text(self, state: WorkflowState, part: str, text: str) -> Path:
        path = self.text_path(state.workflow_id, part)
        self._write(path, text)
        return path

    def read_text(self, state: WorkflowState, part: str) -> str:
        try:
            return self.text_path(state.workflow_id, part).read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""
        except OSError as e:
            raise StorageError(f"workflow {part}: {e}") from None

    def clear(self, state: WorkflowState) -> Path:
        """Set the state aside (``.json.cleared``); the texts stay for reading."""
        path = self.state_path(state.workflow_id)
        target = path.with_name(path.name + CLEARED)
        try:
            path.replace(target)
        except OSError as e:
            raise StorageError(f"could not clear the workflow: {e}") from None
        return target

    def _write(self, path: Path, text: str) -> None:
        ensure_dir(self.root)
        try:
            write_private(path, text)
        except OSError as e:
            raise StorageError(f"could not write {path.name}: {e}") from None
