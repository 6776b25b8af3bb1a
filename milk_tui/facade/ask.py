"""One question to one configured agent, its text answer back: for callers that need a
model's judgement outside a session (``milk-tui eval judge``).

No tools are offered, no session or fact is written, no route is decided: the agent is
built from its config entry as a turn would build it (auth, headers, ``chat_path``,
Bedrock, the Claude CLI) and asked once.  HTTP agents are sent temperature 0 unless the
entry sets one, so the same question gets the same answer.
"""

from __future__ import annotations

import asyncio
import tempfile

from milk_tui.agents.base import AgentError, AgentRequest, TextChunk
from milk_tui.agents.factory import build_agent
from milk_tui.config.errors import ConfigError
from milk_tui.config.load import load_config
from milk_tui.config.settings import EXTERNAL_PROCESS_PROVIDERS, AgentConfig, MilkConfig

ASK_TIMEOUT_S = 300.0


class AskError(Exception):
    """One line for the user: which agent, what went wrong."""


def configured_agent(config_path: str | None, name: str = "") -> tuple[MilkConfig, AgentConfig]:
    """The config and the entry ``name`` names (default: the escalation agent); ``AskError``
    naming the defined agents when it names none."""
    try:
        config = load_config(config_path)[0]
    except (ConfigError, OSError) as e:
        raise AskError(str(e).splitlines()[0] if str(e) else type(e).__name__) from None
    if not name:
        return config, config.escalation_agent_config()
    found = config.find_agent(name)
    if found is None:
        known = ", ".join(a.name for a in config.effective_agents())
        raise AskError(f"no agent named '{name}' in the config (defined: {known})")
    return config, found


async def ask_agent(
    config: MilkConfig,
    entry: AgentConfig,
    prompt: str,
    *,
    timeout: float = ASK_TIMEOUT_S,
    grammar: str = "",
    max_tokens: int = 120,
) -> str:
    """The agent's whole text answer to ``prompt``; ``AskError`` on any failure.

    With a ``grammar`` (llama.cpp GBNF) an agent that can constrain its answer
    (``answer_in_form``: the OpenAI-compatible one) answers in that form, in at most
    ``max_tokens``: a small model asked for a score line then gives one instead of prose.
    A server that refuses grammars, and every other agent, answers in free text."""
    if entry.temperature is None and entry.provider not in EXTERNAL_PROCESS_PROVIDERS:
        entry = entry.model_copy(update={"temperature": 0.0})
    try:
        agent = build_agent(entry, slot="escalation", config=config)
    except Exception as e:  # noqa: BLE001 — an entry that cannot be built is one line
        raise AskError(f"{entry.name}: {e}") from None
    parts: list[str] = []
    try:
        with tempfile.TemporaryDirectory(prefix="milk-ask-") as cwd:
            in_form = getattr(agent, "answer_in_form", None)
            if grammar and in_form is not None:
                formed = await asyncio.wait_for(in_form(prompt, grammar, max_tokens), timeout)
                if formed is not None:
                    return str(formed)
            request = AgentRequest(slot="escalation", prompt=prompt, cwd=cwd)

            async def collect() -> None:
                async for event in agent.stream(request):
                    if isinstance(event, TextChunk):
                        parts.append(event.text)

            await asyncio.wait_for(collect(), timeout)
    except AgentError as e:
        raise AskError(f"{entry.name}: {str(e).splitlines()[0] if str(e) else 'failed'}") from None
    except TimeoutError:
        raise AskError(f"{entry.name}: no answer within {timeout:g} s") from None
    except OSError as e:
        raise AskError(f"{entry.name}: {e.strerror or e}") from None
    finally:
        await agent.aclose()
    return "".join(parts)
