"""This run's choice of agents (``--agent``, ``--escalation-agent``, ``/agent switch``) laid
over the config's ``agent`` / ``escalation_agent`` selectors.

Plain config work, kept out of the engine so that start-up can read which agents the
main screen names before any agent is built (engine/boot.py)."""

from __future__ import annotations

from typing import Literal

from milk_tui.config.load import ConfigError
from milk_tui.config.settings import MilkConfig

Slot = Literal["primary", "escalation"]
"""The same two slots as ``agents.base.Slot`` (config sits below the agents layer)."""

SELECTOR_KEY: dict[Slot, str] = {"primary": "agent", "escalation": "escalation_agent"}


def unknown_agent(config: MilkConfig, name: str) -> str:
    """One line when ``name`` is no agent of ``config`` ("" when it is one)."""
    if config.find_agent(name) is not None:
        return ""
    names = ", ".join(a.name for a in config.effective_agents())
    return f"no agent named '{name}' (defined: {names})"


def agent_choices(config: MilkConfig, agent: str, escalation_agent: str) -> dict[Slot, str]:
    """``--agent`` / ``--escalation-agent`` as choices; ``ConfigError`` naming the defined
    agents when one names none."""
    choices: dict[Slot, str] = {}
    for slot, flag, name in (
        ("primary", "--agent", agent),
        ("escalation", "--escalation-agent", escalation_agent),
    ):
        if name and (problem := unknown_agent(config, name)):
            raise ConfigError(f"{flag}: {problem}")
        if name:
            choices["escalation" if slot == "escalation" else "primary"] = name
    return choices


def with_choices(config: MilkConfig, choices: dict[Slot, str]) -> MilkConfig:
    """``config`` with this run's agent choices over its selectors (names still defined)."""
    update = {
        SELECTOR_KEY[slot]: name
        for slot, name in choices.items()
        if name and config.find_agent(name) is not None
    }
    return config.model_copy(update=update) if update else config
