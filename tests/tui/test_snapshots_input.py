"""What the prompt's completion pop-up and a copied reply look like, at 80×24 and 160×45."""

from __future__ import annotations

from tui.snapshot_base import SMALL, SnapshotCase, press, send, until

WIDE = (160, 45)


class TestCompletionPopUp(SnapshotCase):
    def test_slash_pop_up_80x24(self) -> None:
        assert self.shot(press("slash"), size=SMALL)

    def test_slash_pop_up_160x45(self) -> None:
        assert self.shot(press("slash"), size=WIDE)

    def test_tab_cycles_to_the_second_s_command_80x24(self) -> None:
        assert self.shot(press("slash", "s", "tab", "tab"), size=SMALL)


class TestCopy(SnapshotCase):
    def test_alt_k_then_alt_c_marks_the_copied_reply_160x45(self) -> None:
        copied = until(lambda app: bool(app.screen.selections), "the copied reply selected")
        assert self.shot(
            send("/escalate plan the parser rewrite"),
            press("alt+k", "alt+c"),
            copied,
            size=WIDE,
            keep_toasts=True,
        )

    def test_copied_reply_80x24(self) -> None:
        copied = until(lambda app: bool(app.screen.selections), "the copied reply selected")
        assert self.shot(send("what is a monad?"), press("alt+c"), copied, size=SMALL)
