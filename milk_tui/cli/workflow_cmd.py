"""``milk-tui workflow dev TASK [--designer A --generator A --evaluator A]`` and
``milk-tui workflow resume [--extend] | reconfigure [--ROLE A] | status [--json] | clear``: the dev workflow headless
(docs/adr/0044-dev-workflow.md), on this folder's latest session.

No one is there to answer the designer's questions: ``--answers FILE`` answers them with
that file's text; without it one stderr line says they were skipped and the designer plans
with its own defaults.  Tools: as ``-p``: ``--allow-tools`` allows every call, otherwise only
the folder's grants.  Exit 0 complete, 1 failed, 3 out of passes (``resume --extend``
continues with twice the passes), 130 interrupted."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
from pathlib import Path
from typing import TextIO

from milk_tui.cli.terminal_out import event_json, inert_out

EXIT_OK, EXIT_FAILED, EXIT_EXHAUSTED, EXIT_INTERRUPTED = 0, 1, 3, 130


def add_workflow_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    wp = sub.add_parser("workflow", help="the dev workflow: designer → generator → evaluator")
    wp.add_argument("--config", metavar="FILE", help="config file")
    actions = wp.add_subparsers(dest="workflow_action", required=True)
    dev = actions.add_parser("dev", help="start a workflow on TASK")
    dev.add_argument("task", nargs="+")
    for role in ("designer", "generator", "evaluator"):
        dev.add_argument(f"--{role}", default="", metavar="AGENT",
                         help="primary, escalation or an agent name (default: escalation)")  # fmt: skip
    dev.add_argument("--answers", metavar="FILE", help="answers to the designer's questions")
    for name in ("dev", "resume"):
        p = dev if name == "dev" else actions.add_parser("resume", help="continue the workflow")
        p.add_argument("--allow-tools", action="store_true", help="allow every tool call")
        p.add_argument("--output-format", choices=("text", "stream-json"), default="text")
    actions.choices["resume"].add_argument(
        "--extend", action="store_true", help="out of passes: continue with twice the passes"
    )
    reconf = actions.add_parser("reconfigure", help="change the roles' agents")
    for role in ("designer", "generator", "evaluator"):
        reconf.add_argument(f"--{role}", default="", metavar="AGENT")
    status = actions.add_parser("status", help="where the workflow is")
    status.add_argument("--json", action="store_true")
    actions.add_parser("clear", help="set the workflow aside (its files stay)")


def run_workflow(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    return asyncio.run(_run(args, out, err))


async def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from milk_tui.facade.application import start
    from milk_tui.facade.workflow import WorkflowError

    action = args.workflow_action
    stream = getattr(args, "output_format", "text") == "stream-json"
    allow = getattr(args, "allow_tools", False)
    answers = ""
    if action == "dev" and args.answers:
        try:
            answers = Path(args.answers).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            print(f"milk-tui: --answers: {e}", file=inert_out(err))
            return EXIT_FAILED
    app = start(config_path=args.config, permission_policy="allow" if allow else "deny")
    out, err = inert_out(out, json=stream), inert_out(err)
    try:
        wf = app.workflow
        if action == "status":
            return _status(wf.state(), out, args.json)
        if action == "reconfigure":
            roles = {r: getattr(args, r) for r in ("designer", "generator", "evaluator")}
            changed = wf.reconfigure(roles)
            print(
                f"workflow {changed.workflow_id}: {json.dumps(changed.agent_map)}; "
                f"`milk-tui workflow resume` continues from {changed.position()}",
                file=out,
            )
            return EXIT_OK
        if action == "clear":
            cleared = wf.clear()
            print(f"workflow {cleared.workflow_id} cleared ({cleared.position()})", file=out)
            return EXIT_OK

        def on_event(event: object) -> None:
            from milk_tui.model import events as ev

            match event:
                case _ if stream and isinstance(event, ev.BusEvent):
                    from milk_tui.cli.stream_json import printed

                    if printed(event):
                        out.write(event_json(event) + "\n")
                        out.flush()
                    if isinstance(event, ev.WorkflowQuestions):
                        _answer(app, event, answers, err)
                case ev.WorkflowDelta(text=text, header=header):
                    out.write(f"\n── {header}\n" if header else text)
                    out.flush()
                case ev.WorkflowQuestions():
                    out.write(f"\n[designer's questions]\n{event.questions}\n")
                    _answer(app, event, answers, err)
                case ev.Notice(level=level, message=message) if level != "info":
                    print(f"milk-tui: {message}", file=err)

        app.add_listener(on_event)
        await app.mcp.wait_settled()
        try:
            if action == "dev":
                roles = {r: getattr(args, r) for r in ("designer", "generator", "evaluator")}
                task = wf.start(" ".join(args.task), roles)
            else:
                task = wf.resume(extend=args.extend)
        except WorkflowError as e:
            print(f"milk-tui: {e}", file=err)
            return EXIT_FAILED
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, app.cancel)
        try:
            result = await task
        finally:
            loop.remove_signal_handler(signal.SIGINT)
        if not stream:
            out.write("\n")
        if result.ok:
            print("workflow complete", file=err)
            return EXIT_OK
        if result.cancelled:
            print("milk-tui: interrupted (milk-tui workflow resume continues)", file=err)
            return EXIT_INTERRUPTED
        if result.exhausted_sprint:
            print(
                f"milk-tui: sprint {result.exhausted_sprint} used its {result.max_passes} "
                f"passes; `milk-tui workflow resume --extend` continues with "
                f"{2 * result.max_passes}",
                file=err,
            )
            return EXIT_EXHAUSTED
        print(f"milk-tui: workflow error: {result.error}", file=err)
        return EXIT_FAILED
    except WorkflowError as e:
        print(f"milk-tui: {e}", file=err)
        return EXIT_FAILED
    finally:
        await app.aclose()


def _answer(app: object, event: object, answers: str, err: TextIO) -> None:
    from milk_tui.facade.application import Application
    from milk_tui.model.workflow_events import WorkflowQuestions

    assert isinstance(app, Application) and isinstance(event, WorkflowQuestions)
    if not answers:
        print("milk-tui: the designer's questions were skipped (no --answers FILE)", file=err)
    app.workflow.answer_questions(event.request_id, answers)


def _status(state: object, out: TextIO, as_json: bool) -> int:
    from milk_tui.model.workflow import WorkflowState

    if not isinstance(state, WorkflowState):
        print("no workflow in this session", file=out)
        return EXIT_OK
    if as_json:
        out.write(state.to_json() + "\n")
        return EXIT_OK
    history = ", ".join(f"s{v.sprint}p{v.pass_} {v.verdict}" for v in state.verdict_history)
    print(
        f"workflow {state.workflow_id} ({state.name}): {state.task}\n"
        f"  {state.position()}  role: {state.role}"
        + ("  (out of passes)" if state.exhausted else "")
        + f"\n  agents: {json.dumps(state.agent_map)}\n  verdicts: {history or 'none yet'}\n"
        f"  cost ${state.cost_usd:.4f}  elapsed {state.elapsed_s:.0f}s  (cwd {os.getcwd()})",
        file=out,
    )
    return EXIT_OK
