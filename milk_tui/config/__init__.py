"""Configuration: files, environment and per-agent limit resolution."""

from .load import ConfigError, load_config
from .settings import AgentConfig, AgentLimits, MilkConfig

__all__ = ["AgentConfig", "AgentLimits", "ConfigError", "MilkConfig", "load_config"]
