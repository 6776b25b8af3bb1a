"""The multi-line prompt: Enter sends, Shift+Enter / Alt+Enter / Ctrl+J / Ctrl+N insert a
newline, Up/Down walk this session's history (Ctrl+Up/Down the global one) when the
cursor is on the first/last row, Tab/Shift+Tab complete and cycle (commands, their
words, names, ``@path``; ``tui/completion.py``), Ctrl+R searches history."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.binding import BindingType
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import Selection

from milk_tui.tui.keymap import INPUT_BINDINGS

if TYPE_CHECKING:
    from milk_tui.tui.completion import Names


class PromptInput(TextArea):
    DEFAULT_CSS = """
    PromptInput { height: auto; min-height: 3; max-height: 10; border: tall $panel-lighten-1; padding: 0 1; }
    PromptInput:focus { border: tall $primary; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [*INPUT_BINDINGS]

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class HistorySearch(Message):
        pass

    class PromptChanged(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, id: str | None = None) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            compact=True,
            highlight_cursor_line=False,
        )
        self.prompt_history: list[str] = []
        self.global_prompt_history: list[str] = []
        self._pos: int | None = None
        self._global_pos: int | None = None
        self._draft = ""
        self._cycle: _Cycle | None = None
        self.completion_names: Callable[[], Names] | None = None
        """The names Tab offers (agents, servers, the session folder); set by the screen."""
        self.paste_hook: Callable[[str], bool] | None = None
        """Sees each paste first; True: it took the paste (a file path, attached instead)."""
        self.placeholder = "Type a prompt · Enter sends · Shift+Enter newline · / for commands"

    # ----- actions -------------------------------------------------------------------------
    # Priority bindings run as soon as the App sees the key, while plain characters typed
    # just before it still wait in this widget's queue ("hello⏎" arriving in one read would
    # submit an empty prompt).  Each action therefore queues behind them with call_later.

    def action_submit(self) -> None:
        self.call_later(self._submit_now)

    def _submit_now(self) -> None:
        text = self.text
        if not text.strip():
            return
        self.post_message(self.Submitted(text))

    def action_eof(self) -> None:
        """Ctrl+D: on an empty prompt between turns it quits, as end of input does in a
        shell; otherwise it deletes to the right, the editing key it takes over."""
        self.call_later(self._eof_now)

    async def _eof_now(self) -> None:
        if self.text:
            self.action_delete_right()
            return
        facade = getattr(self.screen, "facade", None)
        if facade is not None and facade.busy:
            self.app.bell()  # an empty prompt is normal while a reply streams: never quit then
            return
        await self.app.run_action("quit")

    def action_newline(self) -> None:
        self.call_later(self.insert, "\n")

    def set_text(self, text: str) -> None:
        self.text = text
        self.move_cursor(self.document.end)

    def set_text_selected(self, text: str) -> None:
        """``text`` in the box, all of it selected: the next key typed replaces it."""
        self.text = text
        self.selection = Selection(self.document.start, self.document.end)

    def remember(self, text: str) -> None:
        for hist in (self.prompt_history, self.global_prompt_history):
            if not hist or hist[-1] != text:
                hist.append(text)
        self._pos = self._global_pos = None

    def action_history(self, step: int) -> None:
        self.call_later(self._history_now, step)

    def _history_now(self, step: int) -> None:
        row = self.cursor_location[0]
        last_row = self.document.line_count - 1
        if (step < 0 and row > 0) or (step > 0 and row < last_row):
            self.move_cursor_relative(rows=step)
            return
        self._walk(self.prompt_history, step, is_global=False)

    def action_global_history(self, step: int) -> None:
        self._walk(self.global_prompt_history, step, is_global=True)

    def _walk(self, hist: list[str], step: int, *, is_global: bool) -> None:
        pos = self._global_pos if is_global else self._pos
        if not hist:
            return
        if pos is None:
            if step > 0:
                return
            self._draft = self.text
            pos = len(hist)
        pos += step
        if pos >= len(hist):
            new_pos, text = None, self._draft
        else:
            new_pos, text = max(pos, 0), hist[max(pos, 0)]
        if is_global:
            self._global_pos = new_pos
        else:
            self._pos = new_pos
        self.set_text(text)

    def action_history_search(self) -> None:
        self.post_message(self.HistorySearch())

    def action_complete(self, step: int = 1) -> None:
        self.call_later(self._complete_now, step)

    def _complete_now(self, step: int) -> None:
        """Tab: complete the word at the cursor; with several matches, first to their common
        prefix, then one match per Tab (Shift+Tab goes back), as a shell does."""
        from milk_tui.tui.completion import Names, common_prefix, complete  # after_frame.py

        row, col = self.cursor_location
        before = self.document.get_line(row)[:col]
        cycle = self._cycle
        if cycle is not None and cycle.text == self.text and cycle.at == (row, col):
            cycle.index = (cycle.index + step) % len(cycle.options)
            self._put(cycle, cycle.options[cycle.index])
            return
        self._cycle = None
        names = self.completion_names() if self.completion_names else Names(Path.cwd())
        found = complete(before, names, first_line=row == 0)
        if found is None:
            if step > 0:
                self.app.action_focus_next()
            else:
                self.app.action_focus_previous()
            return
        if not found.options:
            self.app.bell()
            return
        word = before[found.start :]
        state = _Cycle(row, found.start, col, found.options)
        if len(found.options) == 1:
            self._put(state, found.options[0])
            return
        shared = common_prefix(found.options)
        if len(shared) > len(word):
            self._put(state, shared)  # the next Tab starts the cycle from here
            state.index = -1 if step > 0 else 0
        else:
            state.index = 0 if step > 0 else len(found.options) - 1
            self._put(state, found.options[state.index])
        self._cycle = state

    def _put(self, cycle: _Cycle, word: str) -> None:
        """Replace the word being completed by ``word``, the cursor after it."""
        start, end = (cycle.row, cycle.start), (cycle.row, cycle.end)
        result = self.replace(word, start, end, maintain_selection_offset=False)
        cycle.end = cycle.start + len(word)
        self.move_cursor(result.end_location)
        cycle.text, cycle.at = self.text, self.cursor_location

    async def _on_paste(self, event: events.Paste) -> None:
        # Runs before TextArea's own paste handler; stopping the default keeps the text out.
        if self.paste_hook is not None and self.paste_hook(event.text):
            event.prevent_default()

    def _on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.post_message(self.PromptChanged(self.text))


@dataclass
class _Cycle:
    """The matches of the last Tab, valid while the box is as that Tab left it."""

    row: int
    start: int
    end: int
    options: list[str]
    index: int = 0
    text: str = ""
    at: tuple[int, int] = (0, 0)
