"""The `paperchat` command-line contract, run as a user runs it: a subprocess, reading its output."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

PAPERCHAT = Path(sys.executable).parent / "paperchat"
RESULT_KEYS = {"paper_id", "title", "label", "venue", "year", "score", "abstract", "chunk"}


def run(*args: str, module: bool = False) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "assistant.cli"] if module else [str(PAPERCHAT)]
    return subprocess.run(
        [*command, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
    )


def assert_one_line_error(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.stderr
    for fragment in fragments:
        assert fragment in errors[0]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, sample_files: list[Path]) -> Path:
    path = tmp_path_factory.mktemp("cli") / "store"
    result = run("ingest", *map(str, sample_files), "--store", str(path), "--embedder", "hash", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["read"], report["new"], report["rejected"]) == (38, 38, 0)
    return path


def search(store: Path, query: str, *extra: str) -> list[dict]:
    result = run("search", query, "--store", str(store), "--embedder", "hash", "--json", *extra)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_stats_json(store: Path) -> None:
    result = run("stats", "--store", str(store), "--embedder", "hash", "--json", module=True)
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout)
    assert {"papers", "chunks", "venues", "embedding_model"} <= stats.keys()
    assert stats["papers"] == 38 and stats["chunks"] >= 38
    assert stats["venues"] == {"ICLR 2026": 19, "ICML 2026": 19}
    assert stats["embedding_model"] == "hash-bow-v1:256"
    text = run("stats", "--store", str(store), "--embedder", "hash")
    assert "papers: 38" in text.stdout and "ICML 2026: 19" in text.stdout


def test_search_json_contract(store: Path) -> None:
    results = search(store, "QHFlow2 machine learning Hamiltonian electronic structure", "-k", "5")
    assert 1 <= len(results) <= 5
    for r in results:
        assert RESULT_KEYS <= r.keys()
        assert r["chunk"] and r["chunk"] in r["abstract"]
        assert r["venue"] in ("ICLR", "ICML") and r["year"] == 2026
    assert results[0]["label"] == "QHFlow2"
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[-1]
    assert len({r["paper_id"] for r in results}) == len(results)


def test_search_venue_filter(store: Path) -> None:
    query = "spiking neural networks spikes energy efficiency"
    unfiltered = search(store, query, "-k", "10")
    assert {r["venue"] for r in unfiltered} == {"ICLR", "ICML"}  # the query matches papers of both lists
    iclr = search(store, query, "-k", "10", "--venue", "ICLR")
    icml = search(store, query, "-k", "10", "--venue", "icml")
    assert iclr and {r["venue"] for r in iclr} == {"ICLR"}
    assert icml and {r["venue"] for r in icml} == {"ICML"}
    assert "Spike-DB" in {r["label"] for r in iclr} and "SmoothSpike" in {r["label"] for r in icml}
    assert search(store, query, "--year", "2019") == []


def test_search_human_output(store: Path) -> None:
    result = run(
        "search",
        "Einstein Fields numerical relativity",
        "--store",
        str(store),
        "--embedder",
        "hash",
        "-k",
        "2",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].lstrip().startswith("1. [") and "Einstein Fields" in result.stdout


def test_ingest_of_an_unreadable_file_fails_and_names_it(tmp_path: Path) -> None:
    bad = tmp_path / "broken.jsonl"
    bad.write_bytes(os.urandom(2048))
    result = run("ingest", str(bad), "--store", str(tmp_path / "s"), "--embedder", "hash")
    assert result.returncode == 1
    assert str(bad) in result.stdout and "binary" in result.stdout and "Traceback" not in result.stderr
    as_json = run(
        "ingest",
        str(bad),
        str(tmp_path / "missing.csv"),
        "--store",
        str(tmp_path / "s"),
        "--embedder",
        "hash",
        "--json",
    )
    assert as_json.returncode == 1
    report = json.loads(as_json.stdout)
    assert report["read"] == 0 and report["rejected"] == 2
    assert any(str(bad) in issue for issue in report["issues"])
    assert any("missing.csv" in issue and "no such file" in issue for issue in report["issues"])


def test_ingest_with_a_bad_file_among_good_ones_succeeds_and_reports_it(
    tmp_path: Path, sample_files: list[Path]
) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    result = run(
        "ingest", str(empty), str(sample_files[0]), "--store", str(tmp_path / "s"), "--embedder", "hash"
    )
    assert result.returncode == 0, result.stderr
    assert "new: 19" in result.stdout and f"rejected {empty}, file: the file is empty" in result.stdout


def test_if_empty_and_rebuild(tmp_path: Path, store: Path, sample_files: list[Path]) -> None:
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    skipped = run("ingest", str(sample_files[0]), "--store", str(copy), "--embedder", "hash", "--if-empty")
    assert skipped.returncode == 0 and "already holds 38 papers; nothing to do" in skipped.stdout
    rebuilt = run(
        "ingest", str(sample_files[1]), "--store", str(copy), "--embedder", "hash", "--rebuild", "--json"
    )
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert json.loads(rebuilt.stdout)["new"] == 19
    stats = json.loads(run("stats", "--store", str(copy), "--embedder", "hash", "--json").stdout)
    assert stats["papers"] == 19 and stats["venues"] == {"ICML 2026": 19}


def test_rebuild_refuses_a_folder_that_is_not_a_store(tmp_path: Path, sample_files: list[Path]) -> None:
    folder = tmp_path / "precious"
    folder.mkdir()
    (folder / "thesis.tex").write_text("do not delete")
    result = run("ingest", str(sample_files[0]), "--store", str(folder), "--embedder", "hash", "--rebuild")
    assert_one_line_error(result, "does not look like a paperchat store")
    assert (folder / "thesis.tex").read_text() == "do not delete"


def test_embedder_mismatch_is_one_line(store: Path) -> None:
    result = run("stats", "--store", str(store), "--embedder", "minilm")
    assert_one_line_error(result, "hash-bow-v1:256", "all-MiniLM-L6-v2", "paperchat ingest --rebuild")


def test_unknown_embedder_is_one_line(tmp_path: Path) -> None:
    result = run("search", "anything", "--store", str(tmp_path / "s"), "--embedder", "nope", module=True)
    assert_one_line_error(result, "unknown embedder 'nope'", "hash", "minilm")


def test_store_path_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    result = run("stats", "--store", str(not_a_folder / "store"), "--embedder", "hash")
    assert_one_line_error(result, str(not_a_folder))


def test_corrupt_catalog_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    folder.mkdir()
    (folder / "catalog.sqlite").write_bytes(b"this is not sqlite" * 100)
    result = run("stats", "--store", str(folder), "--embedder", "hash")
    assert_one_line_error(result, "is not a paperchat catalog")
