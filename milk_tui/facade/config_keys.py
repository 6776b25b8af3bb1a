"""Settings a command saves as it changes them (``/colorize``, ``/bash allow``): written
into the config file in use, keeping the rest of it, and applied to this run at once."""

from __future__ import annotations

import asyncio

from milk_tui.config.load import ConfigError
from milk_tui.config.settings import COLORIZATIONS
from milk_tui.config.writer import set_key, target_file
from milk_tui.engine.runtime import Runtime


async def save_key(rt: Runtime, key: str, value: object) -> None:
    """Write the top-level ``key`` and set it on the running config; ``ValueError`` (one
    line) when the file cannot be written."""
    path = target_file(rt.config_path)
    try:
        await asyncio.to_thread(set_key, path, key, value)
    except ConfigError as e:
        raise ValueError(str(e)) from None
    for cfg in {id(c): c for c in (rt.config, rt.base_config) if c is not None}.values():
        setattr(cfg, key, value)


async def save_colorization(rt: Runtime, mode: str) -> str:
    """``/colorize MODE``: check the name, save it; returns it."""
    mode = mode.strip().lower()
    if mode not in COLORIZATIONS:
        raise ValueError(f"unknown mode '{mode}' — off, fenced, balanced or full")
    await save_key(rt, "colorization", mode)
    return mode
