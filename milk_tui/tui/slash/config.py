"""The config file and files in the editor: /config, /config open, /config init, /open."""

from __future__ import annotations

import asyncio
from pathlib import Path

from milk_tui.config.load import load_config
from milk_tui.config.paths import (
    config_dir,
    go_config_file,
    resolution_order,
    resolve_config_file,
)
from milk_tui.config.starter import write_starter
from milk_tui.tui.editor import edit, resolve_path
from milk_tui.tui.slash.base import SlashGroup

CONFIG_USAGE = "usage: /config [open|init]"


class ConfigCommands(SlashGroup):
    async def cmd_config(self, arg: str) -> None:
        verb = arg.strip().lower()
        if verb == "":
            await self._show()
        elif verb in ("open", "edit"):
            await self._open_config()
        elif verb == "init":
            self._init()
        else:
            raise ValueError(CONFIG_USAGE)

    async def cmd_open(self, arg: str) -> None:
        if not arg.strip():
            raise ValueError("usage: /open <path>  (or @path, relative to the session folder)")
        path = resolve_path(arg, self.facade.cwd)
        if not path.exists():
            raise ValueError(f"no such file: {path}")
        self._edit(path)

    # ----- the pieces -------------------------------------------------------------------

    def _in_use(self) -> Path | None:
        used = self.facade.startup_info().config_path
        return Path(used) if used else None

    async def _show(self) -> None:
        used = self._in_use()
        found, how = resolve_config_file()
        if used is None:
            lines = ["config: none, running on defaults (/config init writes a starter file)"]
        else:
            via = how if found == used else "--config"
            lines = [f"config: {used} (found via {via}; /config open edits it)"]
        lines.append("looked for, in order: " + "; ".join(resolution_order()))
        if used is not None:
            # The file as it is now (it may have been edited since start-up).
            _, warnings, _ = await asyncio.to_thread(load_config, used, skip_broken_file=True)
            lines += [f"  ⚠ {w}" for w in warnings] or ["  no warnings"]
        self.say("\n".join(lines))

    async def _open_config(self) -> None:
        used = self._in_use()
        if used is None:
            raise ValueError("no config file in use: /config init writes a starter one")
        self._edit(used)
        await self.screen.action_slash("/reload")

    def _init(self) -> None:
        path, written = write_starter(config_dir())
        if written:
            self.say(f"wrote a commented starter config: {path} (/config open edits it)")
            if self._in_use() == go_config_file():
                self.say(f"from the next start it is read instead of {go_config_file()}")
        else:
            self.say(f"{path} exists: left as it is (/config open edits it)", "warning")

    def _edit(self, path: Path) -> None:
        problem = edit(self.screen.app, path, self.facade.config_editors)
        if problem:
            raise ValueError(problem)
        # A file in the session folder is named as the user typed it; the config by its path.
        shown = path.relative_to(self.facade.cwd) if path.is_relative_to(self.facade.cwd) else path
        self.say(f"edited {shown}")
