"""Drive one agent stream: agent events → scratch (for the commit) and bus events (for the UI).

This is the per-chunk hot path of every turn (budget: at most 1.10x a bare httpx read,
``bench/headless_turn.py``), so it dispatches on exact types, binds everything it touches
to locals, folds deltas that arrive within 2 ms into one bus event, and builds them
without validation.  Text passes through the tag machine here — once per reply, for every
agent — so no backend has to know about milk tags (docs/adr/0009-one-tag-parser.md).  Known
secrets are masked here too, before anything is shown or stored, so a reply or tool result
that echoes a configured key never reaches the screen or the database
(docs/adr/0015-no-secret-on-disk.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncGenerator, Callable
from typing import cast

from milk_tui.agents.base import (
    Agent,
    AgentEvent,
    AgentRequest,
    Finished,
    Slot,
    TextChunk,
    ThinkingChunk,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)
from milk_tui.agents.redact import StreamMasker, known_secrets, mask_values
from milk_tui.engine.loop_detection import RepetitionWatch, loop_notice
from milk_tui.engine.turn_scratch import TurnScratch
from milk_tui.model import events as ev
from milk_tui.model.session import TokenUsage
from milk_tui.model.tags import TagInterceptor
from milk_tui.model.terminal_text import encodable

DELTA_FOLD_S = 0.002
"""Deltas arriving within 2 ms are published as one: invisible at 60 fps (16.7 ms frames),
yet it turns 20,000 per-chunk bus events of a fast local stream into a few hundred."""

_BUS_TOOL_EVENT: dict[type[AgentEvent], type[ev.ToolCall] | type[ev.ToolResult]] = {
    ToolCallEvent: ev.ToolCall,
    ToolResultEvent: ev.ToolResult,
}
"""Tool events carry the agent event's fields unchanged, plus the slot and the session."""


async def consume_stream(
    agent: Agent,
    request: AgentRequest,
    scratch: TurnScratch,
    *,
    slot: Slot,
    fallback_model: str,
    session_id: str,
    publish: Callable[[ev.BusEvent], None],
    on_need: Callable[[str], None],
    repeats: int = 0,
) -> None:
    """``repeats`` > 0: a passage repeated that many times in a row ends the reply
    (``loop_detection``); the stream is closed and the text before the loop kept."""
    text_parts = scratch.text
    interceptor = TagInterceptor(
        request.nonce,
        on_need=on_need,
        on_percept=lambda body: scratch.percepts.append((body, None)),
    )
    text_mask, thinking_mask = StreamMasker(), StreamMasker()
    secrets = known_secrets()  # the one list, changed in place when a secret becomes known
    mask_text, mask_thinking = text_mask.feed, thinking_mask.feed
    feed = interceptor.feed
    fast_delta = ev.fast_delta
    text_cls, thinking_cls = ev.TextDelta, ev.ThinkingDelta
    sid = session_id
    loop = asyncio.get_running_loop()
    pending: list[str] = []
    pending_cls: list[type[ev.TextDelta] | type[ev.ThinkingDelta]] = [text_cls]
    timer: list[asyncio.TimerHandle | None] = [None]
    fold_s = [0.0]  # the reply's first text is published on the next iteration, not held
    watch = RepetitionWatch(repeats)
    next_check = watch.next_check
    chars = 0
    looping = False

    def flush() -> None:
        if timer[0] is not None:
            timer[0].cancel()
            timer[0] = None
        if pending:
            publish(fast_delta(pending_cls[0], slot, "".join(pending), sid))
            pending.clear()

    def fold(cls: type[ev.TextDelta] | type[ev.ThinkingDelta], text: str) -> None:
        if pending_cls[0] is not cls:
            flush()
            pending_cls[0] = cls
        pending.append(text)
        if timer[0] is None:
            timer[0] = loop.call_later(fold_s[0], flush)
            fold_s[0] = DELTA_FOLD_S

    try:
        # Agents implement ``stream`` as async generators; aclosing ends one that we leave
        # early (cancel, error) at once instead of at garbage collection.
        stream = cast("AsyncGenerator[AgentEvent, None]", agent.stream(request))
        async with contextlib.aclosing(stream) as events:
            async for item in events:
                if type(item) is TextChunk:
                    if thinking_mask.held:  # a thought's held-back tail goes first
                        _release(thinking_mask.flush(), scratch.thinking, fold, thinking_cls)
                    # Each step's own no-op case is checked here, saving a call per chunk.
                    # A lone surrogate would stop the turn's database write and every JSON
                    # line of it: made U+FFFD here, once, for the reply, need and facts.
                    visible = item.text
                    if not visible.isascii():
                        visible = encodable(visible)
                    if secrets or text_mask.held:
                        visible = mask_text(visible)
                    if not interceptor.plain or "<" in visible or "`" in visible:
                        visible = feed(visible)
                    if visible:
                        text_parts.append(visible)
                        if pending_cls[0] is text_cls and timer[0] is not None:
                            pending.append(visible)  # fold's own common case
                        else:
                            fold(text_cls, visible)
                        chars += len(visible)
                        if chars >= next_check:
                            if watch.check(text_parts, chars):
                                looping = True
                                break  # leaving aclosing closes the agent's stream (HTTP call)
                            next_check = watch.next_check
                    continue
                if type(item) is ThinkingChunk:
                    if text_mask.held:
                        _release(feed(text_mask.flush()), text_parts, fold, text_cls)
                    thought = mask_thinking(encodable(item.text))
                    if thought:
                        scratch.thinking.append(thought)
                        fold(thinking_cls, thought)
                    continue
                if text_mask.held or thinking_mask.held:
                    _release(thinking_mask.flush(), scratch.thinking, fold, thinking_cls)
                    _release(feed(text_mask.flush()), text_parts, fold, text_cls)
                flush()  # keep the bus in stream order around every other event
                tool_event = _BUS_TOOL_EVENT.get(type(item))
                if tool_event is not None:
                    fields = dataclasses.asdict(item)
                    if secrets:
                        for key in ("arguments", "content"):
                            if key in fields:
                                fields[key] = mask_values(fields[key], secrets)
                    publish(tool_event(slot=slot, session_id=sid, **fields))
                elif type(item) is UsageEvent:
                    record_usage(item, scratch, slot, fallback_model, sid, publish)
                elif type(item) is Finished:
                    if item.session_id:
                        scratch.backend_session_id = item.session_id
                    if item.escalation_reason:
                        scratch.escalation_reason = item.escalation_reason
                    if item.reasoning_promoted:
                        scratch.thinking.clear()
                    if item.permission_denials:
                        scratch.denials = item.permission_denials
                    if item.stop_reason:
                        scratch.finish_reason = item.stop_reason
        if looping:
            flush()
            kept, passage = watch.cut("".join(text_parts))
            text_parts[:] = [kept]
            publish(ev.ReplyCut(slot=slot, kept=kept, passage=passage, session_id=sid))
            publish(ev.Notice(level="warning", message=loop_notice(passage), session_id=sid))
            return
        _release(thinking_mask.flush(), scratch.thinking, fold, thinking_cls)
        rest = feed(text_mask.flush()) + interceptor.flush()
        if rest:
            text_parts.append(rest)
            fold(text_cls, rest)
    finally:
        flush()


def _release(
    text: str,
    parts: list[str],
    fold: Callable[[type[ev.TextDelta] | type[ev.ThinkingDelta], str], None],
    cls: type[ev.TextDelta] | type[ev.ThinkingDelta],
) -> None:
    """Text a masker held back (it did not become a secret): kept and shown after all."""
    if text:
        parts.append(text)
        fold(cls, text)


def record_usage(
    item: UsageEvent,
    scratch: TurnScratch,
    slot: Slot,
    fallback_model: str,
    sid: str,
    publish: Callable[[ev.BusEvent], None],
) -> None:
    role = slot if not item.role_suffix else f"{slot}:{item.role_suffix}"
    model = item.model or fallback_model
    fields = dataclasses.asdict(item)  # the bus event's token fields, by the same names
    del fields["role_suffix"]
    fields["model"] = model
    scratch.usage.append(
        TokenUsage(
            model,
            role,
            item.prompt_tokens,
            item.completion_tokens,
            item.cache_read,
            item.cache_creation,
            item.cost_usd,
        )
    )
    scratch.cost_usd += item.cost_usd
    publish(ev.Usage(role=role, session_id=sid, **fields))
