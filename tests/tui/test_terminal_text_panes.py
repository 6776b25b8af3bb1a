"""Every pane shows untrusted text inert: the live events (through the bus and the bridge,
as the dispatcher publishes them), the session read from the store, the facts pane and
browser, the edit and permission modals, the sessions screen and notices.

``painted`` reads the strips each widget hands to the compositor — exactly what Textual
writes to the terminal — so a raw control or a markup action there is a real injection.
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import TextArea

from milk_tui.model import events as ev
from milk_tui.tui.facts.edit_modal import FactEditModal
from milk_tui.tui.screens.permission_modal import PermissionModal
from milk_tui.tui.sessions_screen import SessionsScreen
from tui.conftest import make_app, settle, until

OSC52 = "\x1b]52;c;cGFuZS1jbGlw\x07"
TITLE = "\x1b]2;PANE-TITLE\x1b\\"
MARKUP = "[@click=app.quit]Q[/] [bold red]R[/]"
P = f"{OSC52}{TITLE}\x1b[2J\x9b1m{MARKUP}"
"""One payload for every field: clipboard, title (ST-terminated), clear, C1 CSI, markup."""
SHOWN = "␛]52;c;cGFuZS1jbGlw␇␛]2;PANE-TITLE␛\\␛[2J⟨CSI⟩1m"


def painted(screen: Screen[Any]) -> str:
    """The text of every strip every visible widget on ``screen`` renders."""
    rows = []
    for w in [screen, *screen.walk_children()]:
        if w.display and w.size.area:
            for strip in w.render_lines(Region(0, 0, w.size.width, w.size.height)):
                rows.append("".join(seg.text for seg in strip))
    return "\n".join(rows)


def assert_no_control(text: str) -> None:
    bad = [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0]
    assert not bad, bad


def flat(text: str) -> str:
    """Without any whitespace: a narrow pane wraps the payload at its spaces."""
    return "".join(text.split())


def has(shown: str, *parts: str) -> bool:
    return flat("".join(parts)) in flat(shown)


async def test_live_events_and_the_loaded_session_render_inert() -> None:
    app = make_app()
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot, app)
        app.facade.facts.remember("fact " + P, scope="global")
        bus = app.runtime.bus
        for e in (
            ev.TurnStarted(prompt="prompt " + P),
            ev.RouteDecided(target="escalation", agent_name="big", reason="why " + P),
            ev.EscalationStarted(agent_name="big", mode="first", brief="brief " + P),
            *(ev.TextDelta(slot="escalation", text=P[i : i + 3]) for i in range(0, len(P), 3)),
            ev.ToolCall(slot="escalation", call_id="c1", name="tool" + P, arguments=P),
            ev.ToolResult(slot="escalation", call_id="c1", content=P),
            ev.NeedChanged(need="need " + P, set_at=1, producer="big"),
            ev.Notice(level="warning", message="notice " + P),
            ev.StoreChanged(),
        ):
            bus.publish(e)
        await settle(pilot, app)
        wanted = [
            *(flat(where + SHOWN) for where in ("prompt ", "need ", "notice ", "brief: brief ")),
            flat("why: why " + SHOWN),
            flat("fact ␛]52;c;cGFu"),  # the facts pane cuts it to its width
            flat("[@click=app.quit]Q[/]"),
        ]
        await until(pilot, lambda: all(w in flat(painted(app.screen)) for w in wanted))
        shown = painted(app.screen)
        assert_no_control(shown)
        for w in wanted:
            assert w in flat(shown), w
        bus.publish(ev.TurnFailed(agent_name="big", error="server said " + P))
        await settle(pilot, app)
        await until(pilot, lambda: has(painted(app.screen), "server said ", SHOWN))
        assert has(painted(app.screen), "server said ", SHOWN)

        # The session as read from the store (resume, switch): header, panes, transcript.
        await app.facade.new_session("name " + P)
        app.main_screen.load_session(app.facade.session_view())
        await pilot.pause()
        shown = painted(app.screen)
        assert_no_control(shown)
        assert has(shown, "name ␛]52")


async def test_modals_screens_and_notices_render_inert() -> None:
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot, app)
        app.runtime.bus.publish(
            ev.PermissionRequested(
                request_id="r1",
                agent_name="big",
                tool_name="write" + MARKUP,
                tool_input={"path": "/tmp/" + P, "content": P},
                preview=f"--- a\n+++ b\n+{P}\n",
                outside_paths=("/tmp/" + P,),
            )
        )
        await settle(pilot, app)
        assert isinstance(app.screen, PermissionModal)
        shown = painted(app.screen)
        assert_no_control(shown)
        assert has(shown, f"big wants to use write{MARKUP}")
        assert has(shown, "+", SHOWN)
        app.screen.dismiss(None)
        await pilot.pause()

        p = app.facade.facts.remember("edit me " + P, scope="global")
        assert p is not None
        app.notify("notice " + P)
        edit = FactEditModal(p, session_id=app.facade.session_id)
        await app.push_screen(edit)
        await pilot.pause()
        assert edit.query_one("#content", TextArea).text == "edit me " + SHOWN + MARKUP
        shown = painted(app.screen) + painted(app.screen_stack[0])
        assert_no_control(shown)
        edit.action_submit()  # unchanged: the stored fact keeps its exact text
        await pilot.pause()
        assert app.facade.facts.get(p.id).content == "edit me " + P  # type: ignore[union-attr]
        toasts = [painted(app.screen)]
        await app.facade.new_session("named " + P)
        sessions = SessionsScreen(app.facade.sessions, cwd=app.facade.cwd)
        await app.push_screen(sessions)
        await pilot.pause()
        for _ in range(50):
            if sessions.sessions:
                break
            await pilot.pause(0.02)
        await pilot.pause()
        shown = painted(app.screen)
        assert_no_control(shown + "".join(toasts))
        assert has(shown, "named ␛]52")
