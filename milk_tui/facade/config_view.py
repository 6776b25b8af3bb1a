"""The config in use as a user may print it (``milk-tui config show``): every value as
loaded, each secret written ``***`` — the agent keys, credential headers and environment
values, ``token_cmd`` lines, and the password of any URL (docs/adr/0015-no-secret-on-disk.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from milk_tui.agents.redact import MASK, mask_url_userinfo
from milk_tui.config.load import load_config
from milk_tui.config.secrets import is_credential_header


def _masked(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: (MASK if isinstance(v, str) and v and is_credential_header(str(k)) else _masked(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_masked(v) for v in value]
    if isinstance(value, str):
        return mask_url_userinfo(value)
    return value


def shown_config(path: Path | None) -> tuple[dict[str, Any], list[str], Path | None]:
    """(the config with secrets masked, the load's warnings, the file used or None)."""
    cfg, warnings, used = load_config(path, skip_broken_file=True)
    return _masked(cfg.model_dump(mode="json")), warnings, used
