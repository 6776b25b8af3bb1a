"""The router's classifier over the primary agent: its one-word verdict on a prompt the
rules left inconclusive (engine/router.py), asked the cheapest way the agent offers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from milk_tui.agents.base import UsageEvent
from milk_tui.agents.verdict import Verdict
from milk_tui.engine.router import CHOICES, Classifier


def make_agent_classifier(
    agent: Any,
    available: Callable[[], Awaitable[bool]] | None = None,
    on_usage: Callable[[UsageEvent], None] | None = None,
) -> Classifier:
    """A classifier over the primary agent: its constrained ``verdict()`` when it has one
    (chat completions), ``complete()`` when it has that (Bedrock's ``converse``), otherwise
    one tool-less streamed turn whose text is collected.

    ``available`` (e.g. the AvailabilityCache's cached check) skips the model call when the
    primary is known to be down, so an inconclusive prompt costs no failed connection.
    ``on_usage`` receives the tokens each call spent.
    """

    async def classify(text: str) -> str | Verdict:
        if available is not None and not await available():
            raise RuntimeError(f"primary agent '{getattr(agent, 'name', '?')}' unavailable")
        if getattr(agent, "supports_verdict", False):
            verdict: Verdict = await agent.verdict(text, CHOICES, on_usage=on_usage)
            return verdict
        complete = getattr(agent, "complete", None)
        if complete is not None:
            return str(await complete(text, on_usage=on_usage))
        from milk_tui.agents.base import AgentRequest, TextChunk

        parts: list[str] = []
        async for ev in agent.stream(AgentRequest(slot="primary", prompt=text, cwd=".")):
            if isinstance(ev, TextChunk):
                parts.append(ev.text)
            elif isinstance(ev, UsageEvent) and on_usage is not None:
                on_usage(ev)
        return "".join(parts)

    return classify
