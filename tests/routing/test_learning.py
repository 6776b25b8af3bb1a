"""The router learns from the user: a ``/escalate`` right after a primary answer, or the
same prompt asked again, is stored (per folder, in the database) and moves the route of
similar prompts; ``/auto`` shows it and ``/auto reset`` forgets it.  Real database files,
the real dispatcher and the real TUI (Pilot) with the demo agents."""

from __future__ import annotations

import shutil
from pathlib import Path

from milk_tui.config.settings import MilkConfig
from milk_tui.engine.router import RouteFlags, Router
from milk_tui.engine.router_learning import LearnedRoutes, learned_summary, similarity
from milk_tui.model.session import Session
from milk_tui.storage.db import Database
from milk_tui.storage.route_examples import RouteExampleStore
from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.scripted_agent import say

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "db-0.1.0" / "milk.db"

ASKED = "what is the capital city of Italy please"
SIMILAR = "what is the capital city of Spain please"  # 3 of 5 words shared: 0.6
UNLIKE = "list the files in this folder"


def learned(tmp_path: Path, cwd: str = "/work/a") -> LearnedRoutes:
    return LearnedRoutes(RouteExampleStore(Database(tmp_path / "milk.db")), cwd)


def test_similarity_is_word_set_overlap():
    assert similarity(ASKED, SIMILAR) == 0.6
    assert similarity("Test 1 passes", "test 2 passes") < 0.8  # numbers count
    assert similarity("the a of", "the a of") == 0.0  # only function words: nothing to compare


async def test_a_learned_example_moves_similar_prompts_and_says_so(tmp_path):
    lr = learned(tmp_path)
    r = Router(MilkConfig(), "/work/a")
    r.learned = lr
    s = Session(id="s", cwd="/work/a")
    assert (await r.decide(SIMILAR, s, RouteFlags())).rule == "short_prompt"
    lr.record(ASKED, "/escalate after a primary answer")
    d = await r.decide(SIMILAR, s, RouteFlags())
    assert (d.target, d.rule) == ("escalation", "learned")
    assert d.reason.startswith(f"learned: like '{ASKED}' which you escalated (60% same")
    assert (await r.decide(UNLIKE, s, RouteFlags())).rule == "short_prompt"
    r.rules.learn_similarity = 0.7  # stricter: 0.6 is not enough
    assert (await r.decide(SIMILAR, s, RouteFlags())).rule == "short_prompt"


def test_examples_are_per_folder_and_global_and_reset_apart(tmp_path):
    a, b = learned(tmp_path, "/work/a"), learned(tmp_path, "/work/b")
    a.record(ASKED, "x")
    b.record(UNLIKE, "y")
    match = b.match(SIMILAR, 0.5)  # another folder's example counts everywhere
    assert match is not None and match.example.cwd == "/work/a"
    assert "1 in this folder, 2 in all folders" in learned_summary(a)
    assert b.reset() == 1 and a.examples(everywhere=True)[0].prompt == ASKED
    b.record(UNLIKE, "y")
    assert a.reset(everywhere=True) == 2 and not b.examples(everywhere=True)
    assert "none yet" in learned_summary(a)


def test_migration_on_a_0_1_0_database(tmp_path):
    path = tmp_path / "milk.db"
    shutil.copy(FIXTURE, path)
    db = Database(path)
    before = [s.id for s in SessionStore(db).list()]
    RouteExampleStore(db).add("/work/a", ASKED, "escalation", "x")
    db.close()
    db = Database(path)  # reopens: the table is there, the old sessions too
    assert "006_route_examples" in db.schema_version
    assert [e.prompt for e in RouteExampleStore(db).all()] == [ASKED]
    assert [s.id for s in SessionStore(db).list()] == before and before


async def test_escalate_after_a_primary_answer_teaches_the_dispatcher(rig):
    d = rig.dispatcher
    rig.primary.push(say("Rome"))
    await d.run_turn(ASKED)
    assert rig.of("route_decided")[-1].target == "primary"
    d.escalate_command("")  # bare /escalate right after the primary's answer
    assert any("learned: prompts like" in n.message for n in rig.of("notice"))
    d.auto_command("")
    assert any("learned routes: 1 in this folder" in n.message for n in rig.of("notice"))
    rig.escalation.push(say("Madrid"))
    await d.run_turn(SIMILAR)
    route = rig.of("route_decided")[-1]
    assert (route.target, route.rule) == ("escalation", "learned")
    d.escalate_command("")  # after an ESCALATED answer: nothing new to learn
    assert len(d.router.learned.examples()) == 1
    d.auto_command("reset")
    assert any("forgot 1 learned example(s) for this folder" in n.message for n in rig.of("notice"))


async def test_asking_again_teaches_too(rig):
    d = rig.dispatcher
    rig.primary.push(say("hmm"), say("hmm again"))
    await d.run_turn(ASKED)
    await d.run_turn(ASKED + "?")  # nearly the same: taught, and this one goes as before
    assert rig.of("route_decided")[-1].target == "primary"
    rig.escalation.push(say("Madrid"))
    await d.run_turn(SIMILAR)
    route = rig.of("route_decided")[-1]
    assert route.rule == "learned" and "asked again after a primary answer" in route.reason


HARD = "refactor the payment module design across files"
HARD_TOO = "refactor the billing module design across files"  # 5 of 7 words shared


async def test_primary_after_an_escalation_it_judged_keeps_similar_prompts_on_the_primary(rig):
    d = rig.dispatcher
    rig.escalation.push(say("done"))
    await d.run_turn(HARD)
    assert rig.of("route_decided")[-1].rule == "difficulty"
    d.primary_command("")  # bare /primary right after the escalation agent's answer
    assert any("stay on the primary" in n.message for n in rig.of("notice"))
    (example,) = d.router.learned.examples()
    assert (example.prompt, example.target) == (HARD, "primary")
    d.auto_command("")  # routes by the rules again: the lesson, not the pin, decides
    assert any("keep on the primary like" in n.message for n in rig.of("notice"))
    rig.primary.push(say("ok"))
    await d.run_turn(HARD_TOO)
    route = rig.of("route_decided")[-1]
    assert (route.target, route.rule) == ("primary", "learned")
    assert "which you kept on the primary (71% same words" in route.reason


async def test_primary_after_an_escalation_the_user_asked_for_teaches_nothing(rig):
    d = rig.dispatcher
    rig.escalation.push(say("done"))
    forced = d.escalate_command(UNLIKE)  # /escalate PROMPT: the user's choice, not the router's
    assert forced == UNLIKE
    await d.run_turn(forced, force="escalate")
    d.primary_command("")
    assert d.router.learned.examples() == []
    assert not any("stay on the primary" in n.message for n in rig.of("notice"))


def test_the_closest_example_wins_either_way(tmp_path):
    lr = learned(tmp_path)
    lr.record(HARD, "x", "primary")
    lr.record("refactor the billing code", "y")  # escalation, less alike
    match = lr.match(HARD_TOO, 0.3)
    assert match is not None and match.example.target == "primary"


async def test_escalate_with_a_new_question_teaches_nothing_about_the_last_one(rig):
    """``/escalate PROMPT`` with another question is a choice for that question, not a
    verdict on the answer before it; the same question again is one."""
    d = rig.dispatcher
    rig.primary.push(say("Rome"))
    await d.run_turn(ASKED)
    assert d.escalate_command(UNLIKE) == UNLIKE
    assert d.escalate_command("fresh " + UNLIKE) == UNLIKE
    assert d.router.learned.examples() == []
    assert not any("learned: prompts like" in n.message for n in rig.of("notice"))
    assert d.escalate_command(SIMILAR) == SIMILAR  # the question again, in other words
    (example,) = d.router.learned.examples()
    assert (example.prompt, example.target) == (ASKED, "escalation")


async def test_primary_with_a_new_question_teaches_nothing_about_the_last_one(rig):
    d = rig.dispatcher
    rig.escalation.push(say("done"))
    await d.run_turn(HARD)
    assert rig.of("route_decided")[-1].rule == "difficulty"
    assert d.primary_command(UNLIKE) == UNLIKE
    assert d.router.learned.examples() == []
    assert d.primary_command(HARD_TOO) == HARD_TOO  # the same question, for the primary
    (example,) = d.router.learned.examples()
    assert (example.prompt, example.target) == (HARD, "primary")
