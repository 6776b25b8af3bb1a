"""Observability: /otel."""

from __future__ import annotations

from milk_tui.tui.slash.base import SlashGroup


class TelemetryCommands(SlashGroup):
    async def cmd_otel(self, arg: str) -> None:
        if arg.strip():
            raise ValueError(
                "the export is set in the config: otel.endpoint, otel.enabled, otel.headers "
                "(docs/interfaces.md)"
            )
        st = self.facade.telemetry_status()
        if not st.active:
            why = (
                "otel.enabled or otel.traces is false"
                if st.endpoint
                else "no otel.endpoint in the config"
            )
            self.say(f"OpenTelemetry export: off ({why})")
            return
        line = f"OpenTelemetry export: on → {st.endpoint}; {st.exported} spans sent"
        if st.failed:
            line += f", {st.failed} lost (last error: {st.last_error})"
        self.say(line, "warning" if st.failed else "notice")
