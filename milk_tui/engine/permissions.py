"""Answering permission questions: the policy first, then the user on the bus.

Every decision that was not a free read is published as ``PermissionDecided`` (so print
mode's stream-json carries it); a question to the user goes out as ``PermissionRequested``
and waits for ``answer``.  Cancelling the turn while it waits denies it.

"Always" stores the question's milk grant (``grant``, or the wider ``grant_all`` when the
answer is ``wide``; one grant a line: a call outside the folder grants each of its resolved
paths), or — for a backend with its own rules (the Claude CLI), inside the folder — those
rules in the backend's settings file.  The same broker puts an agent's
own questions to the user (``ask_user``: the Claude CLI's ``AskUserQuestion``) and keeps
the calls refused in the last turn for ``grant_denied``
(docs/adr/0020-claude-permissions-ask-once.md).
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

from milk_tui.agents.base import DeniedTool, PermissionAnswer, PermissionQuestion
from milk_tui.agents.claude_project import project_trust, store_milk_rules
from milk_tui.agents.claude_settings import ClaudeSettingsError
from milk_tui.config.project_trust import TrustStore
from milk_tui.engine.dispatch_state import DispatchState
from milk_tui.engine.permission_policy import (
    Decision,
    decide,
    preview_for,
    runs_freely,
    user_denial_reason,
)
from milk_tui.engine.turn_publisher import TurnPublisher
from milk_tui.model import events as ev
from milk_tui.storage.permission_grants import GrantStore

FREE = PermissionAnswer(True)


class PermissionBroker:
    def __init__(self, state: DispatchState, publisher: TurnPublisher, grants: GrantStore) -> None:
        self._state = state
        self._publisher = publisher
        self.grants = grants
        self.trust = TrustStore(grants.directory)
        """The folder's settings-file trust and the rules milk stored there."""
        self._waiters: dict[str, tuple[PermissionQuestion, asyncio.Future[PermissionAnswer]]] = {}
        self._questions: dict[str, asyncio.Future[dict[str, str] | None]] = {}
        self._root: tuple[str, Path] | None = None
        self.denied: tuple[DeniedTool, ...] = ()
        """The calls refused in the last escalation turn (``grant_denied`` clears them)."""

    @property
    def skip_permissions(self) -> bool:
        """The session's ``/skip-permissions`` switch (``--allow-tools`` is the policy)."""
        return self._state.skip_permissions

    @skip_permissions.setter
    def skip_permissions(self, on: bool) -> None:
        self._state.skip_permissions = on

    @property
    def skip(self) -> bool:
        return self._state.permission_policy == "allow" or self._state.skip_permissions

    def granted(self) -> frozenset[str]:
        tools = self.grants.allowed(self._state.cwd)
        for warning in self.grants.take_warnings():
            self._publisher.publish(ev.Notice(level="warning", message=warning))
        return tools

    async def ask(self, q: PermissionQuestion) -> PermissionAnswer:
        if runs_freely(q):
            return FREE
        granted = self.granted()
        if q.always_rules:
            granted |= frozenset(project_trust(self._state.cwd, self.trust).rules)
        can_ask = self.can_ask or self._state.remote_answerer
        d = decide(q, root=self.root, skip=self.skip, granted=granted, can_ask=can_ask)
        if d is not None:
            return self._decided(q, d)
        rid = uuid.uuid4().hex[:12]
        fut: asyncio.Future[PermissionAnswer] = asyncio.get_running_loop().create_future()
        self._waiters[rid] = (q, fut)
        preview = preview_for(q, self._state.cwd)
        self._publisher.publish(
            ev.PermissionRequested(
                request_id=rid, agent_name=q.agent_name, tool_name=q.tool_name,
                tool_input=q.tool_input, effect=q.effect, outside_paths=q.outside_paths,
                preview=preview, always_rules=q.always_rules,
                resolved_paths=q.resolved_paths, grant=q.grant or q.tool_name,
                grant_all=q.grant_all,
            )
        )  # fmt: skip
        try:
            return await fut
        except asyncio.CancelledError:
            self._decided(q, Decision(False, "cancelled", "the turn was cancelled"), rid)
            raise
        finally:
            self._waiters.pop(rid, None)

    def answer(self, request_id: str, answer: PermissionAnswer) -> None:
        waiting = self._waiters.pop(request_id, None)
        if waiting is None or waiting[1].done():
            return
        q, fut = waiting
        if answer.allow and answer.always:
            if q.always_rules and not q.outside_paths:
                self.store_rules(q.always_rules)
            else:
                chosen = q.grant_all if answer.wide and q.grant_all else q.grant or q.tool_name
                self.grants.grant(self._state.cwd, chosen.split("\n"))
            d = Decision(True, "always")
        elif answer.allow:
            d = Decision(True, "user")
        else:
            d = Decision(False, "user", user_denial_reason(answer.reason))
        fut.set_result(self._decided(q, d, request_id, answer.answered_from))

    @property
    def root(self) -> Path:
        """The working folder, resolved (once for each folder the session is in)."""
        cwd = self._state.cwd
        if self._root is None or self._root[0] != cwd:
            self._root = (cwd, Path(cwd).resolve())
        return self._root[1]

    @property
    def can_ask(self) -> bool:
        return self._state.permission_policy == "ask"

    def store_rules(self, rules: tuple[str, ...]) -> bool:
        """Keep a backend's allow rules for the folder; a settings file we must not touch
        is named in a warning (the call is still allowed this once)."""
        try:
            store_milk_rules(self._state.cwd, self.trust, rules)
        except ClaudeSettingsError as e:
            self._publisher.publish(ev.Notice(level="warning", message=f"not remembered: {e}"))
            return False
        return True

    # ----- an agent's own questions to the user ---------------------------------------

    async def ask_user(
        self, agent_name: str, questions: list[dict[str, Any]]
    ) -> dict[str, str] | None:
        """The user's answers keyed by question text; None when no one can answer (headless)
        or the user dismissed the picker.  Skip-permissions does not answer for the user."""
        if not self.can_ask:
            return None
        rid = uuid.uuid4().hex[:12]
        fut: asyncio.Future[dict[str, str] | None] = asyncio.get_running_loop().create_future()
        self._questions[rid] = fut
        self._publisher.publish(
            ev.QuestionAsked(request_id=rid, agent_name=agent_name, questions=questions)
        )
        try:
            return await fut
        finally:
            self._questions.pop(rid, None)

    def answer_question(self, request_id: str, answers: dict[str, str] | None) -> None:
        fut = self._questions.pop(request_id, None)
        if fut is not None and not fut.done():
            fut.set_result(answers or None)

    # ----- refused calls, granted after the turn --------------------------------------

    def record_denials(self, agent_name: str, denied: tuple[DeniedTool, ...]) -> None:
        """After each committed turn of the agent: its refused calls (none clears the last
        ones, so Ctrl+G never retries a stale refusal), shown when there are any."""
        self.denied = denied
        if not denied:
            return
        self._publisher.publish(
            ev.PermissionsDenied(
                agent_name=agent_name,
                denials=[
                    ev.DeniedCall(
                        tool_name=d.tool_name, summary=summary(d.tool_input), rules=d.rules
                    )
                    for d in denied
                ],
            )
        )

    def grant_denied(self) -> tuple[DeniedTool, ...]:
        """Store the rules of the last turn's refused calls; returns the calls granted
        (none when there were none or the settings file could not be written)."""
        denied, self.denied = self.denied, ()
        rules = tuple(dict.fromkeys(r for d in denied for r in d.rules))
        if not rules or not self.store_rules(rules):
            return ()
        return denied

    def _decided(
        self, q: PermissionQuestion, d: Decision, request_id: str = "", answered_from: str = ""
    ) -> PermissionAnswer:
        self._publisher.publish(
            ev.PermissionDecided(
                request_id=request_id,
                allowed=d.allowed,
                how=d.how,
                reason=d.reason,
                agent_name=q.agent_name,
                tool_name=q.tool_name,
                answered_from=answered_from,
            )
        )
        return PermissionAnswer(d.allowed, always=d.how == "always", reason=d.reason)


SUMMARY_CHARS = 120
_SUMMARY_KEYS = ("command", "file_path", "path", "url", "query", "pattern", "notebook_path")


def summary(tool_input: dict[str, Any]) -> str:
    """One short line for a call: its command, path or URL, else its arguments."""
    text = next((v for k in _SUMMARY_KEYS if isinstance(v := tool_input.get(k), str) and v), "")
    if not text:
        text = ", ".join(f"{k}={v}" for k, v in tool_input.items() if isinstance(v, str | int))
    text = " ".join(text.split())
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"
