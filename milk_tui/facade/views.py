"""Read-only values the UI shows: the session's view (``SessionChanged``) and the agents'
descriptions for the welcome text.  Computed from live engine objects, returned as plain
frozen data, so no widget holds the session itself."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from milk_tui.model.events import SessionChanged
from milk_tui.model.session import HistoryCounts, Session, Turn

if TYPE_CHECKING:  # the config models: not loaded before the main screen's first frame
    from milk_tui.config.settings import AgentConfig


def held_turns(s: Session) -> list[Turn]:
    """The turns ``s`` holds in memory (a copy): all of a short session, the newest of a long
    one (``s.unread`` before them stay in the store, model/turn_history.py)."""
    return s.history[s.unread :]


def older_turns(s: Session, stop: int, count: int) -> list[Turn]:
    """Up to ``count`` turns ending before 0-based index ``stop``: read from the store when
    they are not held (the session keeps them once read)."""
    return s.history[max(0, stop - count) : stop]


def session_view(s: Session, counts: HistoryCounts | None = None) -> SessionChanged:
    """What the panes show of ``s``, as the event the facade publishes; ``counts``: its
    history's, from the store, while its older turns are not read (``Session.unread``)."""
    c = counts if counts is not None else s.history_counts()
    return SessionChanged(
        session_id=s.id,
        name=s.name,
        cwd=s.cwd,
        state=s.state.value,
        records=c.records,
        exchanges=c.exchanges,
        need=s.current_need,
        need_set_at=s.current_need_set_at,
        need_question=c.need_question,
        need_producer=s.need_producer,
        need_stale=s.need_is_stale(),
        escalation_session_id=s.escalation_session_id,
        escalation_brief=s.escalation_brief,
        last_user_agent=c.last_user_agent,
        local_turns_since_escalation=c.local_turns_since_escalation,
        last_escalation_context=c.last_escalation_context,
        tokens=tuple(dataclasses.replace(u) for u in s.tokens.values()),
    )


@dataclass(frozen=True)
class AgentInfo:
    """One agent slot as the welcome text describes it."""

    name: str
    description: str
    """Kind, model and URL ("not configured" when the slot is empty)."""
    missing: str = ""
    """Why the slot has no agent that can run: "none configured", or the agent's program is
    not on PATH ("" when it can run)."""

    @property
    def label(self) -> str:
        """What a pane names the slot by: the agent, and plainly when it cannot run."""
        return f"{self.name} ({self.missing})" if self.missing else self.name


def agent_info(c: AgentConfig | None, fallback: str) -> AgentInfo:
    """The agent entry a slot runs (``fallback`` names an empty slot)."""
    if c is None:
        return AgentInfo(fallback, "not configured", "none configured")
    return AgentInfo(
        c.name, " ".join(x for x in (c.kind, c.model, _shown_url(c.url)) if x), _missing(c)
    )


def _missing(c: AgentConfig) -> str:
    """An agent program not on PATH (checked as the dispatcher will when it runs it)."""
    if c.kind not in ("claude-cli", "aider-cli"):
        return ""
    import shutil

    program = c.bin or ("claude" if c.kind == "claude-cli" else "aider")
    return "" if shutil.which(program) else f"'{program}' not found"


def _shown_url(url: str) -> str:
    """``url`` without a user and password in it (``http://user:pass@host``): the welcome
    shows it, and the start card keeps it on disk (facade/start_card.py)."""
    if "@" not in url:
        return url
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=host))


@dataclass(frozen=True)
class StartupInfo:
    """What the welcome text says: the agents, demo mode, start-up notes, the config file."""

    primary: AgentInfo
    escalation: AgentInfo
    demo: bool
    notes: tuple[str, ...]
    config_path: str | None
