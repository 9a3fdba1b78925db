"""The MCP server: memory tools for coding agents, over stdio or Streamable HTTP.

Built by a function, so each transport (and each test) gets a fresh server.
Tools raise ToolError with a sentence the model can act on; the SDK turns it
into a result with ``isError``. Every ``tools/call`` is logged to the
``tool_calls`` table by a server middleware, so calls rejected before the
tool runs (bad arguments) are counted too.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

import anyio.to_thread
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from incremind_daemon import __version__
from incremind_daemon.config import Settings
from incremind_daemon.errors import IncremindError
from incremind_daemon.serve.client import CWD_META
from incremind_daemon.serve.mcp_models import InsightOut, MemoryItem, PendingList, SaveOutcome, SearchResult
from incremind_daemon.serve.mcp_tools import DEFAULT_BUDGET, MAX_BUDGET, MAX_LIMIT, MIN_BUDGET, MemoryTools
from incremind_daemon.store import clock
from incremind_daemon.store.records import MAX_SAVE_BYTES
from incremind_daemon.store.search import MAX_QUERY_CHARS, MAX_QUERY_WORDS
from incremind_daemon.store.tool_calls import ToolCall

log = logging.getLogger(__name__)

Transport = Literal["stdio", "http"]
T = TypeVar("T")

INSTRUCTIONS = (
    "Long-term memory of this person and their coding agents: notes, documents, past agent sessions, and "
    "insights (preferences, corrections, methods, facts) the person confirmed. Search it before answering "
    "about their past work, decisions or preferences; every result id can be read down to the original words. "
    "Save only what the person asks you to remember; saves stay pending until the person confirms them."
)

QUERY_DESCRIPTION = (
    f"words or a question, in any language; only the first {MAX_QUERY_WORDS} words "
    f"({MAX_QUERY_CHARS:,} characters at most) are searched"
)
SAVE_TEXT_DESCRIPTION = (
    f"the fact, preference or note to remember, in the person's words; at most {MAX_SAVE_BYTES // 1000} KB"
)
Project = Annotated[
    str | None,
    Field(
        description="one project (an inbox folder or a repository name), or '*' for all; left out: the project "
        "of the folder you work in when memory knows it, else all"
    ),
]

Tier = Literal["insight", "summary", "organized", "raw"]
Category = Literal["identity", "preference", "correction", "decision", "entity", "event", "method"]
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def build_mcp_server(
    settings: Settings,
    tools: MemoryTools,
    *,
    transport: Transport,
) -> MCPServer:
    """Return an MCPServer with the memory tools; review tools only when settings.mcp.allow_review."""
    mcp = MCPServer("incremind", instructions=INSTRUCTIONS, version=__version__)
    mcp.middleware.append(_CallLog(tools, transport))

    @mcp.tool(annotations=READ_ONLY)
    def search_memory(
        query: Annotated[str, Field(description=QUERY_DESCRIPTION)],
        project: Project = None,
        tier: Annotated[
            Tier | None,
            Field(description="only insights, summaries, organized passages, or raw session messages"),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="how many results at most")] = 10,
        budget: Annotated[
            int,
            Field(
                ge=MIN_BUDGET,
                le=MAX_BUDGET,
                description="characters of result text to return at most: the best results that fit",
            ),
        ] = DEFAULT_BUDGET,
        ctx: Context | None = None,
    ) -> Annotated[CallToolResult, SearchResult]:
        """Search long-term memory by words and meaning (English and Chinese).

        Results are best first; each has an id, its tier, the text, its source and the offsets of the text in
        the original, and its source's date. Insights also carry their status (only 'confirmed' ones were
        approved by the person), the condition under which they apply and their relation to earlier knowledge.
        A question that names days ("last week", "in May 2025", "yesterday", "去年", "上个月") gets what is
        from those days first; one that asks two things ("...? Also ...", "A and B") is searched for each.
        A long query is cut to its first words; the answer's 'cut' then says so. The results' texts fit in
        'budget' characters (4,000 by default); 'left_out' counts the results found that did not fit.
        """
        here = caller_folder(ctx, transport)
        return _lean(
            _act(lambda: tools.search_memory(query, project=project, tier=tier, limit=limit, budget=budget, here=here))
        )

    @mcp.tool(annotations=READ_ONLY)
    def read_memory(
        id: Annotated[str, Field(description="an id from search_memory: src-N, msg-N, pas-N, sum-N or ins-N")],
        offset: Annotated[
            int | None, Field(ge=0, description="sources only: character position to read from (see read_more)")
        ] = None,
        length: Annotated[int | None, Field(ge=1, description="sources only: characters to read (max 8000)")] = None,
        ctx: Context | None = None,
    ) -> Annotated[CallToolResult, MemoryItem]:
        """Read one memory item and drill down to the original words.

        An insight comes with its links (for example an insight it refutes) and its evidence: the quoted words
        and the surrounding text of each original. A passage, summary or message comes with its source and the
        raw text around it. A source (src-N) returns a window of its original text; follow read_more to go on.
        """
        here = caller_folder(ctx, transport)
        return _lean(_act(lambda: tools.read_memory(id, offset=offset, length=length, here=here)))

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True))
    def save_memory(
        text: Annotated[str, Field(description=SAVE_TEXT_DESCRIPTION)],
        project: Project = None,
        category: Annotated[
            Category | None, Field(description="what kind of knowledge it is; leave out to let memory decide")
        ] = None,
        condition: Annotated[
            str | None, Field(description="when it applies or should be recalled, e.g. 'when writing SQL'")
        ] = None,
        ctx: Context | None = None,
    ) -> Annotated[CallToolResult, SaveOutcome]:
        """Save something the person asked you to remember.

        It is stored as a note and compared with what memory already knows. The answer says whether it is new,
        repeats a known insight (and which), supplements one, replaces one (a changed decision: once the
        person confirms it, the old one is no longer used), or differs from one, and its status (pending
        until the person confirms it, unless they allowed agents' saves to count at once).
        """
        actor = f"mcp:{client_name(ctx) or 'unknown'}"
        here = caller_folder(ctx, transport)
        return _lean(
            _act(
                lambda: tools.save_memory(
                    text, project=project, category=category, condition=condition, actor=actor, here=here
                )
            )
        )

    @mcp.tool(annotations=READ_ONLY)
    def get_recent_context(project: Project = None, ctx: Context | None = None) -> str:
        """Return the memory summary that agents get at session start: recent work and confirmed insights."""
        here = caller_folder(ctx, transport)
        return _act(lambda: tools.get_recent_context(project=project, here=here))

    @mcp.tool(annotations=READ_ONLY)
    def list_pending(project: Project = None, ctx: Context | None = None) -> Annotated[CallToolResult, PendingList]:
        """List insights waiting for the person's confirmation, newest first."""
        here = caller_folder(ctx, transport)
        return _lean(_act(lambda: tools.list_pending(project=project, here=here)))

    if settings.mcp.allow_review:

        @mcp.tool(annotations=ToolAnnotations(destructive_hint=False, idempotent_hint=False))
        def confirm_insight(
            id: Annotated[str, Field(description="a pending insight's id, ins-N")], ctx: Context | None = None
        ) -> InsightOut:
            """Confirm a pending insight, only when the person has said it is right."""
            actor = f"mcp:{client_name(ctx) or 'unknown'}"
            return _act(lambda: tools.review(id, "confirm", actor=actor))

        @mcp.tool(annotations=ToolAnnotations(destructive_hint=False, idempotent_hint=False))
        def reject_insight(
            id: Annotated[str, Field(description="a pending insight's id, ins-N")], ctx: Context | None = None
        ) -> InsightOut:
            """Reject a pending insight, only when the person has said it is wrong."""
            actor = f"mcp:{client_name(ctx) or 'unknown'}"
            return _act(lambda: tools.review(id, "reject", actor=actor))

    return mcp


def _lean(result: BaseModel) -> CallToolResult:
    """Return a tool's answer as its structured content and, for the model to read, the same JSON without
    indentation or empty fields: a result's own text was a fifth of the indented JSON around it."""
    text = result.model_dump_json(exclude_none=True)
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=result.model_dump(mode="json")
    )


def _act(body: Callable[[], T]) -> T:
    """Run a tool body; a failure the model can act on becomes a ToolError with its sentence."""
    try:
        return body()
    except IncremindError as exc:
        raise ToolError(str(exc)) from exc


def caller_folder(ctx: Context | None, transport: Transport) -> str | None:
    """Return the folder the agent works in: the relay's note of it, or this stdio server's own folder.

    An agent starts `incremind mcp` in its working folder; served over HTTP, only the relay says which.
    """
    if ctx is not None:
        params = ctx.request_context.session.client_params
        meta = params.meta if params is not None else None
        folder = meta.get(CWD_META) if isinstance(meta, dict) else None
        if isinstance(folder, str) and folder.startswith("/") and len(folder) <= 4096 and "\0" not in folder:
            return folder
    return os.getcwd() if transport == "stdio" else None


def client_name(ctx: Context | ServerRequestContext[Any, Any] | None) -> str | None:
    """Return the MCP client's name from its clientInfo (initialize or the request envelope)."""
    if ctx is None:
        return None
    request = ctx.request_context if isinstance(ctx, Context) else ctx
    params = request.session.client_params
    if params is None or not params.client_info.name:
        return None
    return str(params.client_info.name)[:100]


class _CallLog:
    """Server middleware: time every tools/call and log it with its outcome."""

    def __init__(self, tools: MemoryTools, transport: Transport) -> None:
        self._tools = tools
        self._transport = transport

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method != "tools/call" or ctx.request_id is None:
            return await call_next(ctx)
        at = clock.now().isoformat(timespec="milliseconds")
        started = time.monotonic()
        outcome = "error: the call did not finish"
        try:
            result = await call_next(ctx)
            outcome = _outcome_of(result)
            return result
        except Exception as exc:
            outcome = f"error: {exc}"
            raise
        finally:
            params = ctx.params or {}
            arguments = params.get("arguments")
            project = arguments.get("project") if isinstance(arguments, dict) else None
            call = ToolCall(
                at=at,
                tool=str(params.get("name", "?"))[:100],
                transport=self._transport,
                duration_ms=round((time.monotonic() - started) * 1000),
                outcome=outcome,
                project=project if isinstance(project, str) else None,
                client=client_name(ctx),
            )
            await anyio.to_thread.run_sync(self._tools.log_call, call)


def _outcome_of(result: HandlerResult) -> str:
    """Return 'ok', or 'error: <the sentence the model saw>'."""
    if isinstance(result, CallToolResult):
        if not result.is_error:
            return "ok"
        texts = [c.text for c in result.content if isinstance(c, TextContent)]
    elif isinstance(result, dict) and result.get("isError"):
        content = result.get("content")
        blocks = content if isinstance(content, list) else []
        texts = [str(b.get("text")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    else:
        return "ok"
    return "error: " + (" ".join(texts).removeprefix("Error executing tool ") or "the tool failed")
