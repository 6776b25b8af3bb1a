"""The folder's own Claude settings files, asked about once before the escalation agent
uses them (docs/adr/0034-project-files-never-widen-permissions.md).

Only with the Claude CLI as the escalation agent: ``questions`` are the files that would
widen something and were never asked about in their current content (the TUI asks before
the first escalation turn); ``ignored`` are all those left out now (print mode names them
in one notice line each); ``answer`` records the user's choice by each file's content hash.
"""

from __future__ import annotations

from milk_tui.agents.claude_project import ProjectFile, project_trust, trust_files
from milk_tui.config.project_trust import TrustStore

__all__ = ["FolderTrust", "ProjectFile"]


class FolderTrust:
    def __init__(self, store: TrustStore, cwd: str, escalation_is_cli: bool) -> None:
        self._store = store
        self.cwd = cwd
        self._active = escalation_is_cli

    def questions(self) -> tuple[ProjectFile, ...]:
        return project_trust(self.cwd, self._store).ask if self._active else ()

    def ignored(self) -> tuple[ProjectFile, ...]:
        return project_trust(self.cwd, self._store).ignored if self._active else ()

    def answer(self, files: tuple[ProjectFile, ...], trust: bool) -> None:
        trust_files(self.cwd, self._store, files, trust)


def ignored_line(f: ProjectFile) -> str:
    """The one notice line for a file left out."""
    return (
        f"{f.name} in this folder is not trusted: ignored ({'; '.join(f.allows)}); "
        "trust it in the TUI to pass it on"
    )
