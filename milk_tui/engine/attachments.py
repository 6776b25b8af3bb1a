"""Reading a file (or the clipboard) into an ``Attachment``, with every check done before
anything is sent: the file exists and is readable, it is an image (told by its first bytes,
never its extension) or UTF-8 text, and it is within the size limits.  Each failure is one
``AttachmentError`` line naming the file (docs/adr/0027-attachments.md).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from milk_tui.model.attachment import Attachment, AttachmentInfo, human_size

MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""5 MB: the Anthropic Messages API's limit per image; larger screenshots are refused
here rather than by the server after the upload."""
MAX_TEXT_BYTES = 256 * 1024
"""256 KB of text is ~64k tokens: more would crowd out the conversation in most models'
context; a bigger log is better cut with a tool first."""
MAX_ATTACHMENTS = 10
"""Per turn: enough for a few screenshots and logs; a slip of the hand stops here."""
CLIPBOARD_TIMEOUT_S = 3.0

_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


class AttachmentError(ValueError):
    """One line naming the file and what is wrong with it."""


def image_mime(data: bytes) -> str:
    """The image type told by the file's first bytes; "" when it is none we send."""
    for magic, mime in _IMAGE_MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return ""


def resolve(path: str, cwd: str) -> Path:
    """``~`` expanded; a relative path is taken from the session's folder."""
    p = Path(os.path.expanduser(path.strip()))
    return p if p.is_absolute() else Path(cwd) / p


def read_attachment(path: str, cwd: str) -> Attachment:
    """The file at ``path``, checked; raises ``AttachmentError``."""
    if not path.strip():
        raise AttachmentError("no file named: give a path")
    p = resolve(path, cwd)
    shown = path.strip()
    if not p.exists():
        raise AttachmentError(f"{shown}: no such file")
    if not p.is_file():
        raise AttachmentError(f"{shown}: not a regular file")
    size = p.stat().st_size
    if size > MAX_IMAGE_BYTES:  # the larger limit: refuse before reading a huge file
        raise AttachmentError(_too_large(shown, size, MAX_IMAGE_BYTES))
    try:
        data = p.read_bytes()
    except OSError as e:
        raise AttachmentError(f"{shown}: cannot read it: {e.strerror or e}") from None
    return from_bytes(p.name, data, str(p.resolve()), shown=shown)


def from_bytes(name: str, data: bytes, path: str = "", *, shown: str = "") -> Attachment:
    """Checked bytes → an ``Attachment``: an image by its magic bytes, else UTF-8 text."""
    shown = shown or name
    if not data:
        raise AttachmentError(f"{shown}: the file is empty")
    mime = image_mime(data)
    if mime:
        limit = MAX_IMAGE_BYTES
    else:
        limit = MAX_TEXT_BYTES
        if b"\x00" in data[:8192] or not _utf8(data):
            raise AttachmentError(
                f"{shown}: a binary file that is not a PNG, JPEG, GIF or WebP image "
                "(only images and UTF-8 text can be attached)"
            )
    if len(data) > limit:
        raise AttachmentError(_too_large(shown, len(data), limit))
    info = AttachmentInfo(
        name=name,
        kind="image" if mime else "text",
        mime=mime or "text/plain",
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        path=path,
    )
    return Attachment(info, data)


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _too_large(shown: str, size: int, limit: int) -> str:
    kind = "an image" if limit == MAX_IMAGE_BYTES else "a text file"
    return f"{shown}: too large ({human_size(size)}; {kind} may have at most {human_size(limit)})"


def pasted_path(text: str, cwd: str) -> str | None:
    """The file a paste names, or None when the paste is text to keep.

    The rule: the whole paste, trimmed, is ONE line naming an existing regular file —
    absolute, ``~``-relative or relative to the session folder; one pair of surrounding
    quotes, a ``file://`` prefix and backslash-escaped spaces (what terminals produce when a
    file is dropped on them) are undone.  Anything else, and every typed path, stays text.
    """
    s = text.strip()
    if not s or "\n" in s or len(s) > 4096:
        return None
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        s = s[1:-1]
    if s.startswith("file://"):
        s = s[len("file://") :]
    s = s.replace("\\ ", " ")
    try:
        p = resolve(s, cwd)
        return str(p) if p.is_file() else None
    except (OSError, ValueError):
        return None


def clipboard_image(env: Mapping[str, str] | None = None) -> Attachment:
    """The clipboard's image through the platform's tool: ``wl-paste`` (Wayland),
    ``xclip`` (X11) or ``pngpaste`` (macOS).  Raises ``AttachmentError`` saying which tool
    is missing, or that the clipboard holds no image."""
    env = os.environ if env is None else env
    path = env.get("PATH", "")
    commands: list[list[str]] = []
    if (wl := shutil.which("wl-paste", path=path)) and env.get("WAYLAND_DISPLAY"):
        commands.append([wl, "--no-newline", "--type", "image/png"])
    if (xc := shutil.which("xclip", path=path)) and env.get("DISPLAY"):
        commands.append([xc, "-selection", "clipboard", "-target", "image/png", "-out"])
    if pp := shutil.which("pngpaste", path=path):
        commands.append([pp, "-"])
    if not commands:
        raise AttachmentError(
            "no clipboard tool: install wl-clipboard (Wayland), xclip (X11) or pngpaste "
            "(macOS), or save the image and /attach it"
        )
    for argv in commands:
        try:
            run = subprocess.run(  # noqa: S603 - a fixed argv of a tool found on PATH
                argv, capture_output=True, timeout=CLIPBOARD_TIMEOUT_S, env=dict(env), check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if run.returncode == 0 and image_mime(run.stdout):
            stamp = time.strftime("%Y%m%d-%H%M%S")
            ext = image_mime(run.stdout).split("/")[1]
            return from_bytes(f"clipboard-{stamp}.{ext}", run.stdout, shown="the clipboard image")
    raise AttachmentError("the clipboard holds no image")
