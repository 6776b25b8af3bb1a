"""Routing, degradation and the Bedrock agent run in an AWS-free environment; the fake
Bedrock server that real boto3 talks to is ``fake_bedrock`` (both in tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _aws_free(no_real_aws: None) -> None:
    """No test here may read the developer's ~/.aws or env credentials, or probe IMDS."""
