"""Answers in a fixed form over chat completions: the primary's one-word verdict
(``OpenAICompatAgent.verdict``) and a short answer in a grammar's form
(``OpenAICompatAgent.answer_in_form``, the eval judge's score line).

First a request constrained to the choices with log-probs (llama.cpp honours ``grammar`` and
``logprobs``).  When the answer's first token is in the top log-probs and the other choice's
is too, one request gives the probability; otherwise a second request forced to the other
choice reads that choice's first-token log-prob (the prompt is in the server's cache by
then, so it costs a token or two).  A server that rejects the fields (HTTP 400) is asked
once more without them and never again with them; one notice says so.  A server that
ignores them answers in free text: the first word is parsed, no probability.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpx

from milk_tui.agents import openai_wire as wire_fmt
from milk_tui.agents.base import AgentError, UsageEvent
from milk_tui.agents.openai_sse import normalise_usage
from milk_tui.agents.verdict import (
    Verdict,
    choice_grammar,
    normalised,
    parse_choice,
    token_names,
)

if TYPE_CHECKING:
    from milk_tui.agents.openai_compat import OpenAICompatAgent

REFUSED_NOTICE = (
    "the primary's server refused a constrained answer (grammar/logprobs); its verdicts are "
    "now free text without a probability"
)


async def ask_verdict(
    agent: OpenAICompatAgent,
    prompt: str,
    choices: tuple[str, ...],
    on_usage: Callable[[UsageEvent], None] | None = None,
) -> Verdict:
    notice = ""
    if not agent.verdict_unconstrained:
        status, data = await _post(agent, prompt, choice_grammar(choices), on_usage)
        if status == 400:
            agent.verdict_unconstrained = True
            notice = REFUSED_NOTICE
        else:
            _raise_unless_ok(agent, status, data)
            return await _constrained(agent, prompt, choices, data, on_usage)
    status, data = await _post(agent, prompt, "", on_usage)
    _raise_unless_ok(agent, status, data)
    text = wire_fmt.completion_text(data)
    return Verdict(parse_choice(text, choices), text, None, False, notice)


async def _constrained(
    agent: OpenAICompatAgent,
    prompt: str,
    choices: tuple[str, ...],
    data: Any,
    on_usage: Callable[[UsageEvent], None] | None,
) -> Verdict:
    text = wire_fmt.completion_text(data)
    answer = parse_choice(text, choices)
    probs = wire_fmt.first_token_logprobs(data)
    if not answer or probs is None or len(choices) != 2:
        return Verdict(answer, text, None, True)
    chosen, top = probs
    other = choices[1] if answer == choices[0] else choices[0]
    other_lp = max((lp for tok, lp in top.items() if token_names(tok, other)), default=None)
    if other_lp is None:
        status, forced = await _post(agent, prompt, choice_grammar((other,)), on_usage)
        got = wire_fmt.first_token_logprobs(forced) if status == 200 else None
        if got is None:
            return Verdict(answer, text, None, True)
        other_lp = got[0]
    return Verdict(answer, text, normalised(chosen, other_lp), True)


async def answer_in_form(
    agent: OpenAICompatAgent, prompt: str, grammar: str, max_tokens: int
) -> str | None:
    """The answer constrained to ``grammar``; None when the server refused the grammar
    (HTTP 400: the caller asks in free text).  ``AgentError`` for any other failure."""
    body = wire_fmt.constrained_body(
        agent.model, prompt, grammar, agent.sampling_body(), max_tokens=max_tokens
    )
    status, data = await _send(agent, body, None)
    if status == 400:
        return None
    if status != 200:
        raise AgentError(f"{agent.name}: HTTP {status} for an answer in a fixed form")
    return wire_fmt.completion_text(data)


async def _post(
    agent: OpenAICompatAgent,
    prompt: str,
    grammar: str,
    on_usage: Callable[[UsageEvent], None] | None,
) -> tuple[int, Any]:
    body = wire_fmt.verdict_body(agent.model, prompt, grammar, agent.sampling_body())
    return await _send(agent, body, on_usage)


async def _send(
    agent: OpenAICompatAgent, body: bytes, on_usage: Callable[[UsageEvent], None] | None
) -> tuple[int, Any]:
    headers = await agent.request_headers()
    headers["Accept"] = "application/json"
    try:
        resp = await agent.http().post(agent.chat_url, content=body, headers=headers)
    except httpx.HTTPError as e:
        raise agent.transport_error(e) from None
    try:
        data = resp.json()
    except ValueError:
        data = None
    if resp.status_code == 200 and on_usage is not None and isinstance(data, dict):
        u = data.get("usage")
        if isinstance(u, dict):
            fresh, completion, cached = normalise_usage(u)
            on_usage(UsageEvent(agent.model, fresh, completion, cache_read=cached))
    return resp.status_code, data


def _raise_unless_ok(agent: OpenAICompatAgent, status: int, data: Any) -> None:
    if status != 200:
        raise AgentError(f"{agent.name}: HTTP {status} for the routing verdict")
