"""/bash: the direct shell's allow-list (``direct_bash_allow``), saved in the config."""

from __future__ import annotations

from milk_tui.tui.slash.base import SlashGroup


class ShellCommands(SlashGroup):
    async def cmd_bash(self, arg: str) -> None:
        shell = self.facade.shell
        action, _, word = arg.strip().partition(" ")
        action = action.lower()
        if action in ("", "list"):
            state = "on" if shell.enabled else "off (set direct_bash = true in the config)"
            allowed = ", ".join(shell.allowed) or "none"
            self.say(
                f"direct shell: {state}; run at once: {allowed} — a line starting with ! "
                "always runs; other commands ask one key"
            )
        elif action == "allow":
            now = await shell.allow(word)
            self.say(f"runs at once: {', '.join(now)} (saved)")
        elif action == "deny":
            now = await shell.deny(word)
            self.say(f"runs at once: {', '.join(now) or 'none'} (saved)")
        else:
            raise ValueError("usage: /bash [list|allow WORD|deny WORD]")
