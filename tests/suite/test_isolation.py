"""No variable of the developer's shell reaches a test (tests/conftest.py ``clean_env``):
not the Anthropic, Claude, AWS, OpenAI, OpenTelemetry or milk settings, not a proxy; the
suite's own ``MILK_TEST_*`` stay, and boto3 is kept off the real AWS in every test."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SHELL = {
    "ANTHROPIC_BASE_URL": "https://api.anthropic.com",
    "ANTHROPIC_API_KEY": "sk-ant-real",
    "CLAUDE_CODE_USE_BEDROCK": "1",
    "CLAUDE_CONFIG_DIR": "/home/someone/.claude",
    "AWS_ACCESS_KEY_ID": "AKIAREAL",
    "AWS_PROFILE": "prod",
    "OPENAI_API_KEY": "sk-real",
    "OPENAI_BASE_URL": "https://api.openai.com/v1",
    "OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector.example",
    "MILK_CONFIG": "/home/someone/.config/milk/config.toml",
    "HTTPS_PROXY": "http://proxy.example:3128",
    "http_proxy": "http://proxy.example:3128",
    "no_proxy": "localhost",
    "MILK_TEST_PROBE": "kept",
}


PROBE = """
import os
from pathlib import Path

LEAKY = {leaky!r}


def test_nothing_of_the_shell_is_in_a_test(tmp_path, milk_home):
    assert sorted(k for k in LEAKY if k in os.environ) == []
    assert os.environ["MILK_TEST_PROBE"] == "kept"
    assert os.environ["AWS_EC2_METADATA_DISABLED"] == "true"
    assert Path(os.environ["AWS_CONFIG_FILE"]).is_relative_to(tmp_path)
    assert os.environ["MILK_HOME"] == str(milk_home)
"""


def test_a_shell_full_of_real_endpoints_reaches_no_test(tmp_path: Path) -> None:
    """A pytest run with the suite's conftest, from a shell holding every kind of leaky
    variable: inside the test none is left but the suite's own ``MILK_TEST_*``."""
    leaky = sorted(k for k in SHELL if k != "MILK_TEST_PROBE")
    (tmp_path / "test_probe.py").write_text(PROBE.format(leaky=leaky))
    env = {**os.environ, **SHELL, "PYTHONPATH": str(REPO / "tests")}
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:randomly",
         "-p", "no:cacheprovider", "test_probe.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "1 passed" in r.stdout


def test_this_test_has_no_leaky_variable_either(tmp_path: Path) -> None:
    assert [k for k in os.environ if k in SHELL] == []
    assert Path(os.environ["AWS_SHARED_CREDENTIALS_FILE"]).is_relative_to(tmp_path)
