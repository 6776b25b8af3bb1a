"""Architecture rules that must not erode: the core is headless, provider SDKs load lazily,
and the TUI's first frame does not wait for the engine."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

HEADLESS = [
    "milk_tui.engine.dispatch",
    "milk_tui.engine.runtime",
    "milk_tui.engine.router",
    "milk_tui.memory.service",
    "milk_tui.agents.factory",
    "milk_tui.facade.application",
    "milk_tui.facade.admin",
    "milk_tui.cli",
]


def _python(code: str, cwd: Path | None = None, home: Path | None = None) -> str:
    """``code`` run by a fresh interpreter (with its own ``MILK_HOME``, demo agents unpaced,
    when ``home`` is given); its standard output."""
    env = {**os.environ, "MILK_HOME": str(home), "MILK_DEMO_PACE": "0"} if home else None
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )
    return run.stdout


def _loaded_after_import(modules: list[str]) -> set[str]:
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + "print('\\n'.join(sys.modules))"
    )
    return set(_python(code).split())


def test_core_never_imports_textual():
    loaded = _loaded_after_import(HEADLESS)
    assert not any(m == "textual" or m.startswith("textual.") for m in loaded)


def test_provider_sdks_are_not_imported_at_startup():
    loaded = _loaded_after_import(HEADLESS)
    assert "boto3" not in loaded and "botocore" not in loaded
    assert "mcp" not in loaded and "mcp_types" not in loaded  # ~0.3 s, loaded in a thread


def test_front_ends_load_the_engine_only_when_they_start_it():
    """The CLI's parser and the TUI's first frame name the facade's light modules only."""
    loaded = _loaded_after_import(["milk_tui.cli", "milk_tui.tui.app", "milk_tui.facade.errors"])
    heavy = ("milk_tui.engine", "milk_tui.agents", "milk_tui.memory", "milk_tui.storage")
    assert not [m for m in loaded if m.startswith(heavy)]


def test_the_cli_parser_loads_no_config_model_or_facade_behind_a_subcommand():
    """``milk-tui`` builds its parser (every subcommand's) before the TUI's first frame:
    the subcommands' facades, the config models and the MCP SDK load when one runs."""
    code = "import sys\nimport milk_tui.cli as c\nc.build_parser()\nprint('\\n'.join(sys.modules))"
    loaded = set(_python(code).split())
    heavy = ("milk_tui.config.settings", "milk_tui.facade.mcp", "milk_tui.facade.admin", "mcp")
    assert not [m for m in loaded if m.startswith(heavy)]
    assert "pydantic_settings" not in loaded


def test_a_tui_command_line_loads_no_subcommand_and_refuses_a_stray_word_as_before():
    """``milk-tui`` (options only) builds the subcommands by name: none of their modules
    loads; a word that is no subcommand gets the same refusal as from the whole parser."""
    code = (
        "import sys, contextlib, io\nimport milk_tui.cli as c\n"
        "c.build_parser(['--demo', '--session', 'x']).parse_args(['--demo', '--session', 'x'])\n"
        "print(sorted(m for m in sys.modules if m.endswith('_cmd')))\n"
        "for argv in (['--demo', 'nope'], None):\n"
        "    err = io.StringIO()\n"
        "    with contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):\n"
        "        c.build_parser(argv).parse_args(['--demo', 'nope'])\n"
        "    print(repr(err.getvalue()))\n"
    )
    loaded, lazy, whole = _python(code).splitlines()
    assert loaded == "[]"
    assert lazy == whole and "invalid choice: 'nope'" in lazy and "'sessions'" in lazy


def test_the_main_screen_and_the_events_load_no_pydantic():
    """The bus events are plain records and the main screen's modules need no config model:
    pydantic (~25 ms to import, more per model class) loads with the config, not with them."""
    loaded = _loaded_after_import(
        ["milk_tui.cli", "milk_tui.tui.app", "milk_tui.tui.screens.main", "milk_tui.model.events"]
    )
    assert not [m for m in loaded if m.startswith(("pydantic", "annotated_types"))]


def test_no_module_imports_itself_through_others() -> None:
    """No cycle among milk_tui's modules, deferred imports included (annotations aside)."""
    import grimp

    graph = grimp.build_graph("milk_tui", exclude_type_checking_imports=True)
    cycles = [
        (a, b)
        for a in graph.modules
        for b in graph.find_modules_directly_imported_by(a)
        if graph.chain_exists(importer=b, imported=a)
    ]
    assert cycles == []


STARTUP_PROBE = """
import gc, sys
from milk_tui.tui.app import MilkApp

def factory():
    from milk_tui.facade.opening import open_application
    return open_application(demo=True, new=True, cooperative=True)

LATER = (
    "milk_tui.tui.keymap_check",
    "milk_tui.tui.screens.help_modal",
    "milk_tui.tui.screens.context_modal",
    "milk_tui.tui.screens.history_search",
    "milk_tui.tui.screens.permission_modal",
    "milk_tui.tui.screens.question_modal",
    "milk_tui.tui.slash.handler",  # the slash commands: loaded when the first one runs
    "pydantic_settings",  # reads MILK_* overrides only when one is set
    "milk_tui.engine.dispatch",  # the agents, router and dispatcher: built after the frame
    "milk_tui.engine.runtime",
    "milk_tui.agents.factory",
    "milk_tui.facade.application",
    "milk_tui.agents.redact",  # its patterns: compiled by the agents' build
    "milk_tui.model.workflow",  # a workflow's state: read when the session has one
    "milk_tui.tui.commands",  # the slash-command tables and Tab completion: tui/after_frame.py
    "milk_tui.tui.completion",
    "milk_tui.model.usage",  # usage rows: the first usage read or cache figure
)

class Probe(MilkApp):
    def _after_first_main_frame(self):
        from milk_tui.tui.widgets.conversation import Conversation

        self.at_frame = (
            sorted(m for m in LATER if m in sys.modules),
            len(self.main_screen.query_one(Conversation).items),
        )
        super()._after_first_main_frame()
        self.call_after_refresh(self.exit)

app = Probe(runtime_factory=factory)
app.run(headless=True, size=(120, 40))
print(sorted(m for m in sys.modules if m.split(".")[0] in ("httpx", "httpcore", "boto3", "botocore", "mcp")))
print(gc.isenabled())
print(app.at_frame)
"""


def test_main_screen_comes_up_without_unused_clients_and_with_the_gc_back_on(tmp_path):
    """Launched as ``run_app`` does (core in a thread after the first frame), on the demo
    agents: no HTTP client, AWS or MCP SDK is loaded, and the GC paused for start-up is on."""
    out = _python(STARTUP_PROBE, cwd=tmp_path, home=tmp_path)
    assert out.split("\n")[-4:-1] == ["[]", "True", "([], 0)"]


def test_main_screen_defers_what_it_does_not_paint(tmp_path):
    """Up to the main screen's first frame: no keymap check without a keymap, no modal
    screen, no slash command, and of a long session only the tail made into transcript
    items (the rest follows in a thread)."""
    _python(SESSION_OF_200, cwd=tmp_path, home=tmp_path)
    out = _python(STARTUP_PROBE.replace("new=True, ", ""), cwd=tmp_path, home=tmp_path)
    modules, items = ast.literal_eval(out.split("\n")[-2])
    assert modules == []
    assert 0 < items < 200  # the tail's items: 64 of the 200 turns


def test_a_start_painted_from_its_card_reads_the_config_after_the_first_frame(tmp_path):
    """Every start in a home paints before the config models load (facade/start_card.py):
    the first, with no config file, from the home's defaults; the second from the first
    one's card.  Only a start with a config file and no card for it reads the config
    first."""
    probe = STARTUP_PROBE.replace(
        "open_application(demo=True, new=True, cooperative=True)",
        "open_application(demo=True, cooperative=True, from_card=True)",
    ).replace(
        "len(self.main_screen.query_one(Conversation).items),",
        "'pydantic' in sys.modules, 'milk_tui.config.settings' in sys.modules",
    )
    first = _python(probe, cwd=tmp_path, home=tmp_path).split("\n")[-2]
    second = _python(probe, cwd=tmp_path, home=tmp_path).split("\n")[-2]
    assert ast.literal_eval(first) == ([], False, False)  # a new home: its defaults
    assert ast.literal_eval(second) == ([], False, False)  # the card the first one wrote
    (tmp_path / "config.toml").write_text('theme = "milk-light"\n')
    edited = _python(probe, cwd=tmp_path, home=tmp_path).split("\n")[-2]
    assert ast.literal_eval(edited) == ([], True, True)  # no card for this config: it first


SESSION_OF_200 = """
import os
from milk_tui.config.paths import database_file
from milk_tui.model.session import Turn
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore

db = Database(database_file())
store = SessionStore(db)
s = store.create(os.getcwd(), "long")
turns = [Turn("user" if i % 2 == 0 else "assistant", f"turn {i}") for i in range(200)]
s.history.extend(turns)
store.commit_turns(s, turns)
db.close()
"""


AFTER_FRAME_PROBE = """
import sys, time
from milk_tui.tui.app import MilkApp

LATER = ("milk_tui.tui.commands", "milk_tui.tui.completion")

def factory():
    from milk_tui.facade.opening import open_application
    return open_application(demo=True, new=True, cooperative=True)

class Probe(MilkApp):
    def _after_first_main_frame(self):
        self.at_frame = sorted(m for m in LATER if m in sys.modules)
        self.deadline = time.monotonic() + 20
        super()._after_first_main_frame()
        self.set_interval(0.01, self._loaded)

    def _loaded(self):
        if all(m in sys.modules for m in LATER) or time.monotonic() > self.deadline:
            self.after = sorted(m for m in LATER if m in sys.modules)
            self.exit()

app = Probe(runtime_factory=factory)
app.run(headless=True, size=(120, 40))
print((app.at_frame, app.after))
"""


def test_the_command_tables_load_after_the_first_frame_without_a_key(tmp_path):
    """The slash commands and Tab completion are not loaded for the first frame, and are
    loaded right after it (``tui/after_frame.py``) with no key pressed: the first key,
    Tab or Enter does not pay for them."""
    out = _python(AFTER_FRAME_PROBE, cwd=tmp_path, home=tmp_path)
    at_frame, after = ast.literal_eval(out.split("\n")[-2])
    assert at_frame == []
    assert after == ["milk_tui.tui.commands", "milk_tui.tui.completion"]


MARKDOWN_PROBE = """
import sys, time
from milk_tui.tui.app import MilkApp

STACK = ("markdown_it", "rich.markdown", "pygments", "milk_tui.tui.widgets.markdown_later")

def factory():
    from milk_tui.facade.opening import open_application
    return open_application(demo=True, new=True, cooperative=True)

class Probe(MilkApp):
    def _after_first_main_frame(self):
        self.at_frame = sorted(m for m in STACK if m in sys.modules)
        self.deadline = time.monotonic() + 20
        super()._after_first_main_frame()
        self.set_interval(0.01, self._stack_loaded)

    def _stack_loaded(self):
        from milk_tui.tui.widgets.md_blocks import _blocks

        loaded = all(m in sys.modules for m in STACK) and _blocks.cache_info().currsize == 1
        if loaded or time.monotonic() > self.deadline:
            self.after = sorted(m for m in STACK if m in sys.modules), _blocks.cache_info().currsize
            self.exit()

app = Probe(runtime_factory=factory)
app.run(headless=True, size=(120, 40))
print((app.at_frame, app.after))
"""


def test_a_start_that_shows_no_reply_paints_without_the_markdown_stack(tmp_path):
    """A new session's first frame renders no reply: markdown-it, Rich's Markdown and
    Pygments (~20 ms, ~1 MiB) load after it, in a thread (``md_render.warm_markdown``),
    with the block parser built, before a reply needs them."""
    out = _python(MARKDOWN_PROBE, cwd=tmp_path, home=tmp_path)
    at_frame, after = ast.literal_eval(out.split("\n")[-2])
    assert at_frame == []
    stack = ("markdown_it", "rich.markdown", "pygments", "milk_tui.tui.widgets.markdown_later")
    assert after == (sorted(stack), 1)  # and the block parser built
