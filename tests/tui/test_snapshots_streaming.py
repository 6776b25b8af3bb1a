"""Snapshots of a reply while it streams: closed blocks final, the open block formatted."""

from __future__ import annotations

from tui.snapshot_base import SnapshotCase, ev, publish
from tui.test_snapshots import turn_started

HEADING_LIST_TABLE_OPEN_FENCE = [
    "## Plan\n\nThree steps, **in order**:\n\n",
    "1. parse the *closed* blocks\n2. render each ",
    "once\n3. re-render the open one\n\n",
    "| step | cost |\n|------|------|\n| parse | O(new lines) |\n",
    "| render | O(open block) |\n\nThe loop:\n\n",
    "```python\nfor chunk in stream:\n    view.append(chunk)",
    "\n    if view.closed:\n        paint(",
]

OPEN_TABLE_AND_LIST = [
    "# Results\n\n- **fast**: 5,000 chunks/s\n- keys wait ",
    "under 15 ms\n\n| app | first token |\n|---|---|\n| milk | 0.1 s |\n| minimal",
]


class TestStreamingMarkdown(SnapshotCase):
    def test_reply_mid_stream_heading_list_table_open_fence(self) -> None:
        deltas = [ev.TextDelta(slot="primary", text=t) for t in HEADING_LIST_TABLE_OPEN_FENCE]
        assert self.shot(publish(*turn_started("how does the stream view work?"), *deltas))

    def test_reply_mid_stream_open_table(self) -> None:
        deltas = [ev.TextDelta(slot="primary", text=t) for t in OPEN_TABLE_AND_LIST]
        assert self.shot(publish(*turn_started("how fast is it?"), *deltas))
