"""In-process scripted agents (``provider = "demo"``) so a first run shows every feature.

Replies are a pure function of the prompt (deterministic snapshots), streamed word by word
at a human pace, and they exercise the real machinery: need and percept tags with the
slot's nonce, the primary's self-escalation, usage, and an escalation agent that sometimes
ends with a question (→ ESCALATION_WAITING).
"""

from __future__ import annotations

import asyncio
import os
import re
import uuid
from collections.abc import AsyncIterator

from milk_tui.agents.base import (
    AgentEvent,
    AgentRequest,
    Finished,
    TextChunk,
    ThinkingChunk,
    UsageEvent,
)
from milk_tui.config.settings import AgentConfig

DEFAULT_PACE_S = 0.012
"""Seconds between words: ~80 words/s reads as a fast local model without being a blur."""

ESCALATE_WORDS = ("escalate", "refactor", "architecture", "hard", "complex", "design a", "debug")
REMEMBER_RE = re.compile(
    r"\b(?:remember(?: that)?|note that|i prefer|my name is)\b[:,]?\s*(.+)", re.I
)
"""Prompts that state a durable fact; the demo turns the rest of the sentence into a percept."""


def _goal(prompt: str) -> str:
    first = re.split(r"(?<=[.!?])\s", prompt.strip(), maxsplit=1)[0]
    first = first.rstrip(".!?")
    return (first[:77] + "…") if len(first) > 78 else first


def _words(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text)


class DemoAgent:
    def __init__(
        self, config: AgentConfig, *, slot: str, other_name: str = "", pace_s: float | None = None
    ) -> None:
        self.config = config
        self.name = config.name
        self.model = config.model or f"demo-{slot}"
        self.slot = slot
        self.other_name = other_name or ("claude" if slot == "primary" else "local")
        env = os.environ.get("MILK_DEMO_PACE")
        self.pace_s = pace_s if pace_s is not None else (float(env) if env else DEFAULT_PACE_S)

    async def available(self) -> bool:
        return True

    async def aclose(self) -> None:
        return None

    def _tags(self, req: AgentRequest) -> str:
        n = req.nonce
        out = f"<milk:need:{n}>{_goal(req.prompt)}</milk:need:{n}>" if n else ""
        m = REMEMBER_RE.search(req.prompt)
        if m and n:
            fact = m.group(1).strip().rstrip(".")
            out += f"<milk:percept:{n}>{fact}</milk:percept:{n}>"
        return out

    def _primary_reply(self, req: AgentRequest) -> tuple[str, str]:
        low = req.prompt.lower()
        if any(w in low for w in ESCALATE_WORDS):
            return (
                f"This looks like a job for {self.other_name} — handing it over.",
                f"the request needs deeper work than {self.name} should attempt",
            )
        if REMEMBER_RE.search(req.prompt):
            body = "Noted — I'll remember that for both of us."
        elif low.rstrip().endswith("?"):
            body = (
                f"Short answer from {self.name}: here is what I know about *{_goal(req.prompt)}*.\n\n"
                "- I answered locally, so this cost nothing.\n"
                f"- Ask me to **escalate** if you want {self.other_name} to dig deeper."
            )
        else:
            body = (
                f"Done: {_goal(req.prompt)}. Anything else?"
                if len(low) < 40
                else (
                    f"Working on it locally. Summary of *{_goal(req.prompt)}*:\n\n"
                    "1. Read the request.\n2. Checked the remembered facts.\n3. Answered here."
                )
            )
        return body, ""

    def _escalation_reply(self, req: AgentRequest) -> str:
        goal = _goal(req.prompt)
        mode = {
            "first": "fresh start",
            "returning": "returning",
            "resume": "resumed",
            "continuation": "continuing",
        }.get(req.mode, req.mode)
        body = (
            f"## {goal}\n\n"
            f"*{self.name} — {mode}.* Here is a deeper pass:\n\n"
            "- **Context**: I read the hand-off brief and the current need.\n"
            "- **Plan**: split the work into small, testable steps.\n"
            "- **Risk**: keep the session and the facts intact on every failure.\n\n"
            "```python\ndef step(state):\n    return state.next()\n```\n"
        )
        if "plan" in req.prompt.lower() and req.mode != "resume":
            body += "\nShall I go ahead with step one?"
        return body

    async def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        if request.on_wire is not None:  # no wire: the agent has the request at once
            request.on_wire()
        if self.slot == "primary":
            body, reason = self._primary_reply(request)
        else:
            body, reason = self._escalation_reply(request), ""
            yield ThinkingChunk(f"Considering how to approach: {_goal(request.prompt)}")
        text = self._tags(request) + body
        for word in _words(text):
            if self.pace_s:
                await asyncio.sleep(self.pace_s)
            yield TextChunk(word)
        prompt_tokens = (len(request.prompt) + len(request.append_system_prompt)) // 4 + 40
        yield UsageEvent(
            model=self.model,
            prompt_tokens=prompt_tokens,
            completion_tokens=len(text) // 4,
            cost_usd=0.0 if self.slot == "primary" else round(len(text) * 2e-6, 6),
        )
        session_id = ""
        if self.slot == "escalation":
            session_id = (
                request.resume_session_id
                or f"demo-{uuid.uuid5(uuid.NAMESPACE_URL, request.prompt)}"
            )
        yield Finished(stop_reason="end_turn", session_id=session_id, escalation_reason=reason)
