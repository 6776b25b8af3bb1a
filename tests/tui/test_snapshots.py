"""Snapshots of the main screen on the demo agents (SVGs in snapshots/tui/test_snapshots/).

Update with ``pytest tests/tui/test_snapshots*.py --snapshot-update`` and LOOK at the SVGs;
the rules that keep them stable are in ``snapshot_base.py``.
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from milk_tui.tui.widgets.tool_line import ToolLine
from tui.snapshot_base import SMALL, SnapshotCase, ev, press, publish, send

MID_STREAM = [
    "Render **finished** blocks once.\n\n",
    "- keep the open block ",
    "cheap\n",
    "- coalesce frames\n\n",
    "```python\nstream.write(",
    "chunk)\n```\n\n",
    "Only the tail block is still chang",
]

TOOL_CALLS = [
    ev.ToolCall(
        slot="primary",
        call_id="c1",
        name="read_file",
        arguments='{"path": "milk_tui/model/tags.py"}',
    ),
    ev.ToolResult(slot="primary", call_id="c1", name="read_file", content="x" * 2048),
    ev.ToolCall(
        slot="primary",
        call_id="c2",
        name="run_tests",
        arguments='{"paths": ["tests/model"], "quiet": true, "timeout": 120}',
    ),
    ev.ToolResult(
        slot="primary",
        call_id="c2",
        name="run_tests",
        content="exit status 1",
        is_error=True,
    ),
    ev.ToolCall(
        slot="primary", call_id="c3", name="grep", arguments='{"pattern": "TagInterceptor"}'
    ),
]


def turn_started(
    prompt: str, target: str = "primary", agent: str = "demo-local", **route: str
) -> tuple[ev.BusEvent, ...]:
    """The events that open a turn, as the dispatcher publishes them."""
    return (
        ev.TurnStarted(prompt=prompt, turn_index=1),
        ev.RouteDecided(
            target=target, agent_name=agent, reason="short question", rule="short_prompt", **route
        ),
        ev.StateChanged(state="LOCAL" if target == "primary" else "ESCALATION", previous="ROUTING"),
    )


class TestWelcome(SnapshotCase):
    def test_welcome(self) -> None:
        assert self.shot()

    def test_welcome_80x24(self) -> None:
        assert self.shot(size=SMALL)

    def test_welcome_light(self) -> None:
        assert self.shot(theme="milk-light")


class TestReplies(SnapshotCase):
    def test_reply_mid_stream(self) -> None:
        deltas = [ev.TextDelta(slot="primary", text=t) for t in MID_STREAM]
        assert self.shot(publish(*turn_started("how do I stream markdown efficiently?"), *deltas))

    def test_turn_80x24(self) -> None:
        assert self.shot(send("what is a monad?"), size=SMALL)

    def test_two_turns_with_a_fact(self) -> None:
        assert self.shot(send("remember that I prefer tabs", "what is a monad?"))

    def test_thinking_hidden(self) -> None:
        assert self.shot(send("/escalate explain the tag grammar"))

    def test_thinking_shown(self) -> None:
        assert self.shot(send("/escalate explain the tag grammar"), show_thinking=True)

    def test_thinking_mid_stream(self) -> None:
        thinking = ev.ThinkingDelta(slot="escalation", text="The user wants the grammar; start")
        started = turn_started("explain the tag grammar", "escalation", "demo-claude")
        assert self.shot(publish(*started, thinking), show_thinking=True)

    def test_tool_lines(self) -> None:
        assert self.shot(publish(*turn_started("why do the tag tests fail?"), *TOOL_CALLS))

    def test_tool_line_expanded(self) -> None:
        async def open_second(pilot: Pilot[Any]) -> None:
            await pilot.click(pilot.app.screen.query(ToolLine)[1])

        tools = publish(*turn_started("why do the tag tests fail?"), *TOOL_CALLS)
        assert self.shot(tools, open_second)


class TestHandOff(SnapshotCase):
    def test_first_handoff(self) -> None:
        assert self.shot(send("/escalate fix the flaky test"))

    def test_self_escalation_by_the_primary(self) -> None:
        assert self.shot(send("the parser is hard"))

    def there_and_back(self, back: str, again: str) -> bool:
        """Escalate "fix the flaky test", ask the primary ``back``, escalate ``again``; the
        taller screen keeps both hand-offs in the escalation pane."""
        prompts = ("/escalate fix the flaky test", f"/primary {back}", f"/escalate {again}")
        return self.shot(send(*prompts), size=(130, 48))

    def test_returning_handoff(self) -> None:
        """Same need, one turn away: the escalation agent resumes its own session."""
        assert self.there_and_back("fix the flaky test", "fix the flaky test")

    def test_handoff_downgraded_to_fresh_start(self) -> None:
        """Back to the primary on a new goal, then escalate: the need changed, so fresh."""
        assert self.there_and_back("what is a monad?", "now the parser, it is hard")

    def test_escalation_waiting_for_an_answer(self) -> None:
        assert self.shot(send("/escalate plan the migration"))


class TestNeed(SnapshotCase):
    def test_stale_need_label(self) -> None:
        assert self.shot(send("the parser is hard"))

    def test_need_history(self) -> None:
        assert self.shot(send("what is a monad?", "fix the build", "what is a functor?"))

    def test_need_command(self) -> None:
        assert self.shot(send("what is a monad?", "fix the build", "/need"))


ROLLED_BACK = ev.StateChanged(state="ROUTING", previous="LOCAL")
"""A failed or cancelled turn restores the session first, state included."""


class TestErrors(SnapshotCase):
    def test_turn_failed_inline(self) -> None:
        failed = ev.TurnFailed(
            slot="primary",
            agent_name="demo-local",
            prompt="what is a monad?",
            error="connection refused: http://127.0.0.1:8080/v1/chat/completions",
        )
        partial = ev.TextDelta(slot="primary", text="A monad is a")
        assert self.shot(publish(*turn_started("what is a monad?"), partial, ROLLED_BACK, failed))

    def test_interrupted_turn(self) -> None:
        cancelled = ev.TurnFailed(
            slot="primary",
            agent_name="demo-local",
            error="cancelled",
            cancelled=True,
            prompt="what is a monad?",
        )
        partial = ev.TextDelta(slot="primary", text="A monad is")
        assert self.shot(
            publish(*turn_started("what is a monad?"), partial, ROLLED_BACK, cancelled)
        )

    def test_notices(self) -> None:
        assert self.shot(
            publish(
                ev.Notice(level="info", message="consolidated 3 facts"),
                ev.Notice(level="warning", message="escalation agent unavailable; using primary"),
                ev.Notice(level="error", message="memory: database is locked"),
            )
        )

    def test_unknown_command_and_bad_argument(self) -> None:
        assert self.shot(send("/frobnicate", "/forget 999", "/think sideways"))


class TestStatusLine(SnapshotCase):
    def test_busy_with_a_tool(self) -> None:
        call = ev.ToolCall(
            slot="escalation", call_id="c1", name="Bash", arguments='{"command": "pytest -q"}'
        )
        usage = ev.Usage(
            role="primary", model="demo-small", prompt_tokens=1234, completion_tokens=56
        )
        started = turn_started("run the tests", "escalation", "demo-claude", label="pinned")
        assert self.shot(publish(usage, *started, call))

    def test_quit_hint(self) -> None:
        assert self.shot(press("ctrl+c"))

    def test_slash_completion_hint(self) -> None:
        assert self.shot(press("slash", "e"))

    def test_light_theme(self) -> None:
        assert self.shot(send("the parser is hard"), theme="milk-light")


LOOPING = "The answer is in the parser module. "


class TestActions(SnapshotCase):
    """What the primary does when it acts: running tools, edits, a reply cut short."""

    def test_running_tool_line(self) -> None:
        call = ev.ToolCall(
            slot="primary", call_id="b1", name="bash", arguments='{"command": "pytest -q"}'
        )
        assert self.shot(publish(*turn_started("run the tests"), call))

    def test_edit_tool_line_shows_its_diff(self) -> None:
        args = (
            '{"path": "milk_tui/model/tags.py", "old_string": "def strip(text):\\n'
            '    return text\\n", "new_string": "def strip(text: str) -> str:\\n'
            '    return text.strip()\\n"}'
        )
        edit = ev.ToolCall(slot="primary", call_id="e1", name="edit_file", arguments=args)
        done = ev.ToolResult(slot="primary", call_id="e1", name="edit_file", content="edited")

        async def expand(pilot: Pilot[Any]) -> None:
            await pilot.click(pilot.app.screen.query(ToolLine)[0])

        assert self.shot(publish(*turn_started("type the strip helper"), edit, done), expand)

    def test_reply_cut_for_repeating(self) -> None:
        kept = "Let me look.\n\n" + LOOPING
        cut = (
            ev.TextDelta(slot="primary", text="Let me look.\n\n" + LOOPING * 6),
            ev.ReplyCut(slot="primary", kept=kept, passage=LOOPING.strip()),
            ev.Notice(
                level="warning",
                message=f'stopped: the reply kept repeating "{LOOPING.strip()}"',
            ),
            ev.TurnCompleted(slot="primary", agent_name="demo-local", text=kept),
        )
        assert self.shot(publish(*turn_started("where is the bug?"), *cut))

    def test_denied_tool_call(self) -> None:
        hosts = '{"path": "/etc/hosts", "content": "127.0.0.1 example"}'
        call = ev.ToolCall(slot="primary", call_id="w1", name="write_file", arguments=hosts)
        no = ev.PermissionDecided(
            agent_name="demo-local",
            tool_name="write_file",
            allowed=False,
            how="user",
            reason="the user said no: not outside the project",
        )
        result = ev.ToolResult(
            slot="primary",
            call_id="w1",
            name="write_file",
            content="permission denied: the user said no: not outside the project",
            is_error=True,
        )
        assert self.shot(publish(*turn_started("fix my hosts file"), call, no, result))
