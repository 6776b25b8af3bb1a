"""Start-up's options, as its two halves take them: the store's (``engine/open_store.py``)
and the config's (``engine/boot.py`` ``configure``).  A light module: the TUI splits them
before any config model is loaded."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, cast

if TYPE_CHECKING:
    from milk_tui.config.settings import MilkConfig


class StoreOptions(TypedDict, total=False):
    """``open_store``'s options (each documented there)."""

    cwd: str | None
    new: bool
    session_name: str
    any_folder: bool
    history_tail: int


class ConfigOptions(TypedDict, total=False):
    """``configure``'s options (each documented there)."""

    config_path: str | Path | None
    demo: bool
    debug: bool
    config: MilkConfig | None
    skip_broken_config: bool
    agent: str
    escalation_agent: str
    probe_later: bool


class BootOptions(StoreOptions, ConfigOptions, total=False):
    """``open_boot``'s options, which ``build_runtime`` and the facade's ``open_application``
    pass on: the store half's and the config half's."""


def split_options(options: BootOptions) -> tuple[StoreOptions, ConfigOptions]:
    """``options`` as the store half's and the config half's."""
    store_keys = StoreOptions.__optional_keys__
    store = {k: v for k, v in options.items() if k in store_keys}
    config = {k: v for k, v in options.items() if k not in store_keys}
    return cast(StoreOptions, store), cast(ConfigOptions, config)
