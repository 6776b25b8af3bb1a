"""``MILK_*`` environment overrides of the config, read by pydantic-settings' own
environment source — imported only when such a variable is set: the package costs ~30 ms
of start-up that a config without overrides does not need.

Same reading as a ``BaseSettings`` whose sources are (environment, init arguments): names
match case-insensitively, ``__`` reaches into a table (``MILK_LOOP_DETECTION__ENABLED``),
lists and tables are JSON, and the environment's values are merged over the file's.
"""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel

PREFIX = "MILK_"
NESTED = "__"


class EnvOverrideError(ValueError):
    """An override that cannot even be parsed (bad JSON); the message names the field as
    pydantic-settings does: ``error parsing value for field "agents" from source …``."""


def overridden(fields: dict[str, Any]) -> bool:
    """Whether any environment variable sets one of ``fields`` (or a key inside one)."""
    names = {(PREFIX + name).lower() for name in fields}
    return any(k.lower().split(NESTED, 1)[0] in names for k in os.environ)


def with_env(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (the file's values) with the environment's overrides of ``model``'s fields
    merged over it."""
    from pydantic._internal._utils import deep_update
    from pydantic_settings import EnvSettingsSource, SettingsError

    source = EnvSettingsSource(
        model,  # type: ignore[arg-type]  # the source reads only fields and model_config
        case_sensitive=False,
        env_prefix=PREFIX,
        env_nested_delimiter=NESTED,
    )
    try:
        env = source()
    except SettingsError as e:
        raise EnvOverrideError(str(e)) from e
    return deep_update(data, env)
