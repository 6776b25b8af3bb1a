"""The application's smaller facades, each made for the live session when asked for.

``Application.mcp``, ``.tasks``, ``.servers`` … are ``Service`` attributes: each access
builds a light view over the runtime as it is now (the live session, the current config),
so a session switch or a config reload never leaves a stale one behind.  Their modules
load on first use, not with the application.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from milk_tui.engine.runtime import Runtime

if TYPE_CHECKING:
    from milk_tui.facade.mcp import McpServers
    from milk_tui.facade.metrics import LocalMetrics
    from milk_tui.facade.permissions import FolderPermissions
    from milk_tui.facade.project_trust import FolderTrust
    from milk_tui.facade.servers import Servers
    from milk_tui.facade.tasks import Tasks
    from milk_tui.facade.transcript import SessionTranscript
    from milk_tui.facade.usage import UsageReport

T = TypeVar("T")


class Service(Generic[T]):
    """A read-only attribute whose value ``make(owner.runtime)`` builds at each access."""

    def __init__(self, make: Callable[[Runtime], T]) -> None:
        self._make = make
        self.__doc__ = make.__doc__

    @overload
    def __get__(self, obj: None, owner: type) -> Service[T]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> T: ...
    def __get__(self, obj: Any, owner: type) -> Service[T] | T:
        if obj is None:
            return self
        runtime: Runtime = obj.runtime
        return self._make(runtime)


def mcp(rt: Runtime) -> McpServers:
    """The configured MCP servers: state, tools, ``/mcp`` actions."""
    from milk_tui.facade.mcp import McpServers

    return McpServers(rt.dispatcher.state.mcp)


def tasks(rt: Runtime) -> Tasks:
    """The live session's task list and the global one (``/tasks``, the tasks pane)."""
    from milk_tui.facade.tasks import Tasks

    board = rt.dispatcher.state.tasks
    assert board is not None  # the dispatcher always makes one
    return Tasks(board.store, rt.dispatcher.session.id, board.publish)


def servers(rt: Runtime) -> Servers:
    """The agents' ``run_cmd`` servers: state, ``/server start|stop``."""
    from milk_tui.facade.servers import Servers

    return Servers(rt.local_servers(), lambda: list(rt.config.agents))


def transcript(rt: Runtime) -> SessionTranscript:
    """The live session as a document (``/export``) and its last exchange (``/drop``)."""
    from milk_tui.facade.transcript import SessionTranscript

    return SessionTranscript(rt.dispatcher)


def local_metrics(rt: Runtime) -> LocalMetrics:
    """The local metrics file (``/metrics``, ``/otel trim``)."""
    from milk_tui.facade.metrics import LocalMetrics

    return LocalMetrics(rt.config.otel, rt.metrics)


def usage(rt: Runtime) -> UsageReport:
    """Token usage of this session, this folder and all time (``/usage``)."""
    from milk_tui.facade.usage import UsageReport

    return UsageReport(rt.db, rt.dispatcher.cwd, rt.dispatcher.session.id)


def permissions(rt: Runtime) -> FolderPermissions:
    """This folder's stored grants and the session's skip-permissions switch."""
    from milk_tui.facade.permissions import FolderPermissions

    broker = rt.dispatcher.permissions
    return FolderPermissions(broker.grants, rt.dispatcher.cwd, broker)


def project_trust(rt: Runtime) -> FolderTrust:
    """The folder's own Claude settings files: which to ask about, which are ignored."""
    from milk_tui.facade.project_trust import FolderTrust

    d = rt.dispatcher
    cli = d.escalation is not None and d.escalation.is_cli
    return FolderTrust(d.permissions.trust, d.cwd, cli)
