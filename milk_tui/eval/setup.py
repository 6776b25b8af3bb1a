"""What a run needs before it starts: the user's config file and the agents it names."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from milk_tui.config.errors import ConfigError
from milk_tui.config.load import load_config
from milk_tui.config.paths import resolve_config_file
from milk_tui.eval.records import RunInfo


def user_config(given: str | None) -> str | None:
    """``--config``, else the file a plain ``milk-tui`` would read (found before the runs'
    own ``MILK_HOME`` hides it); None: the defaults."""
    if given:
        return given
    found, _ = resolve_config_file()
    return str(found) if found else None


def run_info(
    started: float, modes: list[str], scenarios_dir: str, config_path: str | None
) -> RunInfo:
    """``ValueError`` with one line when the config cannot be read."""
    try:
        config = load_config(config_path)[0]
    except (ConfigError, OSError) as e:
        raise ValueError(
            str(e).splitlines()[0] if str(e) else "the config cannot be read"
        ) from None
    primary = config.primary_agent()
    return RunInfo(
        started=started,
        modes=modes,
        scenarios_dir=scenarios_dir,
        primary=primary.name if primary else "",
        escalation=config.escalation_agent_config().name,
        milk_tui_version=_version(),
    )


def _version() -> str:
    try:
        return version("milk-tui")
    except PackageNotFoundError:
        return ""
