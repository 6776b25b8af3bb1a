"""Typed configuration: a Go milk ``config.json`` loads unchanged; TOML works the same.

Precedence: ``MILK_*`` environment > file > defaults.  Per-agent ``limits`` are resolved
against the global knobs by the ``resolve_*`` helpers so callers never re-implement the
"absent → global, negative → off, zero → default" rule.  The keys are listed in
docs/interfaces.md.
"""

from __future__ import annotations

import shlex
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from milk_tui.config.agent_tools import AgentToolEntry
from milk_tui.config.defaults import (
    DEFAULT_CONTEXT_BUDGET,
    DEFAULT_MAX_TOOL_ITERATIONS,
    DEFAULT_MEMORY_REINJECTION_BYTES,
    DEFAULT_MEMORY_REINJECTION_TURNS,
    DEFAULT_MEMORY_RESULT_MAX_BYTES,
    DEFAULT_MESSAGE_BUDGET,
    DEFAULT_PERCEPT_INJECT_MAX,
    DEFAULT_PERCEPT_INJECT_MAX_BYTES,
    DEFAULT_RETURNING_FRESH_START,
    DEFAULT_TOOL_TIMEOUT_SECS,
    DEFAULT_TURN_TIMEOUT_SECS,
)
from milk_tui.config.env_overrides import overridden, with_env
from milk_tui.config.loop_detection import LoopDetection
from milk_tui.config.mcp import McpServerConfig
from milk_tui.config.otel import OtelConfig
from milk_tui.config.remote_oversight import RemoteOversightConfig

SAMPLING_KEYS = ("temperature", "top_p", "max_tokens", "seed", "stop")
"""``AgentConfig`` fields an HTTP agent sends with each request when set."""
BEARERLESS_PROVIDERS = {"", "local", "bedrock", "claude-cli", "demo", "aider-cli", "subprocess"}
EXTERNAL_PROCESS_PROVIDERS = {"claude-cli", "aider-cli", "subprocess"}
DEFAULT_CHAT_PATH = "/v1/chat/completions"
API_FORMATS = ("", "chat_completions", "responses")
COLORIZATIONS = ("off", "fenced", "balanced", "full")


class AgentLimits(BaseModel):
    model_config = ConfigDict(extra="allow")
    context_budget_chars: int | None = None
    message_budget_chars: int | None = None
    memory_reinjection_turns: int | None = None
    memory_reinjection_bytes: int | None = None
    memory_result_max_bytes: int | None = None
    percept_inject_max: int | None = None
    percept_inject_max_bytes: int | None = None
    percept_relevance_gate: bool | None = None
    max_tool_iterations: int | None = None
    returning_fresh_start_local_turns: int | None = None
    turn_timeout_secs: int | None = None
    tool_timeout_secs: int | None = None
    included_tools: list[str] | None = None
    excluded_tools: list[str] | None = None


class AgentConfig(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    provider: str = ""
    url: str = ""
    model: str = ""
    api_key: str = Field(default="", repr=False)
    token_cmd: str = ""
    headers: dict[str, str] = Field(default_factory=dict)
    chat_path: str = DEFAULT_CHAT_PATH
    api_format: str = ""
    """"responses": speak the OpenAI Responses API, POSTing to ``chat_path`` when set to
    another path than the chat default, else to /v1/responses; "" or "chat_completions":
    chat completions."""
    reasoning: dict[str, Any] | None = None
    """Responses API only: the request's ``reasoning`` object, e.g. ``{"effort": "low",
    "summary": "auto"}`` (OpenAI streams reasoning summaries only when asked)."""
    bin: str = ""
    dangerously_skip_permissions: bool = False
    allowed_tools: list[str] = Field(default_factory=list)
    add_dirs: list[str] = Field(default_factory=list)
    aws_region: str = ""
    aws_key_id: str = Field(default="", repr=False)
    aws_secret: str = Field(default="", repr=False)
    aws_token: str = Field(default="", repr=False)
    aws_refresh_cmd: str = ""
    endpoint_url: str = ""
    """Bedrock only: override the service endpoint (tests, VPC endpoints)."""
    prompt: str = ""
    """A custom system prompt put before the role prompt; ``{{milk:memory}}``,
    ``{{milk:need}}``, ``{{milk:escalation}}`` and ``{{milk:tools}}`` are filled in."""
    prompt_file: str = ""
    """A file holding the custom prompt (``~`` expanded, relative to the working folder);
    wins over ``prompt``."""
    system_prompt_tier: Literal["minimal", "standard", "full"] = "standard"
    """How much guidance the built-in role prompt carries (engine/prompts.py)."""
    extra_args: list[str] = Field(default_factory=list)
    """claude-cli / aider-cli: more command-line arguments (a string is split like a shell)."""
    settings: dict[str, Any] | None = None
    """claude-cli: a settings object written to a temp file and passed as ``--settings``."""
    tls_ca_cert: str = ""
    """HTTP agents: a PEM file of CA certificates to trust (with the system ones)."""
    aws_service: str = "bedrock"
    """Bedrock: the SigV4 signing name of the endpoint."""
    prompt_caching: bool = False
    """Bedrock: mark the end of the system prompt as a cache point."""
    action_type: str = "code"
    """subprocess: the smolagents action type (``code`` or ``tool_calling``)."""
    model_type: str = "OpenAIModel"
    """subprocess: the smolagents model class."""
    smolagent_tools: list[str] = Field(default_factory=list)
    """subprocess: smolagents tools to enable."""
    max_steps: int = 15
    """subprocess: the smolagents step limit."""
    authorized_imports: list[str] = Field(default_factory=list)
    """subprocess: modules the smolagents code action may import."""
    context_window_tokens: int = 0
    tls_skip_verify: bool = False
    timeout_secs: float = 60.0
    """Seconds without a byte from an HTTP backend before the turn fails."""
    limits: AgentLimits = Field(default_factory=AgentLimits)
    tools: list[AgentToolEntry] = Field(default_factory=list)
    """This agent's own ``agent_tools`` entries (config/agent_tools.py)."""
    mcp_servers: list[str] | None = None
    """Names of the ``mcp_servers`` entries this agent gets (None: every enabled one)."""
    temperature: float | None = None
    """Sampling temperature sent with each request (HTTP agents; None: the server's)."""
    top_p: float | None = None
    """Nucleus sampling sent with each request (HTTP agents)."""
    max_tokens: int | None = None
    """Cap on a reply's tokens sent with each request (HTTP agents)."""
    seed: int | None = None
    """Sampling seed sent with each request (HTTP agents)."""
    stop: str | list[str] | None = None
    """Stop sequence(s) sent with each request (HTTP agents)."""

    @field_validator("system_prompt_tier", mode="before")
    @classmethod
    def _norm_tier(cls, v: Any) -> Any:
        return (v.strip().lower() or "standard") if isinstance(v, str) else v

    @field_validator("extra_args", mode="before")
    @classmethod
    def _split_extra_args(cls, v: Any) -> Any:
        return shlex.split(v) if isinstance(v, str) else v  # a Go config holds one string

    @field_validator("aws_service", mode="before")
    @classmethod
    def _default_service(cls, v: Any) -> Any:
        return v or "bedrock"

    run_cmd: str = ""
    """Shell command (``sh -c``) that starts this agent's server when its URL does not answer."""
    run_cmd_timeout_secs: float = 60.0
    """Seconds ``run_cmd``'s server gets to answer before its process group is killed."""
    run_cmd_keep: bool = False
    """Leave a server milk-tui started running when milk-tui exits."""
    vision: bool = True
    """False: the agent cannot see images; an attached image goes as a one-line note."""

    @field_validator("provider")
    @classmethod
    def _norm_provider(cls, v: str) -> str:
        return (v or "").strip().lower()

    @field_validator("api_format")
    @classmethod
    def _check_api_format(cls, v: str) -> str:
        v = (v or "").strip().lower()
        if v not in API_FORMATS:
            raise ValueError('expected "chat_completions" or "responses"')
        return v

    @field_validator("url", "endpoint_url")
    @classmethod
    def _check_url(cls, v: str) -> str:
        v = (v or "").rstrip("/")
        if v:
            parts = urlsplit(v)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError("expected an http:// or https:// URL")
        return v

    @field_validator("timeout_secs", "run_cmd_timeout_secs")
    @classmethod
    def _positive_timeout(cls, v: float) -> float:
        if not v > 0:
            raise ValueError("must be greater than 0")
        return v

    @property
    def kind(self) -> str:
        """openai / bedrock / claude-cli / aider-cli / subprocess / demo — which adapter
        serves this entry."""
        p = self.provider
        if p in ("bedrock", "claude-cli", "aider-cli", "subprocess", "demo"):
            return p
        return "openai"

    @property
    def uses_bearer(self) -> bool:
        return self.provider not in BEARERLESS_PROVIDERS


BUILTIN_CLAUDE = AgentConfig(name="claude", provider="claude-cli", bin="claude")


class MilkConfig(BaseModel):
    # ``validate_default`` and ``arbitrary_types_allowed`` as pydantic-settings' BaseSettings
    # sets them; the environment is merged in ``__init__`` (config/env_overrides.py).
    model_config = ConfigDict(
        extra="ignore", populate_by_name=True, validate_default=True, arbitrary_types_allowed=True
    )

    def __init__(self, **data: Any) -> None:
        """The file's values (or none); ``MILK_*`` environment variables override them."""
        if overridden(type(self).model_fields):
            data = with_env(type(self), data)
        super().__init__(**data)

    agent: str = ""
    escalation_agent: str = ""
    agents: list[AgentConfig] = Field(default_factory=list)
    agent_tools: list[AgentToolEntry] = Field(default_factory=list)
    """Agents offered to the primary as tools (config/agent_tools.py)."""
    returning_fresh_start_local_turns: int = DEFAULT_RETURNING_FRESH_START
    sticky_escalation: bool = True
    context_budget_chars: int = DEFAULT_CONTEXT_BUDGET
    local_context_budget_chars: int = DEFAULT_MESSAGE_BUDGET
    percept_inject_max: int = DEFAULT_PERCEPT_INJECT_MAX
    percept_inject_max_bytes: int = DEFAULT_PERCEPT_INJECT_MAX_BYTES
    percept_relevance_gate: bool = True
    percept_store_max: int = 0
    local_max_tool_iterations: int = DEFAULT_MAX_TOOL_ITERATIONS
    local_memory_result_max_bytes: int = DEFAULT_MEMORY_RESULT_MAX_BYTES
    memory_reinjection_turns: int = DEFAULT_MEMORY_REINJECTION_TURNS
    memory_reinjection_bytes: int = DEFAULT_MEMORY_REINJECTION_BYTES
    show_reasoning: bool = False
    debug: bool = False
    theme: str = "milk-dark"
    keymap: dict[str, str] = Field(default_factory=dict)
    rules: dict[str, Any] = Field(default_factory=dict)
    classifier_fallback: str = ""
    loop_detection: LoopDetection = Field(default_factory=LoopDetection)
    mcp_servers: list[McpServerConfig] = Field(default_factory=list)
    config_editors: list[str] = Field(default_factory=list)
    """Editors tried in order by ``/config open`` and ``/open`` (then $VISUAL, $EDITOR, nano, vim, vi)."""
    otel: OtelConfig = Field(default_factory=OtelConfig)
    """OpenTelemetry export of turns and tool calls (config/otel.py)."""
    direct_bash: bool = False
    """A typed line that reads as a shell command runs in a terminal pane in the session's
    folder (engine/shell_line.py); its output goes with the next prompt."""
    direct_bash_allow: list[str] = Field(default_factory=list)
    """First words that run at once; any other recognised command asks one key first."""
    colorization: str = "balanced"
    """How replies are drawn: off (raw text), fenced (only code blocks highlighted),
    balanced (Markdown), full (Markdown with terminal links); unknown → fenced, as in Go."""
    update_check: bool = True
    """Go's key: once a day, after the TUI's first frame, ask PyPI in the background whether
    a newer milk-tui exists and say so in one line (facade/update_check.py); false: never."""
    update_url: str = "https://pypi.org/pypi/milk-tui/json"
    """Where that check asks (PyPI's JSON API; a test points it at a local server)."""

    @field_validator("direct_bash_allow", mode="before")
    @classmethod
    def _null_allow(cls, v: Any) -> Any:
        return [] if v is None else v

    @field_validator("colorization", mode="before")
    @classmethod
    def _known_colorization(cls, v: Any) -> Any:
        v = str(v or "").strip().lower()
        return v if v in COLORIZATIONS else "fenced"

    remote_oversight: RemoteOversightConfig = Field(default_factory=RemoteOversightConfig)
    """Permission questions, turn ends and prompts over a Telegram bot (Go's keys;
    config/remote_oversight.py)."""

    @field_validator("loop_detection", "otel", "remote_oversight", mode="before")
    @classmethod
    def _null_loop_detection(cls, v: Any) -> Any:
        return {} if v is None else v  # a Go config writes null for "defaults"

    # ----- agent selection: a built-in "claude" (the CLI on PATH) is always available ----

    def effective_agents(self) -> list[AgentConfig]:
        agents = list(self.agents)
        if not any(a.name.lower() == "claude" for a in agents):
            agents.append(BUILTIN_CLAUDE)
        return agents

    def find_agent(self, name: str) -> AgentConfig | None:
        for a in self.effective_agents():
            if a.name.lower() == name.lower():
                return a
        return None

    def primary_agent(self) -> AgentConfig | None:
        if self.agent:
            found = self.find_agent(self.agent)
            if found:
                return found
        for a in self.agents:
            if a.provider not in EXTERNAL_PROCESS_PROVIDERS:
                return a
        return None

    def escalation_agent_config(self) -> AgentConfig:
        return self.find_agent(self.escalation_agent or "claude") or BUILTIN_CLAUDE

    # ----- limit resolvers ------------------------------------------------------------

    @staticmethod
    def _resolve(per_agent: int | None, global_value: int, default: int) -> int:
        """absent → global; negative → 0 (off / unlimited); zero → default; positive → value."""
        v = global_value if per_agent is None else per_agent
        if v < 0:
            return 0
        return v or default

    def _limit(self, ac: AgentConfig | None, key: str, default: int) -> int:
        """``_resolve`` of the per-agent limit and the global knob that share the name ``key``."""
        per = getattr(ac.limits, key) if ac is not None else None
        return self._resolve(per, getattr(self, key), default)

    def resolve_returning_fresh_start(self, ac: AgentConfig | None) -> int:
        """0 or negative disables the turn-gap check; per-agent wins over global
        (docs/adr/0002-fresh-start-when-returning-on-stale-context.md)."""
        v = self.returning_fresh_start_local_turns
        if ac is not None and ac.limits.returning_fresh_start_local_turns is not None:
            v = ac.limits.returning_fresh_start_local_turns
        return max(v, 0)

    def resolve_context_budget(self, ac: AgentConfig | None) -> int:
        return self._limit(ac, "context_budget_chars", DEFAULT_CONTEXT_BUDGET)

    def resolve_message_budget(self, ac: AgentConfig | None) -> int:
        if ac is not None:
            if ac.limits.message_budget_chars is not None:
                return self._resolve(ac.limits.message_budget_chars, 0, DEFAULT_MESSAGE_BUDGET)
            if ac.context_window_tokens > 0:
                return ac.context_window_tokens * 3
        return self._resolve(None, self.local_context_budget_chars, DEFAULT_MESSAGE_BUDGET)

    def resolve_max_tool_iterations(self, ac: AgentConfig | None) -> int:
        if ac is not None and ac.limits.max_tool_iterations is not None:
            v = ac.limits.max_tool_iterations
            return v if v > 0 else DEFAULT_MAX_TOOL_ITERATIONS
        if self.local_max_tool_iterations > 0:
            return self.local_max_tool_iterations
        if ac is not None and ac.context_window_tokens > 0:
            return max(5, ac.context_window_tokens // 4096)
        return DEFAULT_MAX_TOOL_ITERATIONS

    def resolve_percept_inject_max(self, ac: AgentConfig | None) -> int:
        return self._limit(ac, "percept_inject_max", DEFAULT_PERCEPT_INJECT_MAX)

    def resolve_percept_inject_max_bytes(self, ac: AgentConfig | None) -> int:
        return self._limit(ac, "percept_inject_max_bytes", DEFAULT_PERCEPT_INJECT_MAX_BYTES)

    def resolve_relevance_gate(self, ac: AgentConfig | None) -> bool:
        if ac is not None and ac.limits.percept_relevance_gate is not None:
            return ac.limits.percept_relevance_gate
        return self.percept_relevance_gate

    def resolve_memory_reinjection(self, ac: AgentConfig | None) -> tuple[int, int]:
        return (
            self._limit(ac, "memory_reinjection_turns", DEFAULT_MEMORY_REINJECTION_TURNS),
            self._limit(ac, "memory_reinjection_bytes", DEFAULT_MEMORY_REINJECTION_BYTES),
        )

    def resolve_tool_timeout(self, ac: AgentConfig | None) -> float | None:
        per = ac.limits.tool_timeout_secs if ac else None
        if per is not None and per < 0:
            return None
        return float(per or DEFAULT_TOOL_TIMEOUT_SECS)

    def resolve_turn_timeout(self, ac: AgentConfig | None) -> float | None:
        """Seconds after which a turn of this agent is warned about (it goes on); None when
        ``turn_timeout_secs`` is negative (no warning)."""
        per = ac.limits.turn_timeout_secs if ac else None
        if per is not None and per < 0:
            return None
        return float(per or DEFAULT_TURN_TIMEOUT_SECS)

    def resolve_memory_result_max_bytes(self, ac: AgentConfig | None) -> int:
        """Cap of a memory tool's answer: per-agent ``memory_result_max_bytes``, else the
        global ``local_memory_result_max_bytes``; 0 means no cap."""
        per = ac.limits.memory_result_max_bytes if ac else None
        return self._resolve(
            per, self.local_memory_result_max_bytes, DEFAULT_MEMORY_RESULT_MAX_BYTES
        )
