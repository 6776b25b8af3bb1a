"""``/paste`` with an image on the clipboard, in the TUI as ``milk-tui`` starts it (a fake
``xclip`` first on PATH serving a real PNG; the image reaches the agent's request), and
``milk-tui import-go --json`` on a small Go milk install (the shape in interfaces.md)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shlex
from pathlib import Path
from typing import Any

import pytest

from e2e.conftest import ok, prompts, sessions, shown
from e2e.tui_driver import drive, send, until
from milk_tui.testing.fake_openai import FakeOpenAIServer
from tests.attachments.files import png_bytes


def fake_xclip(folder: Path, image: bytes) -> Path:
    """An ``xclip`` that logs its arguments and prints ``image`` (the clipboard)."""
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    (folder / "clip.png").write_bytes(image)
    log = folder / "xclip.args"
    script = bin_dir / "xclip"
    script.write_text(
        f'#!/bin/sh\necho "$@" >> {shlex.quote(str(log))}\n'
        f"cat {shlex.quote(str(folder / 'clip.png'))}\n"
    )
    script.chmod(0o755)
    return log


def images_sent(srv: FakeOpenAIServer) -> list[bytes]:
    found = []
    for m in srv.chat_requests[-1].json["messages"]:
        if isinstance(m.get("content"), list):
            for part in m["content"]:
                if part.get("type") == "image_url":
                    url = part["image_url"]["url"]
                    found.append(base64.b64decode(url.split(",", 1)[1]))
    return found


def test_paste_attaches_the_clipboard_image_and_the_agent_gets_it(
    llama: FakeOpenAIServer, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    image = png_bytes(6, 5, (10, 200, 40))
    log = fake_xclip(tmp_path, image)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.chdir(project)
    staged: list[str] = []

    async def user(pilot: Any, app: Any) -> None:
        from milk_tui.tui.widgets.prompt_input import PromptInput

        assert app.main_screen is not None
        app.main_screen.query_one(PromptInput).set_text("/paste")
        await pilot.press("enter")
        await until(pilot, lambda: app.facade.attachments.staged, "the pasted image staged")
        staged.extend(a.name for a in app.facade.attachments.staged)
        await send(pilot, app, "what is in this picture?")

    assert drive(monkeypatch, [], user) == 0
    assert "-target image/png" in log.read_text()
    (name,) = staged
    assert name.startswith("clipboard-") and name.endswith(".png")
    assert images_sent(llama) == [image]
    (only,) = sessions(project)
    assert prompts(shown(project, only["id"])) == ["what is in this picture?"]


# ----- import-go --json ---------------------------------------------------------------------


def go_install(root: Path, cwd: str) -> Path:
    """A small Go milk install: an index and one session file, a session listed in the
    index whose file is gone, global memory with two facts, a grant file for ``cwd``."""
    go = root / "dot-milk"
    (go / "sessions").mkdir(parents=True)
    (go / "memory").mkdir()
    (go / "permissions").mkdir()
    sid, gone = "0b0c5e2a-1111-4222-8333-944445555666", "9f9f9f9f-0000-4000-8000-000000000000"
    entry = {"id": sid, "name": "go-one", "last_used": "2026-01-02T03:04:05Z"}
    (go / "sessions" / "index.json").write_text(json.dumps({cwd: [entry, {"id": gone}]}))
    (go / "sessions" / f"{sid}.json").write_text(
        json.dumps(
            {
                "id": sid, "name": "go-one", "cwd": cwd, "state": "ROUTING",
                "created_at": "2026-01-02T03:00:00Z", "last_used": "2026-01-02T03:04:05Z",
                "history": [
                    {"role": "user", "content": "hello from go",
                     "timestamp": "2026-01-02T03:00:01Z"},
                    {"role": "assistant", "agent": "primary", "content": "hi",
                     "timestamp": "2026-01-02T03:00:02Z"},
                ],
            }
        )
    )  # fmt: skip
    facts = [
        {"id": "f-1", "content": "the user indents with tabs", "producer": "local"},
        {"id": "f-2", "content": "deploys go through staging", "core": True},
    ]
    (go / "memory" / "global.json").write_text(json.dumps({"percepts": facts}))
    folder_key = hashlib.md5(cwd.encode()).hexdigest()  # noqa: S324 - Go's file name
    (go / "permissions" / f"{folder_key}.json").write_text('{"allowed_tools": ["bash"]}')
    return go


def documented_keys() -> set[str]:
    text = (Path(__file__).resolve().parents[2] / "docs" / "interfaces.md").read_text()
    shape = text[text.index("`import-go --json`") :].split("}", 1)[0].split("{", 1)[1]
    return {k.strip() for k in shape.replace("\n", " ").split(",")}


def test_import_go_json_reports_in_the_documented_shape(project: Path, tmp_path: Path) -> None:
    go = go_install(tmp_path, str(project))
    first = json.loads(ok("import-go", str(go), "--json", cwd=project))
    assert set(first) == documented_keys()
    assert {k: v for k, v in first.items() if k != "warnings"} == {
        "sessions_added": 1, "sessions_skipped": 0, "turns": 2,
        "percepts_added": 2, "percepts_skipped": 0, "grant_files": 1,
    }  # fmt: skip
    (warning,) = first["warnings"]
    assert "9f9f9f9f-0000-4000-8000-000000000000" in warning and "missing" in warning
    again = json.loads(ok("import-go", str(go), "--json", cwd=project))
    assert (again["sessions_added"], again["sessions_skipped"]) == (0, 1)
    assert (again["percepts_added"], again["percepts_skipped"]) == (0, 2)
    # What was imported is there for the user: the session in this folder, its turns, the facts.
    (listed,) = sessions(project)
    assert listed["name"] == "go-one"
    assert prompts(shown(project, "go-one")) == ["hello from go"]
    facts = json.loads(ok("memory", "list", "--json", cwd=project))
    assert {f["content"] for f in facts} >= {
        "the user indents with tabs",
        "deploys go through staging",
    }
    grants = json.loads(ok("permissions", "list", "--json", cwd=project))
    assert grants["allowed_tools"] == ["bash"]


def test_import_go_of_a_missing_folder_is_one_line(project: Path, tmp_path: Path) -> None:
    from milk_tui.testing.cli_run import run_milk

    r = run_milk("import-go", str(tmp_path / "nothing"), "--json", cwd=project)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        f"milk-tui: {tmp_path / 'nothing'}: not a Go milk folder (no such directory)"
    ]
