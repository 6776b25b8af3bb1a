"""Observability: /otel, /otel trim, /metrics."""

from __future__ import annotations

from milk_tui.tui.slash.base import SlashGroup

OTEL_USAGE = "usage: /otel [trim [DAYS]]  (the export itself is set in the config: otel.endpoint)"


class TelemetryCommands(SlashGroup):
    async def cmd_otel(self, arg: str) -> None:
        words = arg.split()
        if words and words[0].lower() == "trim" and len(words) <= 2:
            await self._trim(words[1] if len(words) == 2 else "")
            return
        if words:
            raise ValueError(
                "the export is set in the config: otel.endpoint, otel.enabled, otel.headers "
                "(docs/interfaces.md); /otel trim [DAYS] shortens the local metrics file"
            )
        st = self.facade.telemetry_status()
        local = self.facade.local_metrics
        where = f"local metrics: {local.path}" if local.enabled else "local metrics: off"
        if not st.active:
            why = (
                "otel.enabled or otel.traces is false"
                if st.endpoint
                else "no otel.endpoint in the config"
            )
            self.say(f"OpenTelemetry export: off ({why}); {where}")
            return
        line = f"OpenTelemetry export: on → {st.endpoint}; {st.exported} spans sent"
        if st.failed:
            line += f", {st.failed} lost (last error: {st.last_error})"
        self.say(f"{line}; {where}", "warning" if st.failed else "notice")

    async def _trim(self, days_word: str) -> None:
        from milk_tui.facade.metrics import TRIM_DAYS

        try:
            days = float(days_word) if days_word else TRIM_DAYS
        except ValueError:
            raise ValueError(OTEL_USAGE) from None
        if days < 0:
            raise ValueError(OTEL_USAGE)
        local = self.facade.local_metrics
        try:
            kept, removed = await local.atrim(days)
        except OSError as e:
            raise ValueError(f"cannot trim {local.path}: {e.strerror or e}") from None
        self.say(f"trimmed {local.path}: kept {kept} turns of the last {days:g} days, "
                 f"removed {removed}")  # fmt: skip

    async def cmd_metrics(self, arg: str) -> None:
        from milk_tui.tui.screens.metrics_screen import MetricsScreen

        if arg.strip():
            raise ValueError("usage: /metrics")
        await self.screen.app.push_screen(MetricsScreen(self.facade.local_metrics))
