"""Real small files to attach: a PNG written byte by byte (zlib + struct), Pillow's JPEG,
GIF and WebP, a text file."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path


def png_bytes(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes(rgb) * width
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


def write_png(path: Path, **kw: object) -> Path:
    path.write_bytes(png_bytes(**kw))  # type: ignore[arg-type]  # test helper passthrough
    return path


def pillow_image(path: Path, fmt: str) -> Path:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (5, 5), (10, 120, 200)).save(buf, format=fmt)
    path.write_bytes(buf.getvalue())
    return path


def big_png(path: Path, size: int) -> Path:
    """A valid-looking PNG signature followed by ``size`` bytes in all (for the limits)."""
    data = png_bytes()
    path.write_bytes(data + b"\x00" * (size - len(data)))
    return path
