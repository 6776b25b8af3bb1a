"""Suite-wide fixtures: an isolated MILK_HOME per test and a dispatcher on scripted agents."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from dispatch_rig import Rig
from peer_missing import is_peer_missing, skip_peer_missing

from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.fake_anthropic import FakeAnthropic, claude_env, find_claude_bin
from milk_tui.testing.fake_bedrock import FakeBedrock

REPO = Path(__file__).resolve().parent.parent


# ----- the environment: nothing of the developer's shell reaches a test -------------------

LEAKY_PREFIXES = ("ANTHROPIC_", "CLAUDE_", "AWS_", "OPENAI_", "OTEL_", "MILK_")
"""Variables that could point the app, the real Claude CLI, boto3 or the OpenTelemetry
exporter at a real endpoint or a real account (``CLAUDE_`` covers ``CLAUDE_CODE_``)."""
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
TERMINAL_SIZE = ("COLUMNS", "LINES")
"""pytest-xdist's workers run with ``COLUMNS=80 LINES=24``, and Textual takes a size from
them over the terminal's: an app started in a 160-column tmux pane drew 80 columns."""
KEPT_PREFIX = "MILK_TEST_"
"""The suite's own settings (``MILK_TEST_CLAUDE_BIN`` from scripts/test) are kept."""


def leaky(name: str) -> bool:
    """True for a variable no test may inherit from the shell that runs pytest."""
    if name.startswith(KEPT_PREFIX):
        return False
    return name.upper() in PROXY_VARS or name in TERMINAL_SIZE or name.startswith(LEAKY_PREFIXES)


def aws_isolation(tmp: Path) -> dict[str, str]:
    """boto3 reads no ~/.aws file and never probes the instance-metadata endpoint."""
    return {
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp / "no-aws-credentials"),
        "AWS_CONFIG_FILE": str(tmp / "no-aws-config"),
        "AWS_EC2_METADATA_DISABLED": "true",
    }


def pytest_configure(config: pytest.Config) -> None:
    """Once per process (the controller and each xdist worker), before any fixture:
    session-scoped servers and peers start without the shell's variables too."""
    for name in [k for k in os.environ if leaky(k)]:
        del os.environ[name]


def under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Under CI a real-peer test skipped because its peer is missing FAILS: the run would
    otherwise pass without testing what it claims to (tests/peer_missing.py)."""
    report: pytest.TestReport = yield
    if report.skipped and under_ci() and isinstance(report.longrepr, tuple):
        skip_reason = str(report.longrepr[2])
        if is_peer_missing(skip_reason):
            report.outcome = "failed"
            report.longrepr = f"{skip_reason} (CI is set: a missing peer fails the run)"
    return report


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """pytest-randomly shuffles the tests (so that one leaning on another's leftovers is
    found); ``-q`` hides its header, so the seed that reproduces this order is said here."""
    seed = getattr(terminalreporter.config.option, "randomly_seed", None)
    if isinstance(seed, int):
        terminalreporter.write_line(f"tests shuffled: this order again with --randomly-seed={seed}")


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Again for every test (a test or a library may have set one since), and boto3 is
    isolated from the real AWS in every test, fake-Bedrock or not."""
    for name in [k for k in os.environ if leaky(k)]:
        monkeypatch.delenv(name)
    aws_dir = tmp_path / "no-aws"
    aws_dir.mkdir()
    for name, value in aws_isolation(aws_dir).items():
        monkeypatch.setenv(name, value)


@pytest.fixture(autouse=True)
def milk_home(clean_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own config/data folder; nothing touches the real user dirs."""
    home = tmp_path / "milk-home"
    home.mkdir()
    monkeypatch.setenv("MILK_HOME", str(home))
    monkeypatch.setenv("MILK_DEMO_PACE", "0")
    yield home


@pytest.fixture
def private_tmpdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own temp dir, for the app's ``tempfile`` files and its subprocesses'
    ``TMPDIR``: a check that a temp file is gone looks here, not at the shared /tmp where
    another worker's test writes the same kind of file."""
    own = tmp_path / "tmp"
    own.mkdir()
    monkeypatch.setenv("TMPDIR", str(own))
    monkeypatch.setattr(tempfile, "tempdir", str(own))
    return own


@pytest.fixture
def db(milk_home: Path) -> Iterator[Database]:
    d = Database(milk_home / "milk.db")
    yield d
    d.close()


@pytest.fixture
def store(db: Database) -> SessionStore:
    return SessionStore(db)


@pytest.fixture
def rig(store: SessionStore, tmp_path: Path) -> Rig:
    return Rig(store, tmp_path)


# ----- the fake Anthropic server and the real Claude CLI (escalation and agent-key tests) --
@pytest.fixture
def fake_anthropic() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as srv:
        yield srv


@pytest.fixture
def claude_bin() -> str:
    found = find_claude_bin()
    if not found:
        skip_peer_missing("the real Claude CLI (npm install @anthropic-ai/claude-code)")
    return found


@pytest.fixture
def real_claude_env(tmp_path: Path, fake_anthropic: FakeAnthropic) -> dict[str, str]:
    return claude_env(tmp_path, fake_anthropic.url)


# ----- an AWS-free environment and a fake Bedrock server that real boto3 talks to ----------


@pytest.fixture
def no_real_aws(clean_env: None) -> None:
    """No test may read the developer's ~/.aws or env credentials, or probe IMDS: every
    test has this through ``clean_env``; the name stays for the tests that say so."""


@pytest.fixture
def fake_bedrock(no_real_aws: None) -> Iterator[FakeBedrock]:
    with FakeBedrock() as fake:
        yield fake
