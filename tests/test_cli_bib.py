"""`paperchat ask --bib` and `paperchat search --bib` (issue 23): BibTeX of the cited or found papers on
stdout, parsed back with bibtexparser; the answer and notes go to stderr."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import bibtexparser
import pytest

from assistant.chain import Assistant
from assistant.cli import build_parser, main
from assistant.llm.extractive import ExtractiveBackend
from assistant.settings import Settings
from tests.chat_support import sample_retriever

BOOKTITLES = {
    "ICML": "Forty-third International Conference on Machine Learning",
    "ICLR": "The Fourteenth International Conference on Learning Representations",
}
SMOOTH_Q = "How does SmoothSpike close the gap between spiking networks and ANNs?"


def entries(text: str) -> list[bibtexparser.model.Entry]:
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks
    return library.entries


def test_ask_bib_prints_the_cited_papers_and_the_answer_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["ask", SMOOTH_Q, "--bib", "--backend", "extractive"])
    out = io.StringIO()
    assistant = Assistant(sample_retriever(), ExtractiveBackend(), Settings())
    assert args.handler(args, lambda a: assistant, out=out) == 0
    shown = capsys.readouterr().err
    cited = re.findall(r"^  \[\d+\] (.+?) \((ICML|ICLR) 2026\)  \S+$", shown, re.MULTILINE)
    assert len(cited) > 1 and "SmoothSpike" in cited[0][0]
    found = entries(out.getvalue())
    assert len(found) == len(cited) and len({e.key for e in found}) == len(found)
    for (name, venue), entry in zip(cited, found, strict=True):
        assert entry.entry_type == "inproceedings"
        assert entry["title"] == name.replace("%", "\\%").replace("$", "\\$")
        assert entry["booktitle"] == BOOKTITLES[venue]
        assert entry["author"] == "Anonymous" and entry["year"] == "2026"
    assert "@inproceedings" not in shown and "Sources:" not in out.getvalue()


def test_ask_bib_of_an_answer_citing_nothing_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["ask", "What is the recipe for a sourdough bread?", "--bib"])
    out = io.StringIO()
    assistant = Assistant(sample_retriever(), ExtractiveBackend(), Settings())
    assert args.handler(args, lambda a: assistant, out=out) == 0
    assert out.getvalue() == ""
    assert "the answer cites no supporting papers" in capsys.readouterr().err


@pytest.fixture(scope="module")
def hash_store(tmp_path_factory: pytest.TempPathFactory, sample_files: list[Path]) -> str:
    path = str(tmp_path_factory.mktemp("bib") / "store")
    assert main(["ingest", *map(str, sample_files), "--store", path, "--embedder", "hash", "--json"]) == 0
    return path


def test_search_bib_is_the_found_papers_in_rank_order(
    hash_store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["search", "spiking neural networks", "-k", "4", "--store", hash_store, "--embedder", "hash"]
    capsys.readouterr()
    assert main([*base, "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert main([*base, "--bib"]) == 0
    found = entries(capsys.readouterr().out)
    assert len(found) == len(results) == 4
    assert [e["title"].replace("\\%", "%").replace("\\$", "$") for e in found] == [
        r["title"] or r["label"] for r in results
    ]
    assert {e["booktitle"] for e in found} <= set(BOOKTITLES.values())


def test_bib_and_json_together_are_refused(hash_store: str, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["search", "x", "--bib", "--json"], ["ask", "x", "--bib", "--json"]):
        with pytest.raises(SystemExit) as exit_:
            build_parser().parse_args(argv)
        assert exit_.value.code == 2
        assert "not allowed with argument" in capsys.readouterr().err
