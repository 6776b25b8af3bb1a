"""The eval report: /eval [DIR]."""

from __future__ import annotations

import asyncio

from milk_tui.tui.slash.base import SlashGroup


class EvalCommands(SlashGroup):
    async def cmd_eval(self, arg: str) -> None:
        """The newest run under the data dir's ``eval/`` (or the folder named, relative to
        the session folder); no run yet: one line saying how to make one."""
        from milk_tui.eval.load import resolve
        from milk_tui.eval.report import build_report
        from milk_tui.tui.editor import resolve_path
        from milk_tui.tui.screens.eval_screen import EvalScreen

        where = arg.strip()
        if where and where != "latest":
            where = str(resolve_path(where, self.facade.cwd))
        folder = resolve(where)  # ValueError: the dispatcher shows its one line
        report = await asyncio.to_thread(build_report, folder)
        await self.screen.app.push_screen(EvalScreen(report))
