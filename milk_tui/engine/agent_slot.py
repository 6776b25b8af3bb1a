"""An agent in one of the two slots, with the configuration it was built from."""

from __future__ import annotations

from dataclasses import dataclass

from milk_tui.agents.base import Agent, Slot
from milk_tui.config.settings import AgentConfig


@dataclass
class AgentSlot:
    slot: Slot
    config: AgentConfig
    agent: Agent

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def is_cli(self) -> bool:
        return self.config.kind == "claude-cli"

    @property
    def model(self) -> str:
        """The model name usage is booked under when the backend reports none."""
        return self.config.model or self.name
