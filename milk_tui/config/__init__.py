"""Configuration: files, environment and per-agent limit resolution.

The names below load on first use (PEP 562): ``config.paths`` is needed before the TUI's
first frame, and importing pydantic-settings eagerly here cost ~170 ms of cold start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from milk_tui.config.load import ConfigError, load_config
    from milk_tui.config.settings import AgentConfig, AgentLimits, MilkConfig

__all__ = ["AgentConfig", "AgentLimits", "ConfigError", "MilkConfig", "load_config"]

_HOME = {
    "ConfigError": "load",
    "load_config": "load",
    "AgentConfig": "settings",
    "AgentLimits": "settings",
    "MilkConfig": "settings",
}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
