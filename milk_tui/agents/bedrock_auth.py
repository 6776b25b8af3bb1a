"""AWS credentials for the Bedrock agent: config keys, the default chain, ``aws_refresh_cmd``.

Kept apart from the agent so the rules about credentials live in one place: they are held
in a repr-less object, never formatted into messages, and every one of them is registered
with ``redact``, which scrubs any text that came back from AWS before it reaches an error or
the wire log.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from urllib.parse import urlparse

from milk_tui.agents.base import AgentError
from milk_tui.agents.credential_cmd import CredentialCommand
from milk_tui.agents.redact import Redactor
from milk_tui.config.settings import AgentConfig

DEFAULT_REGION = "us-east-1"
"""Last resort when neither config, env nor the endpoint host name a region (botocore needs one)."""

REFRESH_TIMEOUT_S = 60.0
"""aws_refresh_cmd may open a browser/SSO flow; a minute is generous but still bounded."""

PROFILE_CREDENTIAL_KEYS = (
    "aws_access_key_id",
    "credential_process",
    "sso_session",
    "sso_start_url",
    "role_arn",
    "web_identity_token_file",
    "credential_source",
)
"""A shared-config profile holding any of these can yield credentials without us probing them."""

ENV_CREDENTIAL_HINTS = (
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
)


@dataclass
class AwsCredentials:
    key_id: str = field(repr=False)
    secret: str = field(repr=False)
    token: str = field(default="", repr=False)


def resolve_region(config: AgentConfig) -> str:
    """aws_region → AWS_REGION → AWS_DEFAULT_REGION → endpoint host label → us-east-1."""
    if config.aws_region:
        return config.aws_region
    for var in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        if os.environ.get(var):
            return os.environ[var]
    host = urlparse(config.endpoint_url or config.url).hostname or ""
    labels = host.split(".")
    if len(labels) >= 3 and labels[0].startswith("bedrock"):
        return labels[1]
    return DEFAULT_REGION


class BedrockAuth:
    """Which credentials the next client is built with.

    ``None`` static credentials means boto3's default chain (env, shared files, SSO,
    container/instance roles).  A successful ``refresh`` pins the command's output.
    """

    def __init__(self, config: AgentConfig) -> None:
        self._config = config
        self.redact = Redactor(config.aws_key_id, config.aws_secret, config.aws_token)
        self.static: AwsCredentials | None = None
        if config.aws_key_id and config.aws_secret:
            self.static = AwsCredentials(config.aws_key_id, config.aws_secret, config.aws_token)
        self.who = f"bedrock agent '{config.name}'"
        self._refresh_cmd = CredentialCommand(
            config.aws_refresh_cmd,
            setting="aws_refresh_cmd",
            who=self.who,
            agent=config.name,
            redact=self.redact,
            timeout=REFRESH_TIMEOUT_S,
            shell=False,
            quote_stderr=True,
        )
        self.generation = 0
        """Bumped on every refresh so the agent knows to rebuild its client."""

    @property
    def can_refresh(self) -> bool:
        return bool(self._config.aws_refresh_cmd.strip())

    def client_kwargs(self) -> dict[str, str]:
        if self.static is None:
            return {}
        kw = {"aws_access_key_id": self.static.key_id, "aws_secret_access_key": self.static.secret}
        if self.static.token:
            kw["aws_session_token"] = self.static.token
        return kw

    def resolvable(self) -> bool:
        """Could a client find credentials?  Deliberately no network and no subprocess.

        Instance-metadata (IMDS) roles are not probed — that is a network round trip with
        second-long timeouts; on EC2 set AWS_* env vars, a profile or ``aws_refresh_cmd``.
        """
        if self.static is not None or self.can_refresh:
            return True
        if os.environ.get("AWS_ACCESS_KEY_ID") and os.environ.get("AWS_SECRET_ACCESS_KEY"):
            return True
        if any(os.environ.get(v) for v in ENV_CREDENTIAL_HINTS):
            return True
        return _profile_has_credentials()

    async def refresh(self) -> None:
        """Run ``aws_refresh_cmd`` and adopt the credentials in the JSON it prints."""
        out = await self._refresh_cmd.run()
        where = f"{self.who}: aws_refresh_cmd"
        try:
            data = json.loads(out)
            creds = AwsCredentials(
                str(data["AccessKeyId"]),
                str(data.get("SecretAccessKey", "")),
                str(data.get("SessionToken", "")),
            )
        except (ValueError, KeyError, TypeError):
            raise AgentError(
                f"{where} did not print JSON with AccessKeyId", agent=self._config.name
            ) from None
        for secret in (creds.key_id, creds.secret, creds.token):
            self.redact.add(secret)
        if not creds.key_id or not creds.secret:
            raise AgentError(f"{where} printed empty credentials", agent=self._config.name)
        self.static = creds
        self.generation += 1


def _profile_has_credentials() -> bool:
    try:
        import botocore.session

        session = botocore.session.Session()
        profile = session.get_config_variable("profile") or "default"
        conf = session.full_config.get("profiles", {}).get(profile, {})
    except Exception:  # a broken ~/.aws/config must not crash an availability check
        return False
    return any(conf.get(k) for k in PROFILE_CREDENTIAL_KEYS)
