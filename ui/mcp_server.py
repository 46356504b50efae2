"""paperchat as an MCP server: tools that search, answer, summarize, compare, look up and cite the papers.

`build_mcp_server(assistant)` makes an `MCPServer` (the official SDK's, formerly FastMCP) around a ready
`AssistantFace`; `run_mcp` serves it over stdio (for desktop agents) or streamable HTTP at `/mcp` (behind the
API key when `PAPERCHAT_SERVE__API_KEY` is set). `corpus_query` answers questions about the conferences as a
whole (counts, lists, breakdowns) with every number computed from the lists. Every tool returns readable text and structured content:
papers as records (paper id, title, venue, year, status, link), answers with their `[n]` markers and the
paper each number cites. A failure is a tool error with structured content `{"error": {"kind", "message"}}`
that says what went wrong (an unknown id, an empty query, the backend down), never an empty result.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from assistant.errors import BackendError, ConfigError, PaperchatError, QuestionError, StoreError
from assistant.face import AssistantFace
from assistant.types import Answer, Filters, Paper
from ui.http_guard import BearerGuard
from ui.records import answer_record, answer_text, paper_line, paper_record

__all__ = ["build_mcp_server", "run_mcp", "mcp_http_app", "ToolFailure", "MAX_K", "MAX_COMPARED"]

log = logging.getLogger(__name__)

MAX_K = 50
MAX_COMPARED = 4
MAX_IDS = 200
MAX_LISTED = 500
Transport = Literal["stdio", "http"]
INSTRUCTIONS = (
    "paperchat answers questions about the accepted papers of ICLR 2026 and ICML 2026 from their abstracts. "
    "Use search_papers to find papers (filter by venue and decision), ask for a question answered with "
    "citations [n], summarize for an overview of a subfield, compare for a side-by-side of named papers, "
    "get_paper for one paper by its id, export_bibtex for BibTeX entries of paper ids, and corpus_query "
    "for counts, lists and breakdowns of the conferences as a whole."
)


class ToolFailure(Exception):
    """A tool call that cannot be answered: `kind` names the problem for clients, the message explains it."""

    def __init__(self, kind: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.kind, self.details = kind, details


def _text(text: str, data: dict[str, Any]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def _failure(exc: ToolFailure) -> CallToolResult:
    error = {"kind": exc.kind, "message": str(exc), **exc.details}
    return CallToolResult(
        content=[TextContent(type="text", text=f"Error ({exc.kind}): {exc}")],
        structured_content={"error": error},
        is_error=True,
    )


_KINDS: list[tuple[type[PaperchatError], str]] = [
    (QuestionError, "bad_question"),
    (BackendError, "backend_unavailable"),
    (StoreError, "store_unavailable"),
    (ConfigError, "bad_configuration"),
]


def _guarded(tool: Callable[..., CallToolResult]) -> Callable[..., CallToolResult]:
    """`tool`, with every failure turned into a structured tool error (unexpected ones logged)."""

    @functools.wraps(tool)  # the SDK reads the tool's signature and docstring through it
    def run(*args: Any, **kwargs: Any) -> CallToolResult:
        try:
            return tool(*args, **kwargs)
        except ToolFailure as exc:
            return _failure(exc)
        except PaperchatError as exc:
            kind = next((k for cls, k in _KINDS if isinstance(exc, cls)), "failed")
            return _failure(ToolFailure(kind, str(exc)))
        except Exception as exc:  # a client must get an answer whatever goes wrong inside
            log.exception("MCP tool %s failed", tool.__name__)
            return _failure(ToolFailure("internal", f"{type(exc).__name__} while running {tool.__name__}"))

    return run


class PaperTools:
    """The tools, over one assistant; answers are computed at most `concurrency` at a time."""

    def __init__(self, assistant: AssistantFace, concurrency: int = 2) -> None:
        self.assistant = assistant
        self._answering = threading.BoundedSemaphore(concurrency)

    # ------------------------------------------------------------------ the tools

    def search_papers(
        self,
        query: Annotated[str, Field(description="what to look for, e.g. 'diffusion language models'")],
        venue: Annotated[
            str, Field(description="only this venue: 'ICLR', 'ICML' or 'ICLR 2026'; empty for all")
        ] = "",
        status: Annotated[
            str, Field(description="only this decision: 'oral', 'spotlight', 'poster'; empty for all")
        ] = "",
        k: Annotated[int, Field(description="how many papers, 1 to 50")] = 10,
    ) -> CallToolResult:
        """Find papers of the conferences by hybrid (BM25 + embedding) search over titles and abstracts."""
        query = _required(query, "query", "the search words")
        if not 1 <= k <= MAX_K:
            raise ToolFailure("bad_argument", f"k must be between 1 and {MAX_K}, not {k}", argument="k")
        filters = self._filters(venue, status)
        found = self.assistant.search(query, filters=filters, k=k)
        if not found.results:
            raise ToolFailure(
                "no_match",
                f"no paper matches {query!r} with {filters.describe() or 'no filters'}",
                filters=_described(filters),
            )
        papers = [{**paper_record(r.paper), "score": round(r.score, 4)} for r in found.results]
        lines = [f"{n}. {paper_line(p)}  (id {p['paper_id']})" for n, p in enumerate(papers, 1)]
        note = (
            "" if found.relevant else "Nothing clears the relevance cutoff; these are the nearest papers.\n"
        )
        data = {
            "query": query,
            "relevant": found.relevant,
            "filters": _described(found.filters),
            "papers": papers,
        }
        return _text(note + "\n".join(lines), data)

    def ask(
        self, question: Annotated[str, Field(description="a question about the papers")]
    ) -> CallToolResult:
        """Answer a question about the papers from their abstracts; the answer cites its sources as [n]."""
        return self._answer(_required(question, "question", "a question about the papers"), "ask")

    def summarize(
        self, topic: Annotated[str, Field(description="a topic or subfield, e.g. 'graph neural networks'")]
    ) -> CallToolResult:
        """Summarize what the papers of the conferences say about a topic or subfield, citing them as [n]."""
        return self._answer(
            _required(topic, "topic", "a topic, e.g. 'diffusion language models'"), "summarize"
        )

    def compare(
        self,
        papers: Annotated[
            list[str],
            Field(
                description="2 to 4 paper ids (from search_papers) or method names, e.g. ['QHFlow2', 'HELM']"
            ),
        ],
    ) -> CallToolResult:
        """Compare 2-4 papers side by side (problem, method, data, results, limitations), citing each as [n]."""
        names = [_clean(p) for p in papers if _clean(p)]
        if not 2 <= len(names) <= MAX_COMPARED:
            raise ToolFailure(
                "bad_argument",
                f"compare takes 2 to {MAX_COMPARED} papers (ids or names), got {len(names)}",
                argument="papers",
            )
        shown = [self._name_of(name) for name in names]
        return self._answer("Compare " + ", ".join(shown[:-1]) + " and " + shown[-1], "compare")

    def get_paper(
        self,
        paper_id: Annotated[str, Field(description="a paper id, as search_papers and citations give it")],
    ) -> CallToolResult:
        """One paper by its id (as search_papers and the citations give it): metadata, abstract and link."""
        paper = self._paper(_required(paper_id, "paper_id", "a paper id from search_papers"))
        record = {**paper_record(paper), "keywords": list(paper.keywords), "abstract": paper.abstract}
        return _text(f"{paper_line(record)}\nid {paper.paper_id}\n\n{paper.abstract}", record)

    def export_bibtex(
        self, ids: Annotated[list[str], Field(description="the paper ids to export")]
    ) -> CallToolResult:
        """BibTeX entries (@inproceedings, as OpenReview gives them) for papers by their ids."""
        from assistant.bibtex import bibtex_entries

        wanted = list(dict.fromkeys(_clean(i) for i in ids if _clean(i)))
        if not wanted:
            raise ToolFailure(
                "bad_argument", "ids is empty: give the ids of the papers to export", argument="ids"
            )
        if len(wanted) > MAX_IDS:
            raise ToolFailure(
                "bad_argument", f"at most {MAX_IDS} ids at a time, got {len(wanted)}", argument="ids"
            )
        papers = [self._paper(i) for i in wanted]
        bibtex = bibtex_entries(papers)
        return _text(bibtex, {"bibtex": bibtex, "papers": [paper_record(p) for p in papers]})

    def corpus_query(
        self,
        question: Annotated[
            str,
            Field(
                description="a question about the conferences as a whole, e.g. 'How many ICML orals "
                "are about diffusion?', 'List the ICLR papers on mixture of experts', 'Break down the "
                "graph papers by venue'"
            ),
        ],
    ) -> CallToolResult:
        """Count, list or break down the papers of the conferences (by venue, decision, area, topic, author):
        every number is computed from the paper lists, with the criterion used and cited example papers."""
        return self._answer(_required(question, "question", "a question about the conferences"), "corpus")

    # ------------------------------------------------------------------ helpers

    def _answer(self, question: str, mode: str) -> CallToolResult:
        with self._answering:
            error, answer = "", None
            for event in self.assistant.stream(question, mode=mode):
                if event.kind == "error":
                    error = event.text
                elif event.kind == "final":
                    answer = event.answer
        if answer is None:
            raise ToolFailure("internal", "the assistant gave no answer")
        return _answer_result(answer, error)

    def _filters(self, venue: str, status: str) -> Filters:
        stats = self.assistant.stats()
        venue, status = _clean(venue), _clean(status)
        venues = list(stats.get("venues", {}))
        if venue and not any(_venue_matches(venue, v) for v in venues):
            raise ToolFailure(
                "bad_argument",
                f"unknown venue {venue!r}; the store holds {', '.join(venues)}",
                argument="venue",
            )
        statuses = sorted({s for by_status in stats.get("statuses", {}).values() for s in by_status})
        if status and not any(status.lower() in s.lower() for s in statuses):
            raise ToolFailure(
                "bad_argument",
                f"unknown status {status!r}; choose one of {', '.join(statuses) or '(none recorded)'}",
                argument="status",
            )
        return Filters(venue=venue or None, status=status or None)

    def _paper(self, paper_id: str) -> Paper:
        paper = self.assistant.paper(paper_id)
        if paper is None:
            raise ToolFailure(
                "unknown_paper",
                f"no paper with id {paper_id!r} in the store; use search_papers to find paper ids",
                paper_id=paper_id,
            )
        return paper

    def _name_of(self, item: str) -> str:
        """A compared paper's name: the label of a paper id, else the name as given."""
        paper = self.assistant.paper(item)
        return paper.label if paper is not None else item


TOOL_NAMES = ("search_papers", "ask", "summarize", "compare", "get_paper", "export_bibtex", "corpus_query")
_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def _answer_result(answer: Answer, backend_error: str) -> CallToolResult:
    record = answer_record(answer)
    if backend_error:
        record["backend_error"] = backend_error
    if answer.corpus is not None:
        record["corpus"] = _corpus_record(answer)
    return _text(answer_text(record), record)


def _corpus_record(answer: Answer) -> dict[str, Any]:
    """A corpus answer's count, total, criterion and groups, and its first `MAX_LISTED` matching papers."""
    assert answer.corpus is not None
    record = answer.corpus.to_dict()
    papers = record["papers"]
    record["papers"], record["papers_listed"] = papers[:MAX_LISTED], min(len(papers), MAX_LISTED)
    return record


def _clean(value: str | None) -> str:
    return " ".join(str(value or "").split())


def _required(value: str, name: str, what: str) -> str:
    text = _clean(value)
    if not text:
        raise ToolFailure("empty_argument", f"{name} is empty: give {what}", argument=name)
    return text


def _venue_matches(asked: str, venue: str) -> bool:
    """Whether the filter `asked` ("ICLR", "iclr 2026") keeps papers of the store's venue "ICLR 2026"."""
    name, _, year = venue.rpartition(" ")
    paper = (
        Paper("", "", venue=name, year=int(year)) if year.isdigit() and name else Paper("", "", venue=venue)
    )
    return Filters(venue=asked).matches(paper)


def _described(filters: Filters) -> dict[str, Any]:
    return {k: v for k, v in dataclasses.asdict(filters).items() if v not in (None, "")}


def build_mcp_server(assistant: AssistantFace, *, concurrency: int | None = None) -> MCPServer:
    """The MCP server around `assistant`, its tools registered (read-only, closed world)."""
    tools = PaperTools(assistant, concurrency or assistant.settings.serve.concurrency)
    server: MCPServer = MCPServer("paperchat", instructions=INSTRUCTIONS, log_level="WARNING")
    for name in TOOL_NAMES:
        server.add_tool(
            _guarded(getattr(tools, name)), name=name, annotations=_READ_ONLY, structured_output=False
        )

    @server.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    return server


def mcp_http_app(server: MCPServer, host: str, api_key: str) -> Any:
    """The streamable-HTTP app of `server` (at `/mcp`), behind the API key when one is set."""
    app = server.streamable_http_app(host=host)
    return BearerGuard(app, api_key) if api_key else app


def run_mcp(assistant: AssistantFace, transport: Transport = "stdio", host: str = "", port: int = 0) -> None:
    """Serve `assistant`'s tools over stdio, or over streamable HTTP on host:port (settings by default)."""
    server = build_mcp_server(assistant)
    if transport == "stdio":
        server.run("stdio")
        return
    import uvicorn

    serve = assistant.settings.serve
    host, port = host or serve.host, port or serve.mcp_port
    app = mcp_http_app(server, host, serve.api_key.get_secret_value())
    log.warning(
        "paperchat MCP server on http://%s:%d/mcp%s", host, port, _key_note(serve.api_key.get_secret_value())
    )
    uvicorn.run(app, host=host, port=port, log_level="warning")


def _key_note(key: str) -> str:
    return " (API key required)" if key else ""
