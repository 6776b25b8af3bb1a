"""The dev workflow end to end, headless: ``milk-tui workflow dev`` as a subprocess on three
fake OpenAI servers, one per role (designer, generator, evaluator), with the real tool loop,
checkpoints on disk, the session's summary turn, and kill -9 at checkpoints then resume."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e.conftest import deadline

from milk_tui.facade.workflow import WorkflowError
from milk_tui.model.events import parse_event
from milk_tui.model.workflow import WorkflowState
from milk_tui.testing.cli_run import MILK_COMMAND, run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall, usage

PLAN = (
    "NO_QUESTIONS\n## Spec\nWrite hello.txt then goodbye.txt.\n## Limits\nmax_passes: 2\n"
    "max_sprints: 5\n## Sprint Plan\n## Sprint 1\nhello.txt says hi\n## Sprint 2\ngoodbye.txt\n"
)


@pytest.fixture
def servers(milk_home: Path) -> Iterator[dict[str, FakeOpenAIServer]]:
    with FakeOpenAIServer() as d, FakeOpenAIServer() as g, FakeOpenAIServer() as e:
        agents = "".join(
            f'[[agents]]\nname = "{n}"\nprovider = "local"\nurl = "{s.url}"\nmodel = "m-{n}"\n'
            for n, s in (("des", d), ("gen", g), ("eva", e))
        )
        (milk_home / "config.toml").write_text(f'agent = "gen"\nescalation_agent = "eva"\n{agents}')
        yield {"designer": d, "generator": g, "evaluator": e}


def write(path: str, content: str, cid: str) -> FakeReply:
    args = json.dumps({"path": path, "content": content})
    return FakeReply(tool_calls=[FakeToolCall("write_file", args, id=cid)])


DEV = ("workflow", "dev", "write the two files", "--designer", "des", "--generator", "gen",
       "--evaluator", "eva", "--allow-tools", "--output-format", "stream-json")  # fmt: skip


def events_of(stdout: str) -> list[Any]:
    return [parse_event(line) for line in stdout.splitlines() if line.strip()]


def state_of(home: Path) -> WorkflowState:
    (path,) = [p for p in (home / "workflows").glob("*.json")]
    return WorkflowState.from_json(path.read_text())


def test_three_roles_run_to_the_end(servers, tmp_path: Path, milk_home: Path) -> None:
    d, g, e = servers["designer"], servers["generator"], servers["evaluator"]
    d.enqueue(FakeReply(text=[PLAN], usage=usage(30, 20)))
    g.enqueue(
        write("hello.txt", "hi", "c1"), FakeReply(text=["wrote hello.txt"]),
        write("hello.txt", "hi!", "c2"), FakeReply(text=["fixed hello.txt"]),
        write("goodbye.txt", "bye", "c3"), FakeReply(text=["wrote goodbye.txt"], usage=usage(5, 2)),
    )  # fmt: skip
    e.enqueue(
        FakeReply(text=["missing the bang\nVerdict: needs_refinement"], usage=usage(9, 4)),
        FakeReply(text=["good now (not needs_refinement)\ngood_to_go"]),
        FakeReply(text=["fine\nsprint_done"]),
    )
    r = run_milk(*DEV, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    events = events_of(r.stdout)
    kinds = [ev.type for ev in events]
    assert kinds[0] == "workflow_started" and kinds[-1] == "workflow_finished"
    assert events[-1].ok
    assert (tmp_path / "hello.txt").read_text() == "hi!"
    assert (tmp_path / "goodbye.txt").read_text() == "bye"
    # the evaluator's LAST verdict line decides; the generator's second pass got the findings
    last = [ev for ev in events if ev.type == "workflow_progress"][-1]
    assert [(v["sprint"], v["pass"], v["verdict"]) for v in last.verdict_history] == [
        (1, 1, "needs_refinement"), (1, 2, "good_to_go"), (2, 1, "sprint_done")]  # fmt: skip
    second = g.chat_requests[2].json["messages"]
    assert "missing the bang" in json.dumps(second)
    assert {"tool_call", "tool_result", "workflow_delta", "usage"} <= set(kinds)
    assert {ev.role for ev in events if ev.type == "usage"} >= {
        "workflow:designer", "workflow:generator", "workflow:evaluator"}  # fmt: skip
    st = state_of(milk_home)
    assert st.role == "done" and st.summarised and "hello.txt" in st.files_changed
    mode = (milk_home / "workflows" / f"{st.session_id}.wf1.plan.md").stat().st_mode & 0o777
    assert mode == 0o600
    shown = run_milk("sessions", "show", st.session_id, "--json", cwd=tmp_path)
    assert "[dev workflow] complete" in shown.stdout and "hello.txt" in shown.stdout
    usage_rows = run_milk("usage", "--json", cwd=tmp_path).stdout
    assert "workflow:designer" in usage_rows


def test_out_of_passes_then_extend(servers, tmp_path: Path, milk_home: Path) -> None:
    d, g, e = servers["designer"], servers["generator"], servers["evaluator"]
    d.enqueue(FakeReply(text=[PLAN.replace("## Sprint 2\ngoodbye.txt\n", "")]))
    g.default_reply = FakeReply(text=["tried"])
    e.enqueue(FakeReply(text=["needs_refinement"]), FakeReply(text=["still needs refinement"]))
    r = run_milk(*DEV, cwd=tmp_path, timeout=120)
    assert r.returncode == 3, r.stderr
    assert "continues with 4" in r.stderr
    fin = events_of(r.stdout)[-1]
    assert fin.exhausted_sprint == 1 and fin.max_passes == 2
    e.enqueue(*[FakeReply(text=["needs_refinement"])] * 3, FakeReply(text=["good_to_go"]))
    r = run_milk("workflow", "resume", "--extend", "--output-format", "stream-json",
                 cwd=tmp_path, timeout=120)  # fmt: skip
    assert r.returncode == 0, r.stderr
    st = state_of(milk_home)
    assert st.max_passes == 4 and st.role == "done"
    assert [v.pass_ for v in st.verdict_history] == [1, 2, 1, 2, 3, 4]


def test_designer_questions_answered_from_a_file(servers, tmp_path: Path) -> None:
    d, g, e = servers["designer"], servers["generator"], servers["evaluator"]
    d.enqueue(FakeReply(text=["1. Which language?"]), FakeReply(text=[PLAN]))
    g.default_reply = FakeReply(text=["did it"])
    e.default_reply = FakeReply(text=["good_to_go"])
    (tmp_path / "answers.txt").write_text("Python, please")
    r = run_milk(*DEV, "--answers", str(tmp_path / "answers.txt"), cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    asked = [ev for ev in events_of(r.stdout) if ev.type == "workflow_questions"]
    assert asked and "Which language" in asked[0].questions
    assert "Python, please" in json.dumps(d.chat_requests[1].json["messages"])


@pytest.mark.parametrize("stop_at", ["designer", "generator", "evaluator"])
def test_kill_at_a_checkpoint_then_resume(servers, tmp_path: Path, milk_home: Path,
                                          stop_at: str) -> None:  # fmt: skip
    """The role named ``stop_at`` hangs; once the checkpoint says it is next the process
    is killed -9; the resume runs from that role (the roles before it get no request)."""
    script = {
        "designer": [FakeReply(text=[PLAN.replace("## Sprint 2\ngoodbye.txt\n", "")])],
        "generator": [FakeReply(text=["did it"])],
        "evaluator": [FakeReply(text=["good_to_go"])],
    }
    order = ["designer", "generator", "evaluator"]
    for role in order[: order.index(stop_at)]:
        servers[role].enqueue(*script[role])
    servers[stop_at].default_reply = FakeReply(text=["x"], hang="before_headers")
    env = {**os.environ}
    proc = subprocess.Popen([*MILK_COMMAND, *DEV], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline(lambda: servers[stop_at].chat_requests, f"the {stop_at}'s request", 90)
        st = state_of(milk_home)
        assert st.role == stop_at
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    before = {r: len(s.chat_requests) for r, s in servers.items()}
    servers[stop_at].default_reply = FakeReply(text=["unused"])
    for role in order[order.index(stop_at) :]:
        servers[role].enqueue(*script[role])
    r = run_milk("workflow", "resume", "--output-format", "stream-json", cwd=tmp_path,
                 timeout=120)  # fmt: skip
    assert r.returncode == 0, r.stderr
    started = events_of(r.stdout)[0]
    assert started.type == "workflow_started" and started.role == stop_at
    for role in order[: order.index(stop_at)]:
        assert len(servers[role].chat_requests) == before[role], f"{role} ran again"
    assert state_of(milk_home).role == "done"
    again = run_milk("workflow", "resume", cwd=tmp_path)
    assert again.returncode == 1 and "already completed" in again.stderr


def test_a_roles_fact_reaches_the_shared_memory(servers, tmp_path: Path) -> None:
    """The tag the generator writes, with the nonce its instructions gave it, is a fact."""
    d, g, e = servers["designer"], servers["generator"], servers["evaluator"]
    d.enqueue(FakeReply(text=[PLAN.replace("## Sprint 2\ngoodbye.txt\n", "")]))

    def tagged(req: Any) -> FakeReply:
        system = json.dumps(req.json["messages"])
        nonce = re.search(r"milk:percept:([A-Za-z0-9]+)>", system)
        assert nonce, "the role was not told how to tag facts"
        tag = f"milk:percept:{nonce.group(1)}"
        return FakeReply(text=[f"done <{tag}>the build uses tabs</{tag}>"])

    g.responder = tagged
    e.default_reply = FakeReply(text=["good_to_go"])
    r = run_milk(*DEV, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "percept_recorded" in {ev.type for ev in events_of(r.stdout)}
    listed = run_milk("memory", "list", cwd=tmp_path)
    assert "the build uses tabs" in listed.stdout, listed.stdout + listed.stderr


def test_ctrl_c_stops_at_the_last_checkpoint(servers, tmp_path: Path, milk_home: Path) -> None:
    d, g = servers["designer"], servers["generator"]
    d.enqueue(FakeReply(text=[PLAN]))
    g.default_reply = FakeReply(text=["x"], hang="before_headers")
    proc = subprocess.Popen([*MILK_COMMAND, *DEV], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline(lambda: g.chat_requests, "the generator's request", 90)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert proc.returncode == 130, err
    assert events_of(out)[-1].cancelled
    assert state_of(milk_home).role == "generator"
    status = run_milk("workflow", "status", cwd=tmp_path)
    assert "sprint 1/2 pass 1  role: generator" in status.stdout, status.stdout
    g.default_reply = FakeReply(text=["hello"])
    later = run_milk("-p", "hi", "--primary", cwd=tmp_path)  # a later run offers the resume
    assert later.returncode == 0 and "workflow dev in progress (sprint 1/2 pass 1" in later.stderr
    changed = run_milk("workflow", "reconfigure", "--generator", "des", cwd=tmp_path)
    assert changed.returncode == 0 and state_of(milk_home).agent_map["generator"] == "des"
    bad = run_milk("workflow", "reconfigure", "--generator", "nobody", cwd=tmp_path)
    assert bad.returncode == 1 and bad.stderr.strip() == (
        "milk-tui: no agent named 'nobody' is configured"
    )


async def test_busy_while_it_runs_and_cancel_stops_it(servers, tmp_path: Path) -> None:
    from milk_tui.facade.application import start

    d, g = servers["designer"], servers["generator"]
    d.enqueue(FakeReply(text=[PLAN]))
    g.default_reply = FakeReply(text=["x"], hang="before_headers")
    app = start(cwd=str(tmp_path), permission_policy="deny")
    try:
        roles = {"designer": "des", "generator": "gen", "evaluator": "eva"}
        task = app.workflow.start("write the files", roles)
        end = asyncio.get_running_loop().time() + 60
        while not g.chat_requests:
            assert asyncio.get_running_loop().time() < end, "no generator request"
            await asyncio.sleep(0.05)
        assert app.busy and app.submit("hello") is None
        with pytest.raises(WorkflowError, match="running"):
            app.workflow.start("another", roles)
        assert app.cancel()
        result = await asyncio.wait_for(task, 30)
        assert result.cancelled and not app.busy
        assert app.workflow.state().role == "generator"
    finally:
        await app.aclose()


def test_a_failing_role_is_one_line_and_resume_retries_it(
    servers, tmp_path: Path, milk_home: Path
) -> None:
    d, g, e = servers["designer"], servers["generator"], servers["evaluator"]
    d.enqueue(FakeReply(text=[PLAN.replace("## Sprint 2\ngoodbye.txt\n", "")]))
    g.enqueue(FakeReply(text=["did it"]))
    e.enqueue(FakeReply(status=500, error_body='{"error": {"message": "model overloaded"}}'))
    r = run_milk(*DEV[:-2], cwd=tmp_path, timeout=120)
    assert r.returncode == 1
    (line,) = [x for x in r.stderr.splitlines() if x.startswith("milk-tui: workflow error")]
    assert "overloaded" in line and "Traceback" not in r.stderr
    assert state_of(milk_home).role == "evaluator"
    e.enqueue(FakeReply(text=["good_to_go"]))
    assert run_milk("workflow", "resume", cwd=tmp_path).returncode == 0
    assert len(g.chat_requests) == 1  # the report was kept: the generator did not run again
    none = run_milk("workflow", "dev", "  ", cwd=tmp_path)
    assert none.returncode == 1 and "needs a task" in none.stderr
