"""The session's last exchange: /drop."""

from __future__ import annotations

from milk_tui.tui.slash.base import SlashGroup


class TranscriptCommands(SlashGroup):
    async def cmd_drop(self, arg: str) -> None:
        if arg.strip():
            raise ValueError("takes no argument (it forgets the last exchange)")
        transcript = self.facade.transcript
        prompt = transcript.last_prompt()
        if prompt is None:
            self.say("nothing to drop: this session has no exchange yet")
            return
        from milk_tui.tui.screens.confirm_modal import ConfirmModal

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.screen.run_worker(self._drop(), group="drop")

        self.screen.app.push_screen(
            ConfirmModal(
                "Forget the last exchange?",
                f"❯ {prompt[:300]}\n\nThe prompt and its answers leave this session and its "
                "history; facts it recorded stay (/forget removes them). To delete the whole "
                "session: /sessions.",
                confirm_label="Drop",
            ),
            confirmed,
        )

    async def _drop(self) -> None:
        from milk_tui.facade.errors import StorageError

        try:
            dropped = self.facade.transcript.drop_last()
        except ValueError as e:
            self.say(f"/drop: {e}", "warning")
            return
        except StorageError as e:
            self.say(f"/drop: storage error: {e}", "error")
            return
        if dropped is None:
            self.say("nothing to drop: this session has no exchange yet")
            return
        self.screen.load_session(self.facade.session_view())
        first = dropped.prompt.strip().split("\n", 1)[0][:80]
        fresh = "; the next hand-off starts a fresh escalation session" * dropped.escalation_reset
        self.say(f"dropped the last exchange ({dropped.records} records): ❯ {first}{fresh}")
