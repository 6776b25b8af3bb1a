"""Snapshots of the local-server lines: ``/server status`` and the countdown while an
agent's ``run_cmd`` server starts (SVGs in snapshots/tui/test_snapshots_servers/)."""

from __future__ import annotations

from milk_tui.config.settings import AgentConfig, MilkConfig
from tui.conftest import make_app
from tui.snapshot_base import SnapshotCase, ev, publish, send

SMOL = AgentConfig(
    name="smol",
    provider="local",
    url="http://127.0.0.1:8080",
    run_cmd="llama-server -m ~/models/smollm2.gguf --port 8080",
)


class TestServers(SnapshotCase):
    def test_server_status(self) -> None:
        app = make_app(config=MilkConfig(agents=[SMOL]))
        assert self.shot(send("/server status"), app=app)

    def test_countdown_while_the_server_starts(self) -> None:
        assert self.shot(
            publish(
                ev.TurnStarted(prompt="explain the parser", turn_index=1),
                ev.ServerStarting(
                    agent="smol",
                    url=SMOL.url,
                    log="/tmp/milk-snap/servers/smol.log",
                    timeout_s=60,
                    pid=4242,
                ),
                ev.ServerCountdown(agent="smol", remaining_s=57),
            )
        )
