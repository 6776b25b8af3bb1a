"""Fixtures for routing, degradation and the Bedrock agent: an AWS-free environment and
a fake Bedrock server that real boto3 talks to."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from milk_tui.testing.fake_bedrock import FakeBedrock


@pytest.fixture(autouse=True)
def no_real_aws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may read the developer's ~/.aws or env credentials, or probe IMDS."""
    for k in list(os.environ):
        if k.startswith("AWS_"):
            monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture
def fake_bedrock() -> Iterator[FakeBedrock]:
    with FakeBedrock() as fake:
        yield fake
