"""The agents a session chose: ``/agent switch`` is stored with the session (its
``primary_agent`` / ``escalation_agent`` fields), so resuming it runs them again.

This run's ``--agent`` / ``--escalation-agent`` win over a session's choice; a stored
name the config no longer defines is said once and the slot runs as configured.
"""

from __future__ import annotations

from milk_tui.config.agent_choice import Slot
from milk_tui.config.settings import MilkConfig
from milk_tui.model.session import Session

SLOTS: tuple[Slot, ...] = ("primary", "escalation")


def stored_choice(session: Session, slot: Slot) -> str:
    return session.primary_agent if slot == "primary" else session.escalation_agent


def store_choice(session: Session, slot: Slot, name: str) -> None:
    if slot == "primary":
        session.primary_agent = name
    else:
        session.escalation_agent = name


def session_choices(
    config: MilkConfig, session: Session, run_choices: dict[Slot, str]
) -> tuple[dict[Slot, str], list[str]]:
    """(the choices ``session`` runs with, a line per stored choice that was not taken)."""
    choices = dict(run_choices)
    notes: list[str] = []
    for slot in SLOTS:
        name = stored_choice(session, slot)
        if not name or slot in run_choices:
            continue
        found = config.find_agent(name)
        if found is None:
            notes.append(
                f"this session ran '{name}' as the {slot} agent, which the config no longer "
                f"defines; the {slot} agent is the configured one"
            )
            continue
        choices[slot] = found.name
    return choices, notes


def chosen_lines(choices: dict[Slot, str], run_choices: dict[Slot, str]) -> list[str]:
    """A line per slot that runs the session's choice rather than the config's."""
    return [
        f"{slot} agent: {name} (this session's choice; /agent switch changes it)"
        for slot, name in choices.items()
        if slot not in run_choices
    ]
