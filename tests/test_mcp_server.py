"""The MCP server, driven by the official `mcp` client as an agent drives it: `paperchat mcp` over stdio and over
streamable HTTP (with the API key), on a store of the sample abstracts built with the real embedder."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, cast

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent

from assistant.chain import Assistant
from assistant.llm.fake import ScriptedBackend
from assistant.settings import Settings
from tests.chat_support import sample_retriever
from tests.conftest import ROOT, SAMPLE_FILES
from tests.services import free_port
from ui.mcp_server import TOOL_NAMES, build_mcp_server
from ui.records import marker_spans

PAPERCHAT = Path(sys.executable).parent / "paperchat"
KEY = "test-key-9f2c71"
ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, sample_files: list[Path]) -> Path:
    """The sample abstracts, ingested by `paperchat ingest` with the default (real) embedder."""
    path = tmp_path_factory.mktemp("mcp") / "store"
    done = subprocess.run(
        [str(PAPERCHAT), "ingest", *map(str, sample_files), "--store", str(path)],
        cwd=ROOT,
        env={**os.environ, **ENV},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return path


HAMILTONIAN_COUNT = "How many papers are about Hamiltonian?"


def hamiltonian_papers() -> int:
    """The sample papers naming "Hamiltonian", counted in the raw files: a header line, then a paper a line."""
    lines = [line for path in SAMPLE_FILES for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    return sum("hamiltonian" in line.lower() for line in lines if line.strip())


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def data_of(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None, text_of(result)
    return result.structured_content


def check_answer(result: CallToolResult, *titles: str) -> dict[str, Any]:
    """A successful answer whose every marker has its citation, citing `titles` (in this order, first)."""
    assert not result.is_error, text_of(result)
    data = data_of(result)
    numbers = {n for span in marker_spans(data["answer"]) for n in span.numbers}
    cited = {c["n"]: c for c in data["citations"]}
    assert numbers and numbers == set(cited), (data["answer"], list(cited))
    assert [cited[n]["title"] for n in sorted(cited)][: len(titles)] == list(titles)
    for n, citation in cited.items():
        assert citation["paper_id"] and citation["venue"] in ("ICLR", "ICML") and citation["passage"]
        assert f"[{n}] {citation['title']}" in text_of(result)  # the readable text lists the sources too
    return data


def check_error(result: CallToolResult, kind: str, *fragments: str) -> None:
    assert result.is_error
    error = data_of(result)["error"]
    assert error["kind"] == kind
    for fragment in fragments:
        assert fragment in error["message"] and fragment in text_of(result)


async def exercise(client: Client) -> None:
    """List the tools and call each one, checking the citations and the errors."""
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(TOOL_NAMES) <= set(listed)
    assert "venue" in listed["search_papers"].input_schema["properties"]

    found = await client.call_tool("search_papers", {"query": "Hamiltonian electronic structure", "k": 3})
    assert not found.is_error, text_of(found)
    papers = data_of(found)["papers"]
    assert len(papers) == 3 and {"QHFlow2", "HELM"} <= {p["title"] for p in papers}
    assert all(p["paper_id"] in text_of(found) for p in papers)
    qhflow = next(p["paper_id"] for p in papers if p["title"] == "QHFlow2")
    helm = next(p["paper_id"] for p in papers if p["title"] == "HELM")

    only_icml = await client.call_tool("search_papers", {"query": "Hamiltonian", "venue": "ICML", "k": 5})
    assert {p["venue"] for p in data_of(only_icml)["papers"]} == {"ICML"}

    check_answer(await client.call_tool("ask", {"question": "What does QHFlow2 improve?"}), "QHFlow2")
    summary = check_answer(await client.call_tool("summarize", {"topic": "Hamiltonian models"}))
    assert summary["mode"] == "summarize" and {"QHFlow2", "HELM"} <= {
        c["title"] for c in summary["citations"]
    }
    compared = check_answer(
        await client.call_tool("compare", {"papers": [qhflow, "HELM"]}), "QHFlow2", "HELM"
    )
    assert compared["mode"] == "compare" and "| Method |" in compared["answer"]

    paper = data_of(await client.call_tool("get_paper", {"paper_id": qhflow}))
    assert paper["paper_id"] == qhflow and "SO(2)-equivariant" in paper["abstract"]

    bib = await client.call_tool("export_bibtex", {"ids": [qhflow, helm]})
    assert not bib.is_error, text_of(bib)
    assert data_of(bib)["bibtex"].count("@inproceedings") == 2

    counted = check_answer(await client.call_tool("corpus_query", {"question": HAMILTONIAN_COUNT}))
    assert counted["mode"] == "corpus" and counted["corpus"]["count"] == hamiltonian_papers()
    assert {c["title"] for c in counted["citations"]} <= {p["title"] for p in counted["corpus"]["papers"]}

    check_error(
        await client.call_tool("get_paper", {"paper_id": "no-such-paper"}), "unknown_paper", "no-such-paper"
    )
    check_error(
        await client.call_tool("export_bibtex", {"ids": [qhflow, "nope-7"]}), "unknown_paper", "nope-7"
    )
    check_error(await client.call_tool("search_papers", {"query": "  "}), "empty_argument", "query")
    check_error(
        await client.call_tool("search_papers", {"query": "x", "venue": "NeurIPS"}), "bad_argument", "NeurIPS"
    )
    check_error(await client.call_tool("compare", {"papers": ["QHFlow2"]}), "bad_argument", "2 to 4")


def test_stdio_lists_and_calls_every_tool(store: Path) -> None:
    params = StdioServerParameters(
        command=str(PAPERCHAT),
        args=["mcp", "--store", str(store), "--backend", "extractive"],
        env=ENV,
        cwd=ROOT,
    )

    async def run() -> None:
        async with Client(params) as client:
            await exercise(client)

    anyio.run(run)


@pytest.fixture(scope="module")
def http_server(store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """`paperchat mcp --transport http` with an API key; yields its /mcp url and its log."""
    port = free_port()
    log = tmp_path_factory.mktemp("mcp-http") / "server.log"
    command = [str(PAPERCHAT), "mcp", "--transport", "http", "--port", str(port)]
    command += ["--store", str(store), "--backend", "extractive", "-v"]
    env = {**os.environ, **ENV, "PAPERCHAT_SERVE__API_KEY": KEY}
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_healthy(f"http://127.0.0.1:{port}/health", process, log)
        yield f"http://127.0.0.1:{port}/mcp", log
    finally:
        process.terminate()
        process.wait(timeout=30)


def wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120  # a bound on the wait, not a timing assertion
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()
        try:
            if httpx.get(url, headers={"Authorization": f"Bearer {KEY}"}, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    pytest.fail(f"the MCP server did not come up:\n{log.read_text()}")


def test_http_with_the_key_lists_and_calls_every_tool(http_server: tuple[str, Path]) -> None:
    url, log = http_server

    async def run() -> None:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}, timeout=120) as http:
            transport = cast(AbstractAsyncContextManager[Any], streamable_http_client(url, http_client=http))
            async with Client(transport) as client:
                await exercise(client)

    anyio.run(run)
    assert KEY not in log.read_text()


@pytest.mark.parametrize("header", [None, "Bearer wrong-key", f"Basic {KEY}"])
def test_http_without_the_key_is_refused_with_401(http_server: tuple[str, Path], header: str | None) -> None:
    url, log = http_server
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if header:
        headers["Authorization"] = header
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = httpx.post(url, json=body, headers=headers, timeout=30)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert "API key" in response.json()["error"]["message"]
    assert KEY not in response.text and KEY not in log.read_text()


def test_a_failing_backend_still_answers_and_says_why() -> None:
    """The language model down: the answer is drawn from the sources and the failure travels with it."""
    assistant = Assistant(sample_retriever(), ScriptedBackend([]), Settings())  # no replies: it fails

    async def run() -> CallToolResult:
        async with Client(build_mcp_server(assistant)) as client:
            return await client.call_tool("ask", {"question": "What does QHFlow2 improve?"})

    result = anyio.run(run)
    data = check_answer(result, "QHFlow2")
    assert "no replies left" in data["backend_error"] and "no replies left" in data["notice"]
    assert "Note: The language model failed" in text_of(result)
