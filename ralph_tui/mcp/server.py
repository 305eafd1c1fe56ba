"""The MCP server: the tools, their schemas (the API's own models) and how it is served.

Every path a client gives is checked against the server's roots, and so is every file it
leads to, where it is opened (the roots go down as the API's ``within``); every setting it
gives against what a client may set, within its bounds. A bad path, setting or session id
is the tool's error, with the same one-line message the command line prints; the server
goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from ralph_tui import api
from ralph_tui.config import Settings
from ralph_tui.errors import RalphError
from ralph_tui.estimates import RunEstimate
from ralph_tui.events import Emit, RunStatus
from ralph_tui.loops.requests import Mode
from ralph_tui.mcp.client_settings import client_values
from ralph_tui.mcp.http import HttpAccess, serve_http
from ralph_tui.mcp.progress import ProgressUpdate
from ralph_tui.mcp.roots import Roots
from ralph_tui.mcp.runs import run_reporting
from ralph_tui.mcp.slots import RunSlots
from ralph_tui.version import __version__

T = TypeVar("T")

Paths = Annotated[
    list[str],
    Field(
        description="Files, folders or globs of documents (PDF, HTML, Word, text), each inside "
        "the server's roots; a relative path is taken from the first root."
    ),
]
Urls = Annotated[
    list[str] | None,
    Field(description="External documentation to crawl and search beside the documents."),
]
SettingValues = Annotated[
    dict[str, Any] | None,
    Field(
        description="Settings for this call by name, as in the settings reference: e.g. "
        '{"max_iters": 3, "provider": "offline", "top_k": 5}. Only the settings the MCP '
        "guide lists, within their bounds (a budget may be lowered, not raised); the rest "
        "are the server's."
    ),
]

INSTRUCTIONS = (
    "ralph-tui answers questions about documents with evidence quotes checked against the "
    "text, and carries out tasks over them, in loops that validate each candidate. "
    "ask_documents and run_task run such a loop (progress is reported per iteration and "
    "phase; cancel the request to stop it). search_documents finds passages without any "
    "model. estimate says what a run would spend (expected and worst case, tokens and dollars, "
    "in each inner mode) without running it or calling a model. list_sessions and "
    "show_session read past runs."
)


@dataclass(frozen=True)
class ServerConfig:
    """What a server is started with: the folders clients may read, and the settings every
    call starts from (sessions go to their ``out_dir``)."""

    roots: Roots
    settings: Settings


def build_server(config: ServerConfig) -> MCPServer:
    """The server with its six tools."""
    server = MCPServer(
        "ralph-tui", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    out_dir = config.settings.out_dir
    slots = RunSlots(config.settings.mcp_max_runs)

    async def run(
        mode: Mode,
        query: str,
        paths: list[str],
        ctx: Context,
        *,
        urls: list[str] | None,
        settings: dict[str, Any] | None,
        decompose: bool = False,
    ) -> api.RunResult:
        docs = config.roots.check_all(paths)
        options = client_values(settings, config.settings)

        def start(on_event: Emit, cancel: asyncio.Event) -> Awaitable[api.RunResult]:
            return api.arun(
                mode, query, docs, urls=urls or [], decompose=decompose,
                settings=config.settings, out_dir=out_dir, on_event=on_event, cancel=cancel,
                within=config.roots.folders, **options,
            )  # fmt: skip

        async def report(update: ProgressUpdate) -> None:
            await ctx.report_progress(update.progress, update.total, update.message)

        return await run_reporting(start, report, slots)

    @server.tool()
    async def ask_documents(
        question: Annotated[str, Field(description="What to answer from the documents.")],
        paths: Paths,
        ctx: Context,
        urls: Urls = None,
        settings: SettingValues = None,
    ) -> api.RunResult:
        """Answer a question from documents, with evidence quotes and where each stands
        (document, page, character span). The status says whether the answer passed
        validation; the session id names the recorded run; the usage gives its tokens, calls
        and cost, and what the sub-call cache saved."""
        return await _as_tool_error(
            run("qa", question, paths, ctx, urls=urls or [], settings=settings)
        )

    @server.tool()
    async def run_task(
        task: Annotated[str, Field(description="What to do with the documents.")],
        paths: Paths,
        ctx: Context,
        urls: Urls = None,
        decompose: Annotated[
            bool, Field(description="Split the task into sub-tasks first.")
        ] = False,
        settings: SettingValues = None,
    ) -> api.RunResult:
        """Carry out a task over documents (summarise, extract, compare...), validated like
        an answer; the output and its evidence come back with the run's status."""
        return await _as_tool_error(
            run("task", task, paths, ctx, urls=urls, settings=settings, decompose=decompose)
        )

    @server.tool()
    async def search_documents(
        query: Annotated[str, Field(description="What to look for.")],
        paths: Paths,
        settings: SettingValues = None,
    ) -> api.SearchResult:
        """Find the passages of documents that best match a query (lexical and semantic
        search, fused), best first, each with its document, page and character span. No
        model is called."""

        async def search() -> api.SearchResult:
            docs = config.roots.check_all(paths)
            return await api.asearch(
                query, docs, settings=config.settings, out_dir=out_dir,
                within=config.roots.folders, **client_values(settings, config.settings),
            )  # fmt: skip

        return await _as_tool_error(search())

    @server.tool()
    async def estimate(
        query: Annotated[str, Field(description="The question (qa) or the task (task).")],
        paths: Paths,
        mode: Annotated[
            Mode, Field(description="qa (as ask_documents) or task (as run_task).")
        ] = "qa",
        decompose: Annotated[
            bool, Field(description="As run_task's: split the task into sub-tasks first.")
        ] = False,
        settings: SettingValues = None,
    ) -> RunEstimate:
        """What ask_documents or run_task with the same arguments is expected to spend, and
        the most its settings allow, in every inner mode (the one its settings pick marked),
        by role: calls, tokens in and out, and US dollars (null: a price is unknown); where
        a cost or token cap stops the worst case; and what the expected figures rest on
        (the settings only, or past sessions of the same models). Nothing runs and no model
        is called."""

        async def work() -> RunEstimate:
            docs = config.roots.check_all(paths)
            return await api.aestimate(
                mode, query, docs, decompose=decompose, settings=config.settings,
                out_dir=out_dir, within=config.roots.folders,
                **client_values(settings, config.settings),
            )  # fmt: skip

        return await _as_tool_error(work())

    @server.tool()
    async def list_sessions(
        mode: Annotated[Mode | None, Field(description="Only sessions of this mode.")] = None,
        status: Annotated[
            RunStatus | None, Field(description="Only sessions that ended so.")
        ] = None,
        text: Annotated[str | None, Field(description="Words in the query or output.")] = None,
        limit: Annotated[int, Field(ge=1, le=500, description="At most this many.")] = 20,
    ) -> list[api.SessionSummary]:
        """Past sessions in the server's out dir, newest first."""
        return api.sessions(out_dir, mode=mode, status=status, text=text, limit=limit)

    @server.tool()
    async def show_session(
        session_id: Annotated[str, Field(description="As list_sessions gives it.")],
    ) -> api.SessionDetail:
        """One session: its status, last output with located evidence, and every
        iteration's trace (validation rules, judge verdict, constraints)."""

        async def show() -> api.SessionDetail:
            return api.session(session_id, out_dir)

        return await _as_tool_error(show())

    return server


async def _as_tool_error(work: Awaitable[T]) -> T:
    """``work``'s result; an error meant for a person becomes the tool's error with its
    one-line message (the client sees it, the server goes on)."""
    try:
        return await work
    except RalphError as exc:
        raise ToolError(exc.one_line()) from None


def serve(config: ServerConfig, http: HttpAccess | None = None) -> None:
    """Serve until the client goes (stdio) or the process is stopped (``http``: with its
    Host/Origin checks and token)."""
    server = build_server(config)
    if http is None:
        server.run()
    else:
        serve_http(server, http)
