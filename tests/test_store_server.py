"""Server mode: the vectors on a real Chroma server (`chroma run`), started and stopped by these tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.services import CHROMA, ChromaServer, free_port
from vectorstore.embedders import get_embedder
from vectorstore.errors import StoreError
from vectorstore.ingest import ingest
from vectorstore.loaders import read_papers
from vectorstore.store import PaperStore

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    if not CHROMA.exists():
        pytest.skip(f"{CHROMA} not installed")
    folder = tmp_path_factory.mktemp("chroma-server")
    server = ChromaServer(folder / "data", free_port(), folder / "server.log")
    server.start()
    yield server
    server.stop()


def search_first(store: PaperStore, sentence: str) -> str:
    hits = store.chunks.query(store.embedder.embed_query(sentence), 3)
    return hits[0].paper_id


def test_ingest_and_search_on_a_server(
    chroma_server: ChromaServer, tmp_path: Path, sample_files: list[Path]
) -> None:
    store = PaperStore(tmp_path / "store", get_embedder("hash"), server=chroma_server.url, collection="api")
    report = ingest(store, sample_files)
    assert report.new == 38
    assert not (tmp_path / "store" / "chroma").exists()  # the vectors live on the server
    assert store.chunks.count() == store.catalog.chunk_total() == report.chunks_embedded
    assert store.verify() == [] and store.stats()["server"] == chroma_server.url
    papers = [p for f in sample_files for p in read_papers(f, [])]
    for paper in (papers[3], papers[25]):
        sentence = paper.abstract.split(". ")[1]
        assert search_first(store, sentence) == paper.paper_id
    store.close()
    reopened = PaperStore(
        tmp_path / "store", get_embedder("hash"), server=chroma_server.url, collection="api"
    )
    assert (
        reopened.chunks.count() == report.chunks_embedded
        and ingest(reopened, sample_files).chunks_embedded == 0
    )
    reopened.close()


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    return subprocess.run(
        [sys.executable, "-m", "assistant.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_cli_with_server(chroma_server: ChromaServer, tmp_path: Path, sample_files: list[Path]) -> None:
    common = ["--server", chroma_server.url, "--store", str(tmp_path / "store"), "--embedder", "hash"]
    done = run_cli("ingest", *common, "--json", *map(str, sample_files))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["new"] == 38
    stats = run_cli("stats", *common, "--json")
    assert stats.returncode == 0, stats.stderr
    assert (
        json.loads(stats.stdout)["papers"] == 38 and json.loads(stats.stdout)["server"] == chroma_server.url
    )
    found = run_cli("search", "QHFlow2 Hamiltonian prediction", "-k", "3", "--json", *common)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)[0]["label"] == "QHFlow2"


def test_unreachable_server_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot open the Chroma server at http://127.0.0.1"):
        PaperStore(tmp_path / "store", get_embedder("hash"), server=f"http://127.0.0.1:{free_port()}")
    result = run_cli(
        "stats",
        "--server",
        f"http://127.0.0.1:{free_port()}",
        "--store",
        str(tmp_path / "s"),
        "--embedder",
        "hash",
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: cannot open the Chroma server")


def test_server_restart_mid_session(
    chroma_server: ChromaServer, tmp_path: Path, sample_files: list[Path]
) -> None:
    store = PaperStore(
        tmp_path / "store", get_embedder("hash"), server=chroma_server.url, collection="restart"
    )
    ingest(store, sample_files)
    papers = [p for f in sample_files for p in read_papers(f, [])]
    target = papers[10]
    sentence = target.abstract.split(". ")[1]
    count = store.chunks.count()
    assert search_first(store, sentence) == target.paper_id

    chroma_server.stop()
    with pytest.raises(StoreError) as info:  # while it is down: a clear error, not a raw client exception
        search_first(store, sentence)
    assert chroma_server.url in str(info.value)
    chroma_server.start()

    try:
        first = search_first(store, sentence)
    except StoreError:  # acceptable once, as long as it is clear and the next try works
        first = search_first(store, sentence)
    assert first == target.paper_id
    assert store.chunks.count() == count and store.verify() == []
    report = ingest(store, sample_files)  # and the store can be written again
    assert report.unchanged == 38 and report.chunks_embedded == 0
    store.close()
