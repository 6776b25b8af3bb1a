"""Architecture rules that must not erode: the core is headless, provider SDKs load lazily,
and the TUI's first frame does not wait for the engine."""

from __future__ import annotations

import os
import subprocess
import sys

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


def _loaded_after_import(modules: list[str]) -> set[str]:
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + "print('\\n'.join(sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


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
    from milk_tui.facade.application import start
    return start(demo=True, new=True, cooperative=True)

class Probe(MilkApp):
    def _after_first_main_frame(self):
        super()._after_first_main_frame()
        self.call_after_refresh(self.exit)

Probe(runtime_factory=factory).run(headless=True, size=(120, 40))
print(sorted(m for m in sys.modules if m.split(".")[0] in ("httpx", "httpcore", "boto3", "botocore", "mcp")))
print(gc.isenabled())
"""


def test_main_screen_comes_up_without_unused_clients_and_with_the_gc_back_on(tmp_path):
    """Launched as ``run_app`` does (core in a thread after the first frame), on the demo
    agents: no HTTP client, AWS or MCP SDK is loaded, and the GC paused for start-up is on."""
    env = {**os.environ, "MILK_HOME": str(tmp_path), "MILK_DEMO_PACE": "0"}
    out = subprocess.run(
        [sys.executable, "-c", STARTUP_PROBE],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert out.stdout.split("\n")[-3:] == ["[]", "True", ""]
