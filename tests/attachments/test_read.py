"""Reading and checking files: kinds by magic bytes, limits, one-line errors naming the file."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from milk_tui.engine.attachments import (
    MAX_IMAGE_BYTES,
    MAX_TEXT_BYTES,
    AttachmentError,
    clipboard_image,
    pasted_path,
    read_attachment,
)
from milk_tui.model.attachment import Attachment, prompt_with_files
from tests.attachments.files import big_png, pillow_image, png_bytes, write_png


def test_png_written_by_hand_is_an_image_whatever_its_extension(tmp_path: Path):
    write_png(tmp_path / "shot.txt")
    a = read_attachment("shot.txt", str(tmp_path))
    assert (a.info.kind, a.info.mime, a.info.name) == ("image", "image/png", "shot.txt")
    assert a.info.size == len(png_bytes()) and len(a.info.sha256) == 64
    assert a.info.path == str((tmp_path / "shot.txt").resolve())
    assert a.data_url().startswith("data:image/png;base64,iVBORw0KGgo")


@pytest.mark.parametrize(
    ("fmt", "mime"), [("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")]
)
def test_pillow_images_are_told_by_magic_bytes(tmp_path: Path, fmt: str, mime: str):
    pillow_image(tmp_path / "pic.bin", fmt)
    assert read_attachment(str(tmp_path / "pic.bin"), "/").info.mime == mime


def test_text_file_goes_fenced_with_its_name(tmp_path: Path):
    (tmp_path / "app.log").write_text("line 1\n```\nline 3\n")
    a = read_attachment("app.log", str(tmp_path))
    assert a.info.kind == "text" and a.info.mime == "text/plain"
    text = prompt_with_files("why does it fail?", (a,), images=True)
    assert text.startswith("why does it fail?\n\napp.log:\n````\nline 1\n```\nline 3\n````")


def test_tilde_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "notes.md").write_text("hello")
    assert read_attachment("~/notes.md", "/").info.name == "notes.md"


@pytest.mark.parametrize(
    ("setup", "arg", "words"),
    [
        (lambda d: None, "missing.png", "missing.png: no such file"),
        (lambda d: (d / "dir").mkdir(), "dir", "dir: not a regular file"),
        (lambda d: (d / "e.txt").write_bytes(b""), "e.txt", "e.txt: the file is empty"),
        (lambda d: (d / "a.bin").write_bytes(b"\x7fELF\x00\x01"), "a.bin", "a.bin: a binary file"),
        (
            lambda d: (d / "l1.txt").write_bytes("é".encode("latin-1")),
            "l1.txt",
            "l1.txt: a binary file",
        ),
        (
            lambda d: (d / "big.log").write_text("x" * (MAX_TEXT_BYTES + 1)),
            "big.log",
            "big.log: too large",
        ),
        (lambda d: big_png(d / "big.png", MAX_IMAGE_BYTES + 1), "big.png", "big.png: too large"),
        (lambda d: None, "  ", "no file named"),
    ],
)
def test_bad_files_are_one_line_naming_them(tmp_path: Path, setup, arg: str, words: str):
    setup(tmp_path)
    with pytest.raises(AttachmentError) as e:
        read_attachment(arg, str(tmp_path))
    assert words in str(e.value) and "\n" not in str(e.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads everything")
def test_unreadable_file_is_named(tmp_path: Path):
    f = tmp_path / "secret.txt"
    f.write_text("x")
    f.chmod(0)
    with pytest.raises(AttachmentError, match="secret.txt: cannot read it"):
        read_attachment("secret.txt", str(tmp_path))


def test_limits_are_inclusive(tmp_path: Path):
    big_png(tmp_path / "ok.png", MAX_IMAGE_BYTES)
    (tmp_path / "ok.txt").write_text("y" * MAX_TEXT_BYTES)
    assert read_attachment("ok.png", str(tmp_path)).info.size == MAX_IMAGE_BYTES
    assert read_attachment("ok.txt", str(tmp_path)).info.size == MAX_TEXT_BYTES


def test_image_for_an_agent_without_vision_is_a_note(tmp_path: Path):
    a = read_attachment(str(write_png(tmp_path / "s.png")), "/")
    text = prompt_with_files("look", (a,), images=False)
    assert "[attached image: s.png (image/png, " in text and "does not take images" in text
    assert prompt_with_files("look", (a,), images=True) == "look"


@pytest.mark.parametrize(
    ("paste", "found"),
    [
        ("{f}", True),
        ("  {f}  \n", True),
        ("'{f}'", True),
        ('"{f}"', True),
        ("file://{f}", True),
        ("{esc}", True),
        ("rel name.png", True),
        ("look at {f}", False),
        ("{f}\n{f}", False),
        ("{d}", False),
        ("/no/such/file.png", False),
        ("", False),
    ],
)
def test_pasted_path_rule(tmp_path: Path, paste: str, found: bool):
    f = write_png(tmp_path / "rel name.png")
    text = paste.format(f=f, d=tmp_path, esc=str(f).replace(" ", "\\ "))
    assert (pasted_path(text, str(tmp_path)) == str(f)) is found


def _tool(bin_dir: Path, name: str, script: str) -> None:
    p = bin_dir / name
    p.write_text("#!/bin/sh\n" + script)
    p.chmod(0o755)


def test_clipboard_image_through_xclip(tmp_path: Path):
    png = write_png(tmp_path / "clip.png")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _tool(bin_dir, "xclip", f"exec {shutil.which('cat')} '{png}'\n")
    a = clipboard_image({"PATH": str(bin_dir), "DISPLAY": ":0"})
    assert a.info.kind == "image" and a.info.name.startswith("clipboard-")
    assert a.info.name.endswith(".png") and a.info.path == "" and a.data == png.read_bytes()


def test_clipboard_without_an_image_says_so(tmp_path: Path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _tool(bin_dir, "wl-paste", "echo 'just text'\n")
    with pytest.raises(AttachmentError, match="the clipboard holds no image"):
        clipboard_image({"PATH": str(bin_dir), "WAYLAND_DISPLAY": "wayland-0"})


def test_no_clipboard_tool_is_one_line_naming_what_is_missing(tmp_path: Path):
    with pytest.raises(AttachmentError) as e:
        clipboard_image({"PATH": str(tmp_path), "DISPLAY": ":0"})
    assert "no clipboard tool" in str(e.value) and "xclip" in str(e.value)


def test_attachment_repr_never_holds_bytes(tmp_path: Path):
    a: Attachment = read_attachment(str(write_png(tmp_path / "r.png")), "/")
    assert "PNG" not in repr(a)
