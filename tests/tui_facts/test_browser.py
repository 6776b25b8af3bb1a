"""Pilot tests for every FactBrowser key and modal, on a real MemoryService over SQLite."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Select, Static, TextArea

from milk_tui.facade.facts import DEFAULT_SCOPE
from milk_tui.memory.service import MemoryService
from milk_tui.testing.percept_fixtures import bulk_facts
from milk_tui.testing.waits import until
from milk_tui.tui.facts import FactEditModal
from milk_tui.tui.facts.table import FactTable
from milk_tui.tui.facts.window import MAX_CACHED_PAGES
from milk_tui.tui.screens.confirm_modal import ConfirmModal
from tui_facts.conftest import FIXED_NOW, Host
from tui_facts.helpers import type_text


def status(app: Host) -> str:
    return str(app.browser.query_one("#fact-status", Static).render())


def current(app: Host):  # noqa: ANN201
    return app.browser.table.current()


@pytest.fixture
def three(memory: MemoryService, session_id: str) -> list:
    return [
        memory.record("the build server is called hopper", producer="user", session_id=session_id),
        memory.record(
            "prefers tabs over spaces",
            producer="primary",
            consumer="primary",
            session_id=session_id,
            turn_index=3,
        ),
        memory.record(
            "release notes go in CHANGELOG",
            producer="escalation",
            session_id=session_id,
            turn_index=5,
        ),
    ]


async def test_first_paint_lists_facts_newest_first(memory, session_id, three) -> None:
    app = Host(memory, session_id)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert status(app) == "3 facts"
        assert "scope: visible here" in str(app.browser.query_one("#fact-filters").render())
        assert current(app).id == three[2].id
        await pilot.press("down")
        assert current(app).id == three[1].id
        await pilot.press("end")
        assert current(app).id == three[0].id
        await pilot.press("home", "j")
        assert current(app).id == three[1].id
        await pilot.press("k")
        assert current(app).id == three[2].id
        await pilot.press("pagedown")
        assert current(app).id == three[0].id
        await pilot.press("pageup", "up")  # clamped at the first row
        assert current(app).id == three[2].id


async def test_add_records_a_user_fact_and_selects_it(memory, session_id, three) -> None:
    app = Host(memory, session_id)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("end", "a")
        assert isinstance(app.screen, FactEditModal)
        await type_text(pilot, "deploys happen on fridays")
        await pilot.press("ctrl+s")
        await until(
            pilot,
            lambda: (
                app.browser.window.total == 4
                and current(app).content == "deploys happen on fridays"
            ),
        )
        p = current(app)
        assert (p.producer, p.consumer, p.scope, p.weight) == ("user", "all", DEFAULT_SCOPE, 0.9)
        assert memory.count() == 4


async def test_a_scope_the_user_chose_is_not_promoted_at_session_end(memory, session_id) -> None:
    """A weight-0.9 fact saved as "this session" stays in the session after it ends; a fact
    whose scope nobody chose (an agent's) is still promoted."""
    app = Host(memory, session_id)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("a")
        modal = app.screen
        assert isinstance(modal, FactEditModal)
        assert modal.query_one("#scope", Select).value == DEFAULT_SCOPE
        await type_text(pilot, "this session uses the staging database")
        modal.query_one("#scope", Select).value = "session"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.browser.window.total == 1)
        mine = current(app)
    agents = memory.record("ci runs on hopper", producer="primary", session_id=session_id,
                           weight=0.95)  # fmt: skip
    rep = memory.consolidate(session_id)
    assert memory.get(mine.id).scope == "session" and mine.id not in rep.promoted
    assert memory.get(agents.id).scope == "global" and agents.id in rep.promoted


async def test_add_shows_validation_errors_and_stays_open(memory, session_id) -> None:
    app = Host(memory, session_id)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("a", "ctrl+s")
        modal = app.screen
        assert isinstance(modal, FactEditModal)
        errors = str(modal.query_one("#errors", Static).render())
        assert "content: a fact cannot be empty" in errors
        modal.query_one("#content", TextArea).text = "a fact"
        modal.query_one("#weight", Input).value = "2"
        await pilot.press("ctrl+s")
        assert "weight: 2 is outside 0.00 – 1.00" in str(
            modal.query_one("#errors", Static).render()
        )
        assert app.screen is modal and memory.count() == 0
        await pilot.press("escape")
        assert not isinstance(app.screen, FactEditModal) and memory.count() == 0


async def test_edit_changes_content_consumer_weight(memory, session_id, three) -> None:
    app = Host(memory, session_id)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("down", "e")  # the primary-only tabs fact
        modal = app.screen
        assert isinstance(modal, FactEditModal) and modal.percept.id == three[1].id
        modal.query_one("#content", TextArea).text = "prefers tabs, width 4"
        modal.query_one("#consumer", Select).value = "all"
        modal.query_one("#weight", Input).value = "0.55"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: current(app).content == "prefers tabs, width 4")
        p = memory.get(three[1].id)
        assert (p.content, p.consumer, p.weight) == ("prefers tabs, width 4", "all", 0.55)
        # enter also edits; escape leaves the fact untouched
        await pilot.press("enter")
        assert isinstance(app.screen, FactEditModal)
        app.screen.query_one("#content", TextArea).text = "discarded"
        await pilot.press("escape")
        await pilot.double_click(FactTable, offset=(20, 1))  # a double click edits too
        assert (
            isinstance(app.screen, FactEditModal) and app.screen.percept.id == three[1].id
        )  # edited: now first
        await pilot.press("escape")
        assert memory.get(three[1].id).content == "prefers tabs, width 4"


async def test_pinning_in_the_modal_makes_the_fact_global(memory, session_id, three) -> None:
    app = Host(memory, session_id)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("e")
        modal = app.screen
        modal.query_one("#core").value = True
        await pilot.pause()
        assert modal.query_one("#scope", Select).disabled
        await pilot.press("ctrl+s")
        await until(pilot, lambda: memory.get(three[2].id).core)
        p = memory.get(three[2].id)
        assert (p.scope, p.weight) == ("global", 1.0)


async def test_delete_asks_first(memory, session_id, three) -> None:
    app = Host(memory, session_id)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("n")
        assert memory.get(three[2].id) is not None
        await pilot.press("delete")  # the Delete key is the same action
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("y")
        await until(pilot, lambda: app.browser.window.total == 2)
        assert memory.get(three[2].id) is None
        assert current(app).id == three[1].id


async def test_pin_toggles_and_undo_reverts(memory, session_id, three) -> None:
    app = Host(memory, session_id)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("end", "p")  # the user's hopper fact (session, 0.9)
        await until(pilot, lambda: current(app).core)
        assert current(app).id == three[0].id  # the cursor follows the fact to its new row
        await pilot.press("p")
        await until(pilot, lambda: not memory.get(three[0].id).core)
        await pilot.press("u")  # undo the unpin
        await until(pilot, lambda: memory.get(three[0].id).core)
        await pilot.press("u")  # undo the pin: back to session scope and 0.9
        await until(pilot, lambda: not memory.get(three[0].id).core)
        p = memory.get(three[0].id)
        assert (p.scope, p.weight) == ("session", 0.9)
        await pilot.press("u")
        assert memory.get(three[0].id).scope == "session"  # nothing left to undo


async def test_undo_restores_a_deleted_fact(memory, session_id, three) -> None:
    app = Host(memory, session_id)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("d", "y")
        await until(pilot, lambda: app.browser.window.total == 2)
        await pilot.press("u")
        await until(pilot, lambda: app.browser.window.total == 3)
        assert memory.get(three[2].id).content == "release notes go in CHANGELOG"
        assert current(app).id == three[2].id


async def test_jump_posts_the_producing_turn(memory, session_id, three) -> None:
    app = Host(memory, session_id)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("g")
        await pilot.pause()
        assert [(j.session_id, j.turn_index, j.percept_id) for j in app.jumps] == [
            (session_id, 5, three[2].id)
        ]
        await pilot.press("end", "g")  # a user fact typed outside any turn: no jump
        await pilot.pause()
        assert len(app.jumps) == 1


async def test_search_as_you_type_with_qualifiers(memory, session_id, three) -> None:
    app = Host(memory, session_id)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await type_text(pilot, "hopp")
        await until(pilot, lambda: app.browser.window.total == 1)
        assert current(app).id == three[0].id
        app.browser.query_one("#fact-search", Input).value = "by:escalation"
        await until(pilot, lambda: app.browser.window.total == 1 and current(app).id == three[2].id)
        app.browser.query_one("#fact-search", Input).value = "for:nobody"
        await until(pilot, lambda: "for: expects one of" in status(app))
        app.browser.query_one("#fact-search", Input).value = ""
        await pilot.press("enter")  # submit: back to the table
        await until(pilot, lambda: app.browser.window.total == 3)
        assert isinstance(app.focused, FactTable)


async def test_filter_keys_chips_and_order(memory, session_id, three) -> None:
    memory.record("a global fact", producer="user", scope="global", session_id=session_id)
    app = Host(memory, session_id)
    async with app.run_test(size=(120, 30)) as pilot:
        b = app.browser
        assert b.window.total == 4
        await pilot.press("s")  # visible here -> this session
        await until(pilot, lambda: b.window.total == 3)
        await pilot.press("s")  # -> global
        await until(pilot, lambda: b.window.total == 1)
        await pilot.press("s", "s")  # -> all sessions -> visible here
        await until(pilot, lambda: b.query_state.scope == "here" and b.window.total == 4)
        await pilot.press("b", "b")  # by user -> by primary
        await until(pilot, lambda: b.window.total == 1 and current(app).id == three[1].id)
        b.set_filters(producer=None)
        await pilot.press("f", "f")  # for all -> for primary
        await until(pilot, lambda: b.window.total == 1 and current(app).id == three[1].id)
        assert "for: primary" in str(b.query_one("#fact-filters").render())
        b.set_filters(consumer=None)
        await until(pilot, lambda: b.window.total == 4)
        # chips are clickable: the first one is the scope chip
        await pilot.click("#fact-filters", offset=(3, 0))
        await until(pilot, lambda: b.query_state.scope == "session")
        await pilot.press("s", "s", "s")
        await pilot.press("o")  # recent -> weight: the pinned-free list puts 0.9 first
        await until(pilot, lambda: b.query_state.order == "weight")
        assert current(app).weight == 0.9 and b.window.total == 4
        assert "order: weight" in str(b.query_one("#fact-filters").render())


async def test_live_updates_coalesce_and_keep_the_cursor(memory, session_id, three) -> None:
    app = Host(memory, session_id)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("down")
        assert current(app).id == three[1].id
        before = app.browser.refreshes
        for i in range(40):  # an agent writing a burst of facts mid-stream
            memory.record_from_agent(
                f"streamed fact {i} about zebra{i}", "primary", session_id, 7, "llama", "claude"
            )
        await until(pilot, lambda: app.browser.window.total == 43)
        assert app.browser.refreshes == before + 1
        assert current(app).id == three[1].id  # still on the fact the user was reading
        memory.edit(three[0].id, content="the build server is called grace")
        memory.delete(three[2].id)
        await until(pilot, lambda: app.browser.window.total == 42)
        assert app.browser.refreshes == before + 2


async def test_compact_mode_has_fewer_columns(memory, session_id, three) -> None:
    app = Host(memory, session_id, compact=True)
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        table = app.browser.table
        assert [c.key for c in table.columns] == ["pin", "scope", "weight", "content"]
        assert not app.browser.query("#fact-filters")
        assert "[P] prefers tabs" in table.render_line(2).text
        assert status(app) == "3 facts"
        await pilot.press("s", "s")  # filters still work by key in the pane
        await until(pilot, lambda: status(app) == "0 facts · global")


async def test_virtualised_with_many_facts(memory, session_id) -> None:
    bulk_facts(memory.store, 5_000, session_id=session_id)
    app = Host(memory, session_id, clock=lambda: FIXED_NOW)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        w = app.browser.window
        assert w.total == 5_000 and len(w.pages) == 1
        await pilot.press("end")
        await pilot.pause()
        assert current(app).content.endswith("#0")  # oldest fact last
        await pilot.press("pageup", "pageup", "home")
        await pilot.pause()
        assert len(w.pages) <= MAX_CACHED_PAGES and w.queries < 12


async def test_set_session_switches_what_is_visible(memory, session_id, three, store) -> None:
    other = store.create("/elsewhere", "other").id
    memory.record("only in the other session", session_id=other)
    memory.record("shared everywhere", scope="global", session_id=other)
    app = Host(memory, session_id)
    async with app.run_test(size=(120, 30)) as pilot:
        assert app.browser.window.total == 4  # three + the global one
        app.browser.set_session(other)
        await until(pilot, lambda: app.browser.window.total == 2)
        assert {current(app).content} <= {"only in the other session", "shared everywhere"}


class Flaky:
    """A MemoryService whose reads fail while ``failing`` (a locked or broken database)."""

    def __init__(self, memory: MemoryService) -> None:
        self.memory, self.failing, self.bus = memory, True, memory.bus

    def __getattr__(self, name: str):  # noqa: ANN204
        attr = getattr(self.memory, name)
        if name in ("list", "count", "search", "search_count"):

            def guarded(*a, **k):  # noqa: ANN002, ANN003, ANN202
                if self.failing:
                    from milk_tui.storage.db import StorageError

                    raise StorageError("/tmp/milk.db: database is locked")
                return attr(*a, **k)

            return guarded
        return attr


async def test_storage_errors_are_shown_not_raised(memory, session_id, three) -> None:
    flaky = Flaky(memory)
    app = Host(flaky, session_id)  # type: ignore[arg-type]
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert status(app) == "memory: /tmp/milk.db: database is locked"
        assert app.browser.window.total == 0
        flaky.failing = False
        memory.record("written once the lock is gone", session_id=session_id)
        await until(pilot, lambda: app.browser.window.total == 4)
        assert status(app) == "4 facts"
        flaky.failing = True
        app.browser.refresh_now()
        await pilot.pause()
        assert status(app).startswith("memory: ")
        assert "database is locked" in app.browser.table.render_line(1).text
