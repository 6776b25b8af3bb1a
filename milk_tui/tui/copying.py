"""Copying from the conversation: what the mouse selected (Ctrl+C between turns), a whole
reply (Alt+C) or a code block of one (Alt+K); pressed again, each key copies the one before.

The text goes to the terminal's clipboard as OSC 52 (``App.copy_to_clipboard``: tmux with
``set-clipboard on``, most terminals, over ssh too) and, where a desktop session has one, to
the system clipboard through its tool (``wl-copy``, ``xclip``, ``xsel``, ``pbcopy``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from textual.selection import Selection

from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.reply_block import ReplyBlock

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

What = Literal["reply", "code"]
TOOL_TIMEOUT_S = 5.0
"""A clipboard tool that hangs (no display answering) is given up on; OSC 52 went already."""


def clipboard_command(env: Mapping[str, str], platform: str = sys.platform) -> list[str] | None:
    """The system clipboard's writer here, or None (then OSC 52 alone carries the text)."""
    if platform == "darwin" and (tool := shutil.which("pbcopy")):
        return [tool]
    if env.get("WAYLAND_DISPLAY") and (tool := shutil.which("wl-copy")):
        return [tool]
    if env.get("DISPLAY"):
        if tool := shutil.which("xclip"):
            return [tool, "-selection", "clipboard"]
        if tool := shutil.which("xsel"):
            return [tool, "--clipboard", "--input"]
    return None


def to_clipboard(app: App[object], text: str) -> None:
    app.copy_to_clipboard(text)
    command = clipboard_command(os.environ)
    if command is not None:  # a thread: the tool may take a moment to hand the text over
        app.run_worker(
            lambda: _write(command, text), thread=True, group="clipboard", exit_on_error=False
        )


def _write(command: list[str], text: str) -> None:
    try:
        subprocess.run(
            command,
            input=text.encode(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=TOOL_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        pass  # OSC 52 carried it; a broken desktop tool is no reason to bother the user


def code_blocks(markdown: str) -> list[str]:
    """The code blocks of a reply, fenced or indented, as their source text."""
    from markdown_it import MarkdownIt  # Textual's own Markdown parser, loaded when used

    tokens = MarkdownIt("commonmark").parse(markdown)
    return [t.content for t in tokens if t.type in ("fence", "code_block") and t.content.strip()]


def reply_texts(conv: Conversation) -> list[str]:
    """Every reply of the transcript, the one streaming now with what arrived so far."""
    texts = [it.text for it in conv.items if it.kind == "reply"]
    live = [b.text for b in conv.query(ReplyBlock) if not b.done and b.text]
    if live and texts and not texts[-1]:
        texts[-1] = live[-1]
    return [t for t in texts if t.strip()]


class Copier:
    """The main screen's copy keys.  Alt+C/Alt+K walk back one reply/code block per press
    while nothing new arrived and nothing was typed (``reset``)."""

    def __init__(self, screen: Screen[None]) -> None:
        self.screen = screen
        self._last: tuple[What, int, int] | None = None
        """(what, how many there were, index copied)."""

    def reset(self) -> None:
        self._last = None

    def copy_selection(self) -> bool:
        """Ctrl+C with text selected (by the mouse, or a reply Alt+C marked): copy it."""
        text = self.screen.get_selected_text()
        if not text:
            return False
        to_clipboard(self.screen.app, text)
        self.screen.clear_selection()
        self.screen.notify(f"copied the selection ({_size(text)})", timeout=2)
        return True

    def copy(self, what: What) -> None:
        conv = self.screen.query_one(Conversation)
        replies = reply_texts(conv)
        pool = replies if what == "reply" else [c for r in replies for c in code_blocks(r)]
        if not pool:
            self.screen.notify(f"no {'reply' if what == 'reply' else 'code block'} to copy yet")
            return
        last = self._last
        if last is not None and last[:2] == (what, len(pool)):
            index = (last[2] - 1) % len(pool)
        else:
            index = len(pool) - 1
        self._last = (what, len(pool), index)
        text = pool[index]
        to_clipboard(self.screen.app, text)
        key = "Alt+C" if what == "reply" else "Alt+K"
        older = f" — {key} again: the one before" if len(pool) > 1 else ""
        label = "reply" if what == "reply" else "code block"
        self.screen.notify(
            f"copied {label} {index + 1} of {len(pool)} ({_size(text)}){older}", timeout=3
        )
        if what == "reply":
            self._mark(conv, text)

    def _mark(self, conv: Conversation, text: str) -> None:
        """Select the copied reply on screen (Ctrl+C copies it again, Escape clears it)."""
        for block in reversed(list(conv.query(ReplyBlock))):
            if block.text == text and block.display:
                self.screen.selections = {block: Selection(None, None)}
                conv.scroll_to_widget(block, animate=False, top=True)
                return


def _size(text: str) -> str:
    lines = text.rstrip("\n").count("\n") + 1
    return f"{lines} line{'s' if lines != 1 else ''}, {len(text)} characters"
