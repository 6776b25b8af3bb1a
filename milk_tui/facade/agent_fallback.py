"""Where a slot goes when the agent it ran is removed: to an agent that answers.

The slot first runs what the config now says; when that does not answer, the first other
agent that does (for the primary, model servers before agent programs), and for the
primary, a local server answering on its usual port (engine/boot.py) — the one the app
found at start when nothing was configured.  Nothing answering, the slot stays as
configured and the line says so: a removal is never refused for want of a replacement.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from milk_tui.agents.base import Slot
from milk_tui.config.settings import EXTERNAL_PROCESS_PROVIDERS
from milk_tui.engine.boot import probe_local_server

if TYPE_CHECKING:
    from milk_tui.facade.agents import Agents


async def fall_back(agents: Agents, slot: Slot) -> str:
    """Run an agent that answers in ``slot``; one line saying which (or that none does)."""
    now = agents.running(slot)
    status = await agents.probe(now.name) if now is not None else "none"
    if now is not None and status == "up":
        return f"{slot} agent now: {now.name}"
    others = [a for a in agents.config.effective_agents() if now is None or a.name != now.name]
    if slot == "primary":  # a model server before a program (the primary answers cheaply)
        others.sort(key=lambda a: a.provider in EXTERNAL_PROCESS_PROVIDERS)
    for ac in others:
        if await agents.probe(ac.name) == "up":
            agents.run_configured(slot, ac.name)
            return f"{slot} agent now: {ac.name} (the first agent that answers)"
    if slot == "primary":
        found = await asyncio.to_thread(probe_local_server)
        if found is not None:
            agents.run_outside(slot, found)
            return f"primary agent now: the {found.name} server at {found.url}"
    if now is None:
        return f"no {slot} agent now; every turn goes to the other one"
    return f"{slot} agent now: {now.name} ({status}); no other agent answers — /agent add one"
