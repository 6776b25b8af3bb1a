"""What changed between two configurations, in a few lines a user reads after a reload.

Agents are compared by name (case-insensitive, as the config looks them up); for a changed
agent only the names of its changed keys are listed, never values (an api_key may be one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from milk_tui.config.settings import AgentConfig, MilkConfig


@dataclass(frozen=True)
class ConfigDiff:
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Agent name → the keys of it that changed."""
    keys: tuple[str, ...] = ()
    """Top-level keys (other than ``agents``) whose value changed."""

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed or self.keys)

    def lines(self) -> list[str]:
        out = []
        if self.added:
            out.append("agents added: " + ", ".join(self.added))
        if self.removed:
            out.append("agents removed: " + ", ".join(self.removed))
        if self.changed:
            out.append(
                "agents changed: "
                + "; ".join(f"{n} ({', '.join(k)})" for n, k in self.changed.items())
            )
        if self.keys:
            out.append("keys changed: " + ", ".join(self.keys))
        return out


def _by_name(agents: list[AgentConfig]) -> dict[str, AgentConfig]:
    return {a.name.lower(): a for a in agents}


def _dump(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = model.model_dump(mode="json")
    return data


def agent_changes(old: AgentConfig, new: AgentConfig) -> tuple[str, ...]:
    a, b = _dump(old), _dump(new)
    return tuple(k for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k))


def config_diff(old: MilkConfig, new: MilkConfig) -> ConfigDiff:
    before, after = _by_name(old.agents), _by_name(new.agents)
    added = tuple(after[k].name for k in after if k not in before)
    removed = tuple(before[k].name for k in before if k not in after)
    changed = {
        after[k].name: keys
        for k in after
        if k in before and (keys := agent_changes(before[k], after[k]))
    }
    a, b = _dump(old), _dump(new)
    keys = tuple(k for k in sorted(a.keys() | b.keys()) if k != "agents" and a.get(k) != b.get(k))
    return ConfigDiff(added, removed, changed, keys)
