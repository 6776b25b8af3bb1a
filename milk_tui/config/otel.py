"""The ``otel`` config key: OpenTelemetry export of turns and tool calls over OTLP/HTTP.

A Go milk ``config.json`` always writes an ``otel`` object (its local JSONL exporters:
``log_level``, ``warn_mb``, …); it loads unchanged and, at Go's default values, quietly.
Those file-exporter keys set to anything else are named in one warning each, since
milk-tui writes no local telemetry files (docs/adr/0028-day-one-commands-and-otel.md).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class OtelConfig(BaseModel):
    model_config = ConfigDict(extra="allow")
    enabled: bool = True
    """Off: nothing is exported even with an endpoint (a Go config writes ``true``)."""
    endpoint: str = ""
    """OTLP/HTTP collector base URL (``http://localhost:4318``); spans go to ``/v1/traces``.
    Empty: no export, and the OpenTelemetry SDK is never imported."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Sent with every export (an ingest key, ``Authorization``)."""
    traces: bool = True
    """Go's switch for traces; ``false`` turns the span export off."""
    service_name: str = "milk-tui"
    """The ``service.name`` resource attribute."""
    timeout_secs: float = 5.0
    """One export's deadline; a collector that does not answer never delays a turn."""

    @property
    def active(self) -> bool:
        """Spans are exported: an endpoint is set and neither switch is off."""
        return bool(self.endpoint.strip()) and self.enabled and self.traces

    def traces_url(self) -> str:
        base = self.endpoint.strip().rstrip("/")
        return base if base.endswith("/v1/traces") else base + "/v1/traces"


GO_FILE_KEYS: dict[str, tuple[Any, ...]] = {
    "log_level": ("INFO",),
    "metrics": (True,),
    "warn_mb": (50,),
    "max_mb": (0,),
    "metrics_flush_minutes": (5,),
    "log_format": ("", "text"),
    "log_context": ("",),
    "pre_debug_log_level": ("",),
}
"""Go's local-file exporter keys and the values a Go config writes by default (any of
them asks for nothing): accepted, not used here."""


def otel_warnings(where: str, data: object) -> list[str]:
    """Warnings for an ``otel`` object as written in a config file (a wrong type is the
    validation's error, not a warning)."""
    data = data if isinstance(data, dict) else {}
    go_set = [k for k, v in data.items() if k in GO_FILE_KEYS and v and v not in GO_FILE_KEYS[k]]
    unknown = [k for k in data if k not in GO_FILE_KEYS and k not in OtelConfig.model_fields]
    return [
        f"{where}: otel.{k} is not used (milk-tui writes no local OTel files)" for k in go_set
    ] + [f"{where}: unknown key 'otel.{k}' ignored" for k in unknown]
