"""A session longer than the tail it is resumed with (model/turn_history.py): every answer a
turn, the panes, an export or a repeat check takes from it is the one the whole history
gives, and what a primary turn needs comes from the tail and the store's counts alone.

The sessions are real stores of 3,000 turns of every role and agent, written through the
store's own commit path; each answer is taken from a freshly resumed copy (a copy that
read older turns for an earlier answer would hide a wrong count)."""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from milk_tui.engine.context import assemble_messages
from milk_tui.engine.escalation_delta import last_seen_at
from milk_tui.engine.open_store import HISTORY_TAIL
from milk_tui.engine.repeat_guard import REPEAT_WINDOW, is_repeated_prompt, recent_prompts
from milk_tui.engine.router_learning import last_primary_prompt
from milk_tui.engine.turn_drop import last_exchange_start
from milk_tui.facade.export import render
from milk_tui.model.session import EMPTY_ESCALATION_BYTES as EMPTY
from milk_tui.model.session import (
    ESCALATION,
    NEED_STALE_TURNS,
    PRIMARY,
    Session,
    ToolCallRecord,
    Turn,
    build_brick,
)
from milk_tui.model.turn_history import History
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore

TURNS = 3000


def _exchange(r: random.Random, i: int, escalations: bool) -> list[Turn]:
    """One exchange as the engine commits it: a primary answer (with tool calls sometimes),
    a hand-off, an escalation agent's own exchange, or a legacy one."""
    q = f"question {i} " + "about the router " * r.randint(0, 12)
    if r.random() < 0.05:  # a prompt asked again: what the repeat guard looks for
        q = "please explain the build again in more detail"
    kind = r.choices(["primary", "tools", "handoff", "escalation", "legacy"], [6, 2, 1, 1, 1])[0]
    if not escalations and kind in ("handoff", "escalation"):
        kind = "primary"
    answer = f"answer {i} " + "with some words " * r.randint(0, 30)
    if kind == "primary":
        return [Turn("user", q, agent=PRIMARY), Turn("assistant", answer, agent=PRIMARY)]
    if kind == "tools":
        calls = [ToolCallRecord(f"c{i}", "read_file", f'{{"path": "f{i}"}}')]
        return [
            Turn("user", q, agent=PRIMARY),
            Turn("assistant", "", agent=PRIMARY, tool_calls=calls),
            Turn("tool_result", f"contents of f{i} " * r.randint(1, 40), agent=PRIMARY),
            Turn("assistant", answer, agent=PRIMARY),
        ]
    if kind == "handoff":
        return [
            Turn("user", q, agent=PRIMARY),
            Turn("assistant", "handing over", agent=PRIMARY),
            Turn("user", q, agent=ESCALATION, context_text=f"orientation {i}"),
            Turn("assistant", answer, agent=ESCALATION, agent_name="claude"),
        ]
    if kind == "escalation":
        return [
            Turn("user", q, agent=ESCALATION),
            Turn("assistant", "", agent=ESCALATION, tool_calls=[ToolCallRecord("x", "ls", "{}")]),
            Turn("tool_result", "a b c", agent=ESCALATION),
            Turn("assistant", answer, agent=ESCALATION, agent_name="claude"),
        ]
    return [Turn("user", q, agent=""), Turn("assistant", answer, agent=PRIMARY)]


def _history(seed: int, escalations_until: float) -> list[Turn]:
    """``TURNS`` turns; escalation exchanges only in the first ``escalations_until`` of them
    (1.0: anywhere), so that the last escalation answer can lie before any tail."""
    r = random.Random(seed)
    turns: list[Turn] = []
    while len(turns) < TURNS:
        turns += _exchange(r, len(turns), len(turns) < TURNS * escalations_until)
    for k, t in enumerate(turns):
        t.timestamp = 1_700_000_000 + k
    return turns


class Stored:
    """One stored long session, resumed whole or tail first as often as a test asks."""

    def __init__(self, tmp: Path, seed: int, escalations_until: float) -> None:
        self.db = Database(tmp / f"milk-{seed}.db")
        self.store = SessionStore(self.db)
        s = self.store.create("/proj", "long")
        turns = _history(seed, escalations_until)
        for k in range(0, len(turns), 250):  # the store's own insert path, batch by batch
            batch = turns[k : k + 250]
            s.history.extend(batch)
            self.store.commit_turns(s, batch)
        self.id = s.id

    def whole(self) -> Session:
        s = self.store.load(self.id)
        assert s is not None and s.unread == 0
        return s

    def tail(self, tail: int) -> Session:
        s = self.store.load(self.id, tail=tail)
        assert s is not None and s.unread == len(s.history) - tail
        return s


CASES = [(1, 1.0), (2, 1.0), (3, 0.5), (4, 0.0)]
"""(seed, where escalations stop): anywhere twice, only in the first half (the last one is
older than any tail), never."""


@pytest.fixture(scope="module", params=CASES, ids=lambda c: f"seed{c[0]}-esc{c[1]}")
def stored(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stored]:
    seed, until = request.param
    s = Stored(tmp_path_factory.mktemp("long"), seed, until)
    yield s
    s.db.close()


TAILS = [64, HISTORY_TAIL]


def _same(
    stored: Stored,
    tail: int,
    ask: Callable[[Session], Any],
    *,
    paged: bool = False,
    ref: Callable[[Session], Any] | None = None,
) -> None:
    """``ask`` answers the same of a tail-first session as of the whole one (or as ``ref``,
    the plain-list formula, answers of the whole one); unless ``paged``, without reading any
    older turn (what a primary turn needs)."""
    fresh = stored.tail(tail)
    got = ask(fresh)
    assert got == (ref or ask)(stored.whole())
    if not paged:
        assert isinstance(fresh.history, History) and fresh.history.pages_read == 0, ask


# The formulas over a plain, whole list of turns that the session's answers must keep.


def _plain(s: Session) -> list[Turn]:
    return list(s.history)


def _last(s: Session, agent: str) -> int:
    h = _plain(s)
    return max((i for i, t in enumerate(h) if t.is_assistant_of(agent)), default=-1)


def _answers(s: Session, agent: str) -> int:
    return sum(1 for t in _plain(s) if t.is_assistant_of(agent))


def _ever(s: Session) -> bool:
    return any(t.agent == ESCALATION for t in _plain(s))


def _local_since(s: Session) -> int:
    if not _ever(s):
        return 0
    return sum(1 for t in _plain(s)[_last(s, ESCALATION) + 1 :] if t.is_assistant_of(PRIMARY))


def _bytes_since(s: Session, agent: str, k: int) -> int:
    answers = [t for t in _plain(s) if t.is_assistant_of(agent)]
    return sum(len(t.content.encode()) for t in answers[k:])


def _need_changed(s: Session) -> bool:
    if s.current_need_set_at <= 0 or not _ever(s):
        return False
    pos = max(s.current_need_set_at - 1, 0)
    return not any(t.is_assistant_of(ESCALATION) for t in _plain(s)[pos:])


@pytest.mark.parametrize("tail", TAILS)
def test_the_counts_and_boundaries_are_the_whole_historys(stored: Stored, tail: int) -> None:
    asks: list[tuple[Callable[[Session], Any], Callable[[Session], Any]]] = [
        (
            lambda s: (s.records, len(s.history), s.pending_turn_position()),
            lambda s: (len(_plain(s)),) * 2 + (len(_plain(s)) + 1,),
        ),
        (Session.user_turn_count, lambda s: sum(1 for t in _plain(s) if t.role == "user")),
        (Session.escalation_turn_count, lambda s: _answers(s, ESCALATION)),
        (Session.local_turn_count, lambda s: _answers(s, PRIMARY)),
        (Session.escalation_ever_active, _ever),
        (Session.last_escalation_boundary, lambda s: _last(s, ESCALATION) + 1),
        (Session.last_local_boundary, lambda s: _last(s, PRIMARY) + 1),
        (Session.local_turns_since_last_escalation, _local_since),
    ]
    for ask, ref in asks:
        _same(stored, tail, ask, ref=ref)
    whole = stored.whole()
    assert whole.escalation_turn_count() == 0 or whole.last_escalation_boundary() > 0
    # The panes' counts while the older turns are in the store.
    assert stored.store.history_counts(stored.tail(tail)) == whole.history_counts()


@pytest.mark.parametrize("tail", TAILS)
def test_output_bytes_since_any_answer_are_the_whole_historys(stored: Stored, tail: int) -> None:
    whole = stored.whole()
    for agent, n in (
        (ESCALATION, whole.escalation_turn_count()),
        (PRIMARY, whole.local_turn_count()),
    ):
        for k in sorted({0, 1, n // 2, max(n - 3, 0), n, n + 4}):
            # Reading older turns is right when k reaches among them; the answer is the same.
            _same(
                stored,
                tail,
                lambda s, a=agent, k=k: s.output_bytes_since(a, k),
                paged=True,
                ref=lambda s, a=agent, k=k: _bytes_since(s, a, k),
            )
    recent = max(whole.escalation_turn_count() - 1, 0)  # the last answer: no older turn read
    _same(  # ... when that answer is among the tail's turns
        stored,
        tail,
        lambda s: s.output_bytes_since(ESCALATION, recent),
        paged=_last(whole, ESCALATION) < len(whole.history) - tail,
        ref=lambda s: _bytes_since(s, ESCALATION, recent),
    )


@pytest.mark.parametrize("tail", TAILS)
def test_the_need_checks_are_the_whole_historys(stored: Stored, tail: int) -> None:
    last = stored.whole().last_escalation_boundary()  # the need set at that answer, or by it
    for at in (0, 1, 5, TURNS // 3, TURNS - tail - 1, TURNS - tail + 1, TURNS - 2, TURNS + 1,
               last - 1, last, last + 1, last + 2):  # fmt: skip

        def ask(s: Session, at: int = at) -> tuple[bool, int, bool]:
            s.current_need, s.current_need_set_at = "the need", at
            return s.need_changed_since_last_escalation(), s.need_turns_ago(), s.need_is_stale()

        if at < 0:  # a need is set at a turn's position, never before the first
            continue
        fresh, whole = stored.tail(tail), stored.whole()  # the panes' counts too
        fresh.current_need_set_at = whole.current_need_set_at = at
        assert stored.store.history_counts(fresh) == whole.history_counts(), at

        def ref(s: Session, at: int = at) -> tuple[bool, int, bool]:
            s.current_need, s.current_need_set_at = "the need", at
            ago = len(_plain(s)) + 2 - at if at > 0 else 0
            return _need_changed(s), ago, at > 0 and ago >= NEED_STALE_TURNS

        _same(stored, tail, ask, ref=ref)


@pytest.mark.parametrize("tail", TAILS)
@pytest.mark.parametrize("budget", [300, 4000, 20000, 200_000])
def test_the_summary_bricks_are_the_whole_historys(stored: Stored, tail: int, budget: int) -> None:
    def ask(s: Session) -> tuple[str, str]:
        s.rebuild_summary_bricks(budget)
        return s.last_local_summary, s.last_escalation_summary

    # A budget the tail does not fill reads older turns (the 64 the TUI holds may not either).
    def ref(s: Session) -> tuple[str, str]:  # the bricks of the whole slices, as before
        h = _plain(s)
        local = build_brick(h[_last(s, ESCALATION) + 1 :], PRIMARY, budget)
        esc = h[_last(s, PRIMARY) + 1 :]
        esc_bytes = sum(len(t.content.encode()) for t in esc if t.is_assistant_of(ESCALATION))
        kept = s.last_escalation_summary
        return local, build_brick(esc, ESCALATION, budget) if esc_bytes >= EMPTY else kept

    _same(stored, tail, ask, paged=tail < HISTORY_TAIL or budget > 20000, ref=ref)
    whole = stored.whole()
    answered = whole.last_escalation_boundary() < len(whole.history)  # the primary answered since
    assert ask(whole)[0] or budget < 1000 or not answered  # not two empty bricks compared


@pytest.mark.parametrize("tail", TAILS)
@pytest.mark.parametrize("budget", [2000, 16000, 0])
def test_a_turns_context_is_the_whole_historys(stored: Stored, tail: int, budget: int) -> None:
    whole = stored.whole()
    starts = {0, whole.last_escalation_boundary(), whole.last_local_boundary(), TURNS - 7}
    for agent in (PRIMARY, ESCALATION):
        for start in sorted(starts):

            def ask(s: Session, agent: str = agent, start: int = start) -> Any:
                built = assemble_messages(
                    s,
                    self_agent=agent,
                    pinned=["the need", "", "remembered facts"],
                    budget=budget,
                    system_prompt="you are the agent",
                    history_start=start,
                )
                return built.overhead, built.trimmed, [(m.role, m.content) for m in built.messages]

            # The primary's context within a budget the tail holds reads no older turn.
            walks_tail = agent == PRIMARY and budget > 0 and tail == HISTORY_TAIL
            _same(stored, tail, ask, paged=not walks_tail)


@pytest.mark.parametrize("tail", TAILS)
def test_the_repeat_guard_and_the_last_exchange_are_the_whole_historys(
    stored: Stored, tail: int
) -> None:
    def old_guard(s: Session, prompt: str) -> bool:  # what the guard compared before
        answered = [t.content for t in s.history if t.role == "user"]
        return is_repeated_prompt(answered, prompt, s.repetition_baseline)

    whole = stored.whole()
    users = [t.content for t in whole.history if t.role == "user"]
    for baseline in (0, 3, len(users) - 4, len(users) - 1, len(users) + 2):
        for prompt in (users[-1], users[-3], "please explain the build again in more detail"):
            fresh = stored.tail(tail)
            fresh.repetition_baseline = whole.repetition_baseline = baseline
            assert is_repeated_prompt(recent_prompts(fresh), prompt) == old_guard(whole, prompt)
            assert recent_prompts(fresh) == users[max(baseline, 0) :][-REPEAT_WINDOW:]
            assert fresh.history.pages_read == 0  # type: ignore[attr-defined]  # a History
    for ask in (
        lambda s: last_exchange_start(s.history),
        lambda s: last_primary_prompt(s.history),
        lambda s: last_seen_at(s),
    ):
        _same(stored, tail, ask, paged=True)


def test_exports_and_sessions_show_see_every_turn(stored: Stored) -> None:
    for fmt in ("md", "json", "txt"):
        _same(stored, 64, lambda s, f=fmt: render(s, f, now=1_800_000_000.0), paged=True)
    fresh = stored.tail(64)
    assert fresh.to_go_json() == stored.whole().to_go_json()
    assert list(fresh.history) == stored.whole().history and fresh.unread == 0


def test_older_turns_read_page_by_page_are_the_stored_ones_in_order(stored: Stored) -> None:
    whole = stored.whole().history
    fresh = stored.tail(64)
    h = fresh.history
    assert h[-1] == whole[-1] and h[TURNS // 2] == whole[TURNS // 2]
    assert h[5:9] == whole[5:9] and h[-70:-60] == whole[-70:-60]
    assert list(reversed(h)) == list(reversed(whole))
    # Each on a history not read yet: list's C code reads a list's held items directly.
    for same in (
        lambda h: h == whole,
        lambda h: whole == h,
        lambda h: not (whole != h),
        lambda h: [*h] == whole,
        lambda h: h + [] == whole,
        lambda h: [] + h == whole,
        lambda h: h.copy() == whole,
        lambda h: h[:] == whole,
        lambda h: sum(1 for _ in h) == len(whole),
        lambda h: whole[-1] in h and whole[0] in h,
        lambda h: h.index(whole[3]) == 3 and h.count(whole[0]) == whole.count(whole[0]),
        lambda h: copy.deepcopy(h) == whole and pickle.loads(pickle.dumps(h)) == whole,
    ):
        assert same(stored.tail(64).history), same


def test_a_history_changed_among_the_counted_turns_is_counted_again(stored: Stored) -> None:
    """Dropping back into the turns the store counted, then adding others: the counts come
    from the turns now held, not the store's older figures."""
    fresh, whole = stored.tail(64), stored.whole()
    cut = len(whole.history) - 100
    del fresh.history[cut:]
    del whole.history[cut:]
    more = [Turn("user", "new", agent=ESCALATION), Turn("assistant", "x", agent=ESCALATION)] * 60
    fresh.history.extend(more)
    whole.history.extend(more)
    for ask in (
        Session.user_turn_count,
        Session.escalation_turn_count,
        Session.local_turn_count,
        Session.last_escalation_boundary,
        Session.last_local_boundary,
        Session.local_turns_since_last_escalation,
    ):
        assert ask(fresh) == ask(whole), ask
