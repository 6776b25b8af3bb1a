"""One folder's tool permissions for the UI and the CLI: stored grants, the Claude CLI's own
allow rules for the folder, and, in a running session, the skip-permissions switch (the
rules: ``engine.permission_policy``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from milk_tui.agents.claude_project import project_trust
from milk_tui.config.paths import permissions_dir
from milk_tui.config.project_trust import TrustStore
from milk_tui.storage.permission_grants import GrantStore


class SkipSwitch(Protocol):
    skip_permissions: bool


@dataclass(frozen=True)
class GrantList:
    cwd: str
    tools: tuple[str, ...]
    file: str
    warnings: tuple[str, ...] = ()
    claude_rules: tuple[str, ...] = ()
    """The Claude CLI's allow rules passed on for the folder: milk's own in its
    ``.claude/settings.local.json`` and those of a settings file the user trusted."""


@dataclass(frozen=True)
class Revoked:
    revoked: tuple[str, ...]
    """The tools named that were granted here (and are no longer)."""
    not_granted: tuple[str, ...]
    """The tools named that were not granted here: nothing changed for them."""
    left: tuple[str, ...]
    """The tools still granted here."""

    def lines(self, cwd: str) -> list[str]:
        """What the command line and ``/permissions revoke`` say, one line each."""
        out = [f"revoked in {cwd}: {', '.join(self.revoked)}"] if self.revoked else []
        if self.not_granted:
            out.append(f"not granted in {cwd}, nothing to revoke: {', '.join(self.not_granted)}")
        out.append(f"still granted: {', '.join(self.left) or '(none)'}")
        return out


class FolderPermissions:
    def __init__(self, grants: GrantStore, cwd: str, switch: SkipSwitch | None = None) -> None:
        self._grants = grants
        self.cwd = cwd
        self._switch = switch

    def show(self) -> GrantList:
        tools = self._grants.allowed(self.cwd)
        return GrantList(
            self.cwd,
            tuple(sorted(tools)),
            str(self._grants.path_for(self.cwd)),
            tuple(self._grants.take_warnings()),
            project_trust(self.cwd, TrustStore(self._grants.directory)).rules,
        )

    def grant(self, tools: list[str]) -> tuple[str, ...]:
        """Allow ``tools`` in this folder from now on; returns every granted tool."""
        return tuple(sorted(self._grants.grant(self.cwd, tools)))

    def revoke(self, tools: list[str]) -> Revoked:
        """Ask again before ``tools``: which of them were granted, which were not, and
        the tools still granted."""
        before = self._grants.allowed(self.cwd)
        wanted = tuple(dict.fromkeys(tools))
        left = self._grants.revoke(self.cwd, tools) if before & set(wanted) else before
        return Revoked(
            tuple(t for t in wanted if t in before),
            tuple(t for t in wanted if t not in before),
            tuple(sorted(left)),
        )

    @property
    def skip(self) -> bool:
        return self._switch.skip_permissions if self._switch is not None else False

    @skip.setter
    def skip(self, on: bool) -> None:
        if self._switch is None:
            raise RuntimeError("skip-permissions needs a running session")
        self._switch.skip_permissions = on


def for_folder(cwd: str) -> FolderPermissions:
    """``cwd``'s stored grants, without a session (the ``permissions`` command)."""
    return FolderPermissions(GrantStore(permissions_dir()), cwd)
