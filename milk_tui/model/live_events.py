"""Bus events of what changes around a session while the app runs: an agent's local server
(engine/server_on_demand.py) and agents swapped live (engine/agent_swap.py).  Part of the
``AnyEvent`` union of model/events.py, which re-exports them."""

from __future__ import annotations

from typing import Literal

from milk_tui.model.bus_event import BusEvent, Slot

# ----- local inference servers (an agent's run_cmd; engine/server_on_demand.py) -------------


class _ServerEvent(BusEvent):
    agent: str
    """The agent whose ``run_cmd`` server this is about."""


class ServerStarting(_ServerEvent):
    """An agent's ``run_cmd`` was launched; readiness is awaited for ``timeout_s``."""

    type: Literal["server_starting"] = "server_starting"
    url: str
    log: str
    timeout_s: float
    pid: int = 0
    """The started process (its group's leader); 0 when waiting for one started earlier."""


class ServerCountdown(_ServerEvent):
    """Once a second while a started server is not ready yet."""

    type: Literal["server_countdown"] = "server_countdown"
    remaining_s: int


class ServerReady(_ServerEvent):
    type: Literal["server_ready"] = "server_ready"
    url: str
    after_s: float


class ServerFailed(_ServerEvent):
    type: Literal["server_failed"] = "server_failed"
    error: str
    """Why the server did not come up: one line naming the agent and the cause."""


class ServerStopped(_ServerEvent):
    type: Literal["server_stopped"] = "server_stopped"
    pid: int


# ----- agents managed live (/agent switch, /reload) -----------------------------------------


class AgentsChanged(BusEvent):
    """The agent in a slot was replaced between turns (a switch or a reloaded config)."""

    type: Literal["agents_changed"] = "agents_changed"
    primary: str
    """Name of the primary agent now ("" when that slot is empty)."""
    escalation: str
    rebuilt: tuple[Slot, ...] = ()
    """The slots whose agent was built anew."""
    escalation_missing: str = ""
    """Why the escalation agent cannot run (its program not found), or "" (facade/views.py)."""
