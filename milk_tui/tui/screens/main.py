"""The main screen: conversation, side panes (need, escalation, facts), the workflow pane,
input, status.

It renders what the bridge delivers and turns user input into application commands; the
slash commands live in ``tui/slash/``, the Enter path in ``screens/prompt_submit.py`` and an
agent's mid-turn requests in ``screens/agent_requests.py``.
"""

from __future__ import annotations

import functools
import time
from typing import TYPE_CHECKING, ClassVar, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Static

from milk_tui.facade.errors import StorageError
from milk_tui.model import events as ev
from milk_tui.model.terminal_text import inert_copy
from milk_tui.tui.after_frame import screen_names
from milk_tui.tui.copying import Copier, What
from milk_tui.tui.keymap import APP_BINDINGS, BEFORE_READY
from milk_tui.tui.screens import agent_requests
from milk_tui.tui.screens.prompt_submit import PromptSubmitter
from milk_tui.tui.screens.startup import TAIL_TURNS
from milk_tui.tui.transcript import items_from_history, screenful
from milk_tui.tui.widgets import welcome
from milk_tui.tui.widgets.app_header import AppHeader
from milk_tui.tui.widgets.attachment_chips import StagedAttachments
from milk_tui.tui.widgets.conversation import WINDOW, Conversation
from milk_tui.tui.widgets.escalation_pane import EscalationPane
from milk_tui.tui.widgets.facts_pane import FactsPane
from milk_tui.tui.widgets.key_hints import KeyHints
from milk_tui.tui.widgets.need_pane import NeedPane
from milk_tui.tui.widgets.older_turns import OlderTurns
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.status_line import StatusLine
from milk_tui.tui.widgets.tasks_pane import TasksPane, cycle_side, restore_side, reveal_facts
from milk_tui.tui.widgets.workflow_pane import WorkflowPane

if TYPE_CHECKING:
    from milk_tui.facade.application import Application, Force
    from milk_tui.facade.opening import StartView
    from milk_tui.facade.views import StartupInfo
    from milk_tui.tui.app import MilkApp
    from milk_tui.tui.facts.browser import FactBrowser
    from milk_tui.tui.screens.workflow_flow import WorkflowWatch
    from milk_tui.tui.slash.handler import SlashHandler

NARROW_COLUMNS = 100
"""Below this width the side panes collapse (80×24 must stay usable)."""
SHORT_ROWS = 32
"""Below this height the need and escalation panes are capped lower, so that the facts pane
keeps its rows and every pane its border."""
QUIT_AGAIN_S = 3.0
"""Second Ctrl+C within this window quits."""
EXTERNAL_CHECK_S = 2.0
"""How often to look for other processes' writes (also on focus); a cheap pragma read."""


class MainScreen(Screen[None]):
    CSS_PATH = "main.tcss"
    BINDINGS: ClassVar[list[BindingType]] = list(APP_BINDINGS)
    AUTO_FOCUS = "#prompt"

    def __init__(self) -> None:
        super().__init__()
        self._last_ctrl_c = 0.0
        self._transcript_generation = 0
        self._notes_said = 0
        self._painted_notes: tuple[str, ...] = ()
        self.submitter = PromptSubmitter(self)
        self.copier = Copier(self)
        self.typed_ahead: tuple[str, bool] = ("", False)
        """Typed on the startup screen (``screens/startup.py``): its text; Enter followed?"""

    @functools.cached_property
    def slash(self) -> SlashHandler:
        """The commands, loaded when the first one runs (with the modules they need)."""
        from milk_tui.tui.slash.handler import SlashHandler

        return SlashHandler(self)

    @functools.cached_property
    def workflow(self) -> WorkflowWatch:
        from milk_tui.tui.screens.workflow_flow import WorkflowWatch

        return WorkflowWatch(self)

    @property
    def milk(self) -> MilkApp:
        return cast("MilkApp", self.app)  # this screen is only ever installed by MilkApp

    @property
    def facade(self) -> Application:
        return self.milk.facade

    @property
    def view(self) -> StartView:
        """What the screen paints from: the opening until the application is installed."""
        assert self.milk.view is not None, "the main screen is shown after the opening"
        return self.milk.view

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.milk.application is not None or action in BEFORE_READY

    def compose(self) -> ComposeResult:
        a = self.view
        info = a.startup_info()
        yield AppHeader(id="header")
        with Horizontal(id="body"):
            yield Conversation(
                names={"primary": info.primary.name, "escalation": info.escalation.name},
                palette=self.milk.palette,
                show_thinking=self.milk.ui_state.show_thinking,
                id="conversation",
            )
            with Vertical(id="side"):
                yield NeedPane(id="need")
                yield EscalationPane(info.escalation.name, id="escalation")
                yield FactsPane(a.facts, a.session_id, clock=self.milk.fact_clock, id="facts")
                yield TasksPane(id="tasks")
            yield WorkflowPane(id="workflow")  # shown while the session has a workflow
        yield Static("", id="hint", markup=False)
        yield StagedAttachments(id="staged")
        yield PromptInput(id="prompt")
        yield StatusLine(id="status")
        yield KeyHints(id="keys")

    def on_mount(self) -> None:
        if not self.query(Conversation):
            return  # the app is closing while this screen composed (quit during start-up)
        restore_side(self, self.milk.ui_state)
        self.load_session(self.view.session_view())
        self._painted_notes = (info := self.view.startup_info()).notes
        self._notes_said = welcome.say_start_notes(self.query_one(Conversation), info, 0)
        self.query_one(PromptInput).completion_names = functools.partial(screen_names, self)
        text, entered = self.typed_ahead
        if text:
            self.query_one(PromptInput).set_text(text)
            if entered:
                self.call_after_refresh(self.run_input, text)
        if self.milk.application is not None:
            self.application_installed()

    def application_installed(self) -> None:
        """The application is installed (at once, or after the first frame): the panes name
        the agents it runs and its pin, the welcome says what it found, staged files show,
        pastes attach them, other processes' writes and config edits are looked for."""
        from milk_tui.tui.slash import attach, update
        from milk_tui.tui.slash.agents import CONFIG_WATCH_S, watch_config

        attach.install(self)
        self.milk.set_colorization(self.facade.agents.config.colorization)
        conv, info = self.query_one(Conversation), self.view.startup_info()
        conv.names.update(primary=info.primary.name, escalation=info.escalation.name)
        self.query_one(EscalationPane).renamed(info.escalation.name, info.escalation.missing)
        self.query_one(StatusLine).handle_bus_event(ev.RoutingPinned(pinned=self.facade.pinned))
        self._notes_said = welcome.say_start_notes(conv, info, self._notes_said)  # the 2nd half's
        self.set_interval(EXTERNAL_CHECK_S, self.check_external_changes)
        self.set_interval(CONFIG_WATCH_S, lambda: watch_config(self))
        agent_requests.ask_project_trust(self)  # before any escalation turn
        update.check_soon(self)
        self.query_one(TasksPane).read(self.facade.tasks.list, conv)
        self.workflow.session_opened()

    def check_external_changes(self) -> None:
        """Let the facade pick up other processes' writes (also on focus: maybe before)."""
        if self.milk.application is not None:
            look = self.facade.check_external_changes  # the function: a quit leaves none unawaited
            self.run_worker(look, group="external", exclusive=True)  # type: ignore[arg-type]  # WorkType wants Coroutine[None, None, ...]

    # ----- session ----------------------------------------------------------------------

    def load_session(self, view: ev.SessionChanged) -> None:
        """Show the live session (at start, /new, a switch): transcript, panes, header, history."""
        view = inert_copy(view)  # read from the store, not through the bridge
        conv = self.query_one(Conversation)
        # Painted from its tail: a long session's older turns stay in the store and become
        # transcript items a page at a time when scrolling reaches them (widgets/older_turns.py).
        history, start = self.view.history(), self.view.history_start()
        tail = max(0, len(history) - TAIL_TURNS)
        items = items_from_history(history[tail:], first=start + tail + 1)
        older = OlderTurns(start + tail, lambda stop, count: self.view.older_turns(stop, count))
        # The first frame mounts (and renders the Markdown of) only what fills the screen;
        # the rest of the window is mounted above it once that frame is out.
        size = self.app.size
        window = screenful(items, size.width, size.height, WINDOW)
        greeting = welcome.Welcome(welcome.welcome_for(self.view.startup_info()))
        conv.load(items, welcome=greeting, window=window, older=older)
        self.call_after_refresh(conv.load_older, WINDOW - window)
        self._transcript_generation += 1
        need, esc = self.query_one(NeedPane), self.query_one(EscalationPane)
        for pane in (self.query_one(StatusLine), need, esc, self.query_one(FactsPane)):
            pane.handle_bus_event(view)
        self._show_header(view)
        if self.milk.application is not None:
            self.workflow.session_opened()
        prompt = self.query_one(PromptInput)
        try:
            prompt.prompt_history, prompt.global_prompt_history = self.view.input_history()
        except StorageError as e:
            conv.add_line("warning", f"input history unavailable: {e}")

    def _show_header(self, view: ev.SessionChanged) -> None:
        self.query_one(AppHeader).show(view.name, view.session_id, view.cwd, view.exchanges)

    # ----- bus events (delivered by the bridge, already coalesced) -----------------------

    def handle_bus_events(self, batch: list[ev.BusEvent]) -> None:
        conv, facts = self.query_one(Conversation), self.query_one(FactsPane)
        panes = (conv, self.query_one(StatusLine), self.query_one(NeedPane),
                 self.query_one(EscalationPane), facts)  # fmt: skip
        for e in batch:
            if isinstance(e, ev.TextDelta | ev.ThinkingDelta):  # the hot path: only text grows
                conv.handle_bus_event(e)
                continue
            for pane in panes:
                pane.handle_bus_event(e)
            self.workflow.handle(e)
            match e:
                case ev.TasksChanged(tasks=tasks):
                    self.query_one(TasksPane).show(tasks)
                case ev.PermissionRequested():
                    agent_requests.ask_permission(self, e)
                case ev.PermissionDecided(answered_from=elsewhere) if elsewhere:
                    agent_requests.answered_elsewhere(self, e)
                case ev.QuestionAsked():
                    agent_requests.ask_question(self, e)
                case ev.PermissionsDenied():
                    agent_requests.show_denials(self, e)
                case ev.TurnFailed(prompt=prompt):
                    self.submitter.turn_failed(prompt)
                case ev.SessionChanged():
                    self._show_header(e)
                case ev.StoreChanged(session_reloaded=reloaded):
                    facts.browser.schedule_refresh()  # and the tasks another process changed:
                    self.query_one(TasksPane).read(self.facade.tasks.list, conv)
                    if reloaded and not self.facade.busy:  # never redraw over a running turn
                        self.load_session(self.facade.session_view())

    def on_fact_browser_jump_to_turn(self, event: FactBrowser.JumpToTurn) -> None:
        """A fact's "go to turn" (from the facts pane or, via the app, the facts screen)."""
        event.stop()
        conv = self.query_one(Conversation)
        if event.session_id and event.session_id != self.facade.session_id:
            conv.add_line(
                "notice",
                f"fact #{event.percept_id} came from session {event.session_id[:8]} "
                "— F7 to switch to it",
            )
        elif not conv.show_turn(event.turn_index):
            conv.add_line("notice", f"turn {event.turn_index} is not in this transcript")

    def action_grant_retry(self) -> None:
        self.submitter.grant_retry()

    # ----- input ------------------------------------------------------------------------

    @on(PromptInput.Submitted)
    async def _submitted(self, event: PromptInput.Submitted) -> None:
        await self.run_input(event.text)

    async def run_input(self, text: str) -> None:
        await self.submitter.run_input(text)

    def submit_prompt(self, text: str, force: Force | None = None) -> bool:
        return self.submitter.submit_prompt(text, force)

    @on(PromptInput.PromptChanged)
    def _input_changed(self, event: PromptInput.PromptChanged) -> None:
        from milk_tui.tui.completion import command_hint, hint_rows  # tui/after_frame.py

        hint = self.query_one("#hint", Static)
        # The screen's width, not the hint's: hidden, the hint has none yet (padding 0 2).
        text = command_hint(event.text, hint_rows(self.size.height), self.size.width - 4)
        self.copier.reset()
        if text is None:
            self.hide_hint()
        else:
            hint.update(text)
            hint.add_class("-shown")

    def hide_hint(self) -> None:
        self.query_one("#hint", Static).remove_class("-shown")

    def on_prompt_input_history_search(self) -> None:  # Ctrl+R in the prompt
        self.action_history_search()

    # ----- layout -----------------------------------------------------------------------

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW_COLUMNS, "-narrow")
        self.set_class(event.size.height < SHORT_ROWS, "-short")

    # ----- actions (bound in keymap.APP_BINDINGS, also in the palette) -------------------

    def action_interrupt(self) -> None:
        a = self.milk.application
        status = self.query_one(StatusLine)
        if a is not None and a.busy:
            a.cancel()
            status.set_hint("")
            return
        # Not started yet (agents being built): dropped; between turns: selected text copied.
        if self.submitter.cancel_pending() or self.copier.copy_selection():
            return
        box = self.query_one(PromptInput)
        if box.text:
            box.set_text("")
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_AGAIN_S:
            self.app.call_later(self.milk.action_quit)
            return
        self._last_ctrl_c = now
        status.set_hint("press ctrl+c again to exit")
        self.set_timer(QUIT_AGAIN_S, lambda: status.set_hint(""))

    def action_quit(self) -> None:
        self.app.call_later(self.milk.action_quit)

    def action_help(self) -> None:
        from milk_tui.tui.screens.help_modal import HelpModal  # modals load when first opened

        self.app.push_screen(HelpModal(self.view.keymap))

    def action_toggle_side(self) -> None:  # F2: the panes, the tasks pane, nothing
        cycle_side(self, self.milk.ui_state)

    def action_toggle_thinking(self) -> None:
        self.set_thinking(not self.milk.ui_state.show_thinking)

    def set_thinking(self, show: bool) -> None:
        self.milk.ui_state.show_thinking = show
        self.milk.ui_state.save()
        self.query_one(Conversation).set_show_thinking(show)
        self.notify(f"thinking {'shown' if show else 'hidden'}", timeout=1.5)

    def start_corrected(self, info: StartupInfo) -> None:
        """Painted from a start card the config did not match (facade/start_card.py)."""
        conv = self.query_one(Conversation)  # its agents: ``application_installed``
        self._notes_said = welcome.say_start_notes(conv, info, 0, self._painted_notes)

    def action_show_context(self) -> None:
        from milk_tui.tui.screens.context_modal import ContextModal

        esc = self.query_one(EscalationPane)
        self.app.push_screen(ContextModal(esc.last_context, esc.agent_name))

    async def action_memory(self) -> None:
        await self.slash.open_memory()

    async def action_sessions(self) -> None:
        await self.slash.open_sessions()

    def action_cycle_theme(self) -> None:
        self.milk.cycle_theme()

    def action_focus_input(self) -> None:
        self.clear_selection()
        self.query_one(PromptInput).focus()

    def action_copy(self, what: What) -> None:
        self.copier.copy(what)

    def action_focus_facts(self) -> None:
        """F3: into the facts pane's search box (Enter or Tab then moves to its table),
        showing the side panes first if they are collapsed."""
        reveal_facts(self, self.milk.ui_state)
        self.call_after_refresh(self.query_one(FactsPane).browser.focus_search)

    def action_scroll_conversation(self, pages: int) -> None:
        conv = self.query_one(Conversation)
        (conv.scroll_page_up if pages < 0 else conv.scroll_page_down)()

    def action_conversation_top(self) -> None:
        """Home: the first turn, every older turn laid out first."""
        conv = self.query_one(Conversation)
        while conv.load_older(1000):
            pass
        conv.scroll_home(animate=False)

    def action_conversation_bottom(self) -> None:
        self.query_one(Conversation).resume_follow()

    def action_history_search(self) -> None:
        from milk_tui.tui.screens.history_search import search_history

        search_history(self.query_one(PromptInput))

    async def action_slash(self, text: str) -> None:
        await self.run_input(text)
