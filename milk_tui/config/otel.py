"""The ``otel`` config key: local metric files, and OpenTelemetry export over OTLP/HTTP.

Each turn's figures go to a JSON-lines file in the data dir whether or not a collector is
set (``metrics``, ``warn_mb``, ``max_mb``: Go milk's names; docs/adr/0043-local-metrics-and-install.md).
A Go milk ``config.json`` always writes an ``otel`` object; it loads unchanged and, at Go's
default values, quietly.  Go's log-exporter keys set to anything else are named in one
warning each, since milk-tui writes no local log or trace files
(docs/adr/0028-day-one-commands-and-otel.md).
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
    metrics: bool = True
    """Go's switch for metrics: ``false`` writes no local metric file (``<data dir>/otel/
    metrics.jsonl``: one JSON line of figures per turn, never a prompt or a reply)."""
    warn_mb: float = Field(default=50.0, gt=0)
    """The local metric file passing this size is told once per run (``/otel trim``)."""
    max_mb: float = Field(default=0.0, ge=0)
    """The local metric file is rotated (one old file kept, ``metrics.jsonl.1``) before it
    would pass this size; ``0`` (Go's default) means twice ``warn_mb``."""

    @property
    def rotate_bytes(self) -> int:
        mb = self.max_mb if self.max_mb > 0 else 2 * self.warn_mb
        return max(1, int(mb * 1024 * 1024))

    @property
    def warn_bytes(self) -> int:
        return max(1, int(self.warn_mb * 1024 * 1024))

    @property
    def active(self) -> bool:
        """Spans are exported: an endpoint is set and neither switch is off."""
        return bool(self.endpoint.strip()) and self.enabled and self.traces

    def traces_url(self) -> str:
        base = self.endpoint.strip().rstrip("/")
        return base if base.endswith("/v1/traces") else base + "/v1/traces"


GO_FILE_KEYS: dict[str, tuple[Any, ...]] = {
    "log_level": ("INFO",),
    "metrics_flush_minutes": (5,),
    "log_format": ("", "text"),
    "log_context": ("",),
    "pre_debug_log_level": ("",),
}
"""Go's local log-exporter keys and the values a Go config writes by default (any of them
asks for nothing): accepted, not used here."""


def otel_warnings(where: str, data: object) -> list[str]:
    """Warnings for an ``otel`` object as written in a config file (a wrong type is the
    validation's error, not a warning)."""
    data = data if isinstance(data, dict) else {}
    go_set = [k for k, v in data.items() if k in GO_FILE_KEYS and v and v not in GO_FILE_KEYS[k]]
    unknown = [k for k in data if k not in GO_FILE_KEYS and k not in OtelConfig.model_fields]
    return [
        f"{where}: otel.{k} is not used (milk-tui writes no local OTel log files)" for k in go_set
    ] + [f"{where}: unknown key 'otel.{k}' ignored" for k in unknown]
