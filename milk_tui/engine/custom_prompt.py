"""An agent's own system prompt (``prompt`` / ``prompt_file``), put before its role prompt.

The text may hold four placeholders, filled per turn with what the agent would otherwise
get elsewhere in the request:

- ``{{milk:memory}}`` — the ``[Remembered facts]`` block selected for this prompt;
- ``{{milk:need}}`` — the user's current goal;
- ``{{milk:escalation}}`` — the summary of the escalation agent's last work;
- ``{{milk:tools}}`` — the tools offered this turn, one ``- name: description`` line each.

A ``prompt_file`` is re-read when it changes on disk (a stat per turn, no read), so
editing it takes effect on the next turn.  When it is missing or unreadable the agent
runs on its built-in prompt and one warning names the agent and the file; the warning is
given again only after the file was readable in between.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from milk_tui.agents.base import ToolSpec
from milk_tui.config.settings import AgentConfig

MAX_PROMPT_FILE_BYTES = 256 * 1024
"""A prompt file larger than this is a mistake (a log, a binary): refused, not sent."""

PLACEHOLDERS = ("memory", "need", "escalation", "tools")


@dataclass(frozen=True)
class PromptValues:
    memory: str = ""
    need: str = ""
    escalation: str = ""
    tools: str = ""


def render(template: str, values: PromptValues) -> str:
    """The template with each ``{{milk:NAME}}`` replaced; other braces are left alone."""
    out = template
    for name in PLACEHOLDERS:
        out = out.replace("{{milk:" + name + "}}", getattr(values, name).strip())
    return out


def tools_text(specs: list[ToolSpec]) -> str:
    return "\n".join(f"- {s.name}: {s.description.splitlines()[0] if s.description else ''}"
                     for s in specs)  # fmt: skip


def prompt_path(ac: AgentConfig, cwd: str) -> Path:
    return Path(cwd, os.path.expanduser(ac.prompt_file))


def both_set_warning(ac: AgentConfig) -> str:
    if ac.prompt and ac.prompt_file:
        return f"agent '{ac.name}': both 'prompt' and 'prompt_file' are set; the file wins"
    return ""


@dataclass
class _Cached:
    key: tuple[int, int]
    text: str


class CustomPrompts:
    """The custom prompt templates of the configured agents, read when changed."""

    def __init__(self) -> None:
        self._files: dict[Path, _Cached] = {}
        self._warned: set[tuple[str, Path]] = set()

    def template(self, ac: AgentConfig, cwd: str) -> tuple[str, str]:
        """(the template, "" or a warning to show once): the file's text when it can be
        read, else ``prompt`` (or "")."""
        if not ac.prompt_file:
            return ac.prompt, ""
        path = prompt_path(ac, cwd)
        text, problem = self._read(path)
        if not problem:
            self._warned.discard((ac.name, path))
            return text, ""
        if (ac.name, path) in self._warned:
            return "", ""
        self._warned.add((ac.name, path))
        return "", (f"agent '{ac.name}': prompt_file {path}: {problem}; using the built-in prompt")

    def _read(self, path: Path) -> tuple[str, str]:
        try:
            st = path.stat()
            key = (st.st_mtime_ns, st.st_size)
            cached = self._files.get(path)
            if cached is not None and cached.key == key:
                return cached.text, ""
            if not path.is_file():
                return "", "not a file"
            if st.st_size > MAX_PROMPT_FILE_BYTES:
                return "", f"larger than {MAX_PROMPT_FILE_BYTES // 1024} KiB"
            text = path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            return "", "not found"
        except PermissionError:
            return "", "permission denied"
        except OSError as e:
            return "", f"cannot read ({e.strerror or e})"
        except UnicodeDecodeError:
            return "", "not UTF-8 text"
        self._files[path] = _Cached(key, text)
        return text, ""


def startup_warnings(prompts: CustomPrompts, agents: list[AgentConfig], cwd: str) -> list[str]:
    """Problems with the configured custom prompts, said once at start-up (``prompts``
    then stays quiet about the same file on the turns that follow)."""
    out = [both_set_warning(a) for a in agents]
    out += [prompts.template(a, cwd)[1] for a in agents]
    return [w for w in out if w]
