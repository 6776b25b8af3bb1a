"""The built wheel installed in a clean venv (no checkout on the path), as ``pipx install`` /
``uv tool install`` would: ``--version``, ``--help`` and a ``-p`` turn against the fake
OpenAI server, and the package data (themes, TCSS) inside the wheel.

Offline: the wheel is built without build isolation from the test venv's setuptools and
wheel (the ``test`` extra).  Its dependencies come from local wheel folders when the machine
has them (``--no-index --find-links``); otherwise the clean venv is given the test venv's
installed dependencies through a ``.pth`` line and the wheel is installed without them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from milk_tui.testing.fake_openai import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
LOCAL_WHEELS = [Path(p) for p in ("/opt/pypi/files", "/opt/pypi-more/files", "/opt/wheels")]
pytestmark = pytest.mark.timeout(600)


def _build(tmp: Path) -> Path:
    src = tmp / "src"
    for name in ("milk_tui", "themes"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp / "dist"), str(src)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    (wheel,) = (tmp / "dist").glob("milk_tui-*.whl")
    return wheel


def _install(tmp: Path, wheel: Path) -> Path:
    env_dir = tmp / "clean"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    links = [a for d in LOCAL_WHEELS if d.is_dir() for a in ("--find-links", str(d))]
    base = [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index"]
    r = subprocess.run([*base, "--find-links", str(wheel.parent), *links, str(wheel)],
                       capture_output=True, text=True, timeout=400)  # fmt: skip
    if r.returncode != 0:  # no local wheels of the dependencies on this machine
        r = subprocess.run([*base, "--no-deps", str(wheel)], capture_output=True, text=True,
                           timeout=120)  # fmt: skip
        assert r.returncode == 0, r.stderr
        site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
        # only the dependencies: a plain path line does not run the test venv's own .pth
        # files, so its editable milk_tui (the checkout) stays out of reach
        (Path(site) / "test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return env_dir


def _clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    return {**env, "MILK_HOME": str(home), "PATH": "/usr/bin:/bin"}


def test_the_wheel_installs_and_runs_in_a_clean_venv(tmp_path: Path) -> None:
    wheel = _build(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    for data in ("milk_tui/themes/milk-dark.toml", "milk_tui/themes/milk-light.toml",
                 "milk_tui/tui/screens/main.tcss", "milk_tui/eval/__init__.py"):  # fmt: skip
        assert data in names, data
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "Requires-Dist: psutil" in meta
    env_dir = _install(tmp_path, wheel)
    exe = env_dir / "bin" / "milk-tui"
    home = tmp_path / "home"
    home.mkdir()
    env = _clean_env(home)
    elsewhere = tmp_path / "elsewhere"  # not the checkout: nothing imports from the repo
    elsewhere.mkdir()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(exe), *args], cwd=elsewhere, env=env, capture_output=True,
                              text=True, timeout=120)  # fmt: skip

    where = subprocess.run([str(env_dir / "bin" / "python"), "-c",
                            "import milk_tui, milk_tui.tui.themes as t; "
                            "print(milk_tui.__file__); print(t.builtin_dir())"],
                           cwd=elsewhere, env=env, capture_output=True, text=True)  # fmt: skip
    assert where.returncode == 0, where.stderr
    for line in where.stdout.splitlines():
        assert Path(line).is_relative_to(env_dir) and not Path(line).is_relative_to(ROOT), line
    r = run("--version")
    assert r.returncode == 0 and r.stdout.startswith("milk-tui 0."), (r.stdout, r.stderr)
    r = run("--help")
    assert r.returncode == 0 and "config" in r.stdout and "metrics" in r.stdout
    with FakeOpenAIServer() as llm:
        (home / "config.toml").write_text(
            f'agent = "llama"\nescalation_agent = "demo"\n[[agents]]\nname = "llama"\n'
            f'provider = "local"\nurl = "{llm.url}"\nmodel = "m"\n'
            '[[agents]]\nname = "demo"\nprovider = "demo"\n'
        )
        r = run("-p", "hello", "--primary")
    assert r.returncode == 0 and r.stdout.strip() == "Hello from the fake.", r.stderr
    assert (home / "otel" / "metrics.jsonl").exists()
