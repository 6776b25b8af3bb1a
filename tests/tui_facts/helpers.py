"""Typing helpers for Pilot tests (waits are milk_tui/testing/waits.py's ``until``)."""

from __future__ import annotations

from textual.pilot import Pilot

KEY_NAMES = {" ": "space", ":": "colon", "/": "slash", ".": "full_stop", "#": "number_sign",
             "-": "minus", '"': "quotation_mark"}  # fmt: skip


async def type_text(pilot: Pilot, text: str) -> None:
    await pilot.press(*[KEY_NAMES.get(c, c) for c in text])
