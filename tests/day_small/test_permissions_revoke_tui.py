"""``/permissions revoke`` in the TUI says what it revoked, what was not granted, and what
is left — the same lines as ``milk-tui permissions revoke`` (Pilot, the demo app)."""

from __future__ import annotations

from pathlib import Path

from tui.conftest import make_app, type_and_send

from milk_tui.tui.widgets.conversation import Conversation


async def test_permissions_revoke_names_what_changed(tmp_path: Path) -> None:
    app = make_app(cwd=str(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        app.facade.permissions.grant(["bash", "write_file"])
        conv = app.main_screen.query_one(Conversation)
        before = len(conv.items)
        await type_and_send(pilot, "/permissions revoke bash web_fetch")
        said = [(it.kind, it.text) for it in conv.items[before:] if it.kind != "user"]
        cwd = app.facade.permissions.cwd
        assert said == [
            ("notice", f"revoked in {cwd}: bash"),
            ("notice", f"not granted in {cwd}, nothing to revoke: web_fetch"),
            ("notice", "still granted: write_file"),
        ], said
        before = len(conv.items)
        await type_and_send(pilot, "/permissions revoke bash")
        said = [(it.kind, it.text) for it in conv.items[before:] if it.kind != "user"]
        assert said == [
            ("warning", f"not granted in {cwd}, nothing to revoke: bash"),
            ("warning", "still granted: write_file"),
        ], said
        assert app.facade.permissions.show().tools == ("write_file",)
