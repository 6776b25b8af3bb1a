"""Write an agent entry into the config file, or take one out, keeping everything else.

TOML goes through ``tomlkit`` so the user's comments, key order and spacing survive
(https://tomlkit.readthedocs.io); JSON (a Go milk ``config.json``) is rewritten with two-space
indentation, its other keys untouched.  The file is replaced atomically and left mode 0600:
an agent entry may hold an api_key (docs/adr/0015-no-secret-on-disk.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from milk_tui.config.load import ConfigError
from milk_tui.config.paths import config_dir, ensure_dir, write_private
from milk_tui.model.errors import StorageError

NEW_FILE_HEADER = "# milk-tui configuration (keys: docs/interfaces.md)\n"


def target_file(used: Path | None) -> Path:
    """The file an edit goes to: the one in use, else ``config.toml`` in the config dir."""
    if used is not None:
        return used
    try:
        return ensure_dir(config_dir()) / "config.toml"
    except StorageError as e:
        raise ConfigError(str(e)) from None


def _is_toml(path: Path) -> bool:
    return path.suffix.lower() == ".toml"


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read config file ({e})") from None


def _write(path: Path, text: str) -> None:
    """Replace ``path`` in one rename, 0600 from the first byte."""
    try:
        write_private(path, text)
    except OSError as e:
        raise ConfigError(f"{path}: cannot write config file ({e.strerror or e})") from None


def _clean(entry: dict[str, Any]) -> dict[str, Any]:
    """Only the keys that say something (an empty field keeps its default on load)."""
    return {k: v for k, v in entry.items() if v not in ("", None, [], {})}


def add_agent(path: Path, entry: dict[str, Any]) -> None:
    """Append ``entry`` to ``agents`` in ``path`` (created when missing)."""
    entry = _clean(entry)
    text = _read_text(path)
    if _is_toml(path):
        import tomlkit

        try:
            doc = tomlkit.parse(text or NEW_FILE_HEADER)
        except tomlkit.exceptions.ParseError as e:
            raise ConfigError(f"{path}: invalid TOML: {e}") from None
        agents = doc.get("agents")
        table = tomlkit.table()
        table.update(entry)
        if agents is None:
            aot = tomlkit.aot()
            aot.append(table)
            doc["agents"] = aot
        else:
            agents.append(table if isinstance(agents, tomlkit.items.AoT) else entry)
        _write(path, tomlkit.dumps(doc))
        return
    data = _json_object(path, text)
    agents = data.setdefault("agents", [])
    if not isinstance(agents, list):
        raise ConfigError(f"{path}: key 'agents': expected a list")
    agents.append(entry)
    _write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def remove_agent(path: Path, name: str) -> bool:
    """Take the entry named ``name`` (any case) out of ``agents``; False when none is."""
    text = _read_text(path)
    if _is_toml(path):
        import tomlkit

        try:
            doc = tomlkit.parse(text)
        except tomlkit.exceptions.ParseError as e:
            raise ConfigError(f"{path}: invalid TOML: {e}") from None
        agents = doc.get("agents")
        index = _index_of(agents, name)
        if agents is None or index is None:
            return False
        del agents[index]
        if not len(agents):
            del doc["agents"]
        _drop_selectors(doc, name)
        _write(path, tomlkit.dumps(doc))
        return True
    data = _json_object(path, text)
    index = _index_of(data.get("agents"), name)
    if index is None:
        return False
    del data["agents"][index]
    _drop_selectors(data, name)
    _write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return True


def _drop_selectors(doc: Any, name: str) -> None:
    """``agent`` / ``escalation_agent`` naming the removed entry go with it: the next start
    then runs the slot as if it had never been chosen, instead of warning about a name."""
    for key in ("agent", "escalation_agent"):
        if str(doc.get(key, "")).lower() == name.lower():
            del doc[key]


def _index_of(agents: Any, name: str) -> int | None:
    if not isinstance(agents, list):
        return None
    for i, a in enumerate(agents):
        if isinstance(a, dict) and str(a.get("name", "")).lower() == name.lower():
            return i
    return None


def _json_object(path: Path, text: str) -> dict[str, Any]:
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}: invalid JSON at line {e.lineno}: {e.msg}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected an object at the top level")
    return data


def set_key(path: Path, key: str, value: Any) -> None:
    """Set the top-level ``key`` to ``value`` in ``path`` (created when missing), keeping
    everything else (``/colorize``, ``/bash allow``)."""
    text = _read_text(path)
    if _is_toml(path):
        import tomlkit

        try:
            doc = tomlkit.parse(text or NEW_FILE_HEADER)
        except tomlkit.exceptions.ParseError as e:
            raise ConfigError(f"{path}: invalid TOML: {e}") from None
        if key in doc:
            doc[key] = value
        else:  # a new top-level key must come before the first table, or it joins that table
            body = tomlkit.document()
            body[key] = value
            doc = tomlkit.parse(_before_tables(tomlkit.dumps(doc), tomlkit.dumps(body)))
        _write(path, tomlkit.dumps(doc))
        return
    data = _json_object(path, text)
    data[key] = value
    _write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _before_tables(doc: str, line: str) -> str:
    """``line`` inserted before the first ``[table]`` header of ``doc`` (at its end if none)."""
    lines = doc.splitlines(keepends=True)
    for i, ln in enumerate(lines):
        if ln.lstrip().startswith("["):
            return "".join(lines[:i]) + line + "".join(lines[i:])
    return doc + ("" if not doc or doc.endswith("\n") else "\n") + line


def set_remote_oversight(path: Path, telegram: dict[str, Any], backend: str = "telegram") -> None:
    """Set ``remote_oversight.backend`` (``""`` switches it off) and these ``telegram`` keys
    (token, chat_id), keeping the block's other keys; the file stays 0600 (the token)."""
    text = _read_text(path)
    if _is_toml(path):
        import tomlkit

        try:
            doc = tomlkit.parse(text or NEW_FILE_HEADER)
        except tomlkit.exceptions.ParseError as e:
            raise ConfigError(f"{path}: invalid TOML: {e}") from None
        block = doc.get("remote_oversight")
        if not isinstance(block, dict):
            block = tomlkit.table()
            doc["remote_oversight"] = block
        block["backend"] = backend
        inner = block.get("telegram")
        if not isinstance(inner, dict):
            inner = tomlkit.table()
            block["telegram"] = inner
        inner.update(telegram)
        _write(path, tomlkit.dumps(doc))
        return
    data = _json_object(path, text)
    block = data.get("remote_oversight")
    block = block if isinstance(block, dict) else {}
    block["backend"] = backend
    inner = block.get("telegram")
    block["telegram"] = {**(inner if isinstance(inner, dict) else {}), **telegram}
    data["remote_oversight"] = block
    _write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
