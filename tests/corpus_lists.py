"""A real store over a few thousand papers of both conference lists, for the corpus-mode tests, and the same
papers read straight from the raw files with plain json (no project code), to count against.

Not a conftest: modules call `corpus_store()` (built once per session, hash embedder: the corpus mode reads
metadata, the embedder only ranks the related papers) and `raw_papers()`.
"""

from __future__ import annotations

import atexit
import collections
import dataclasses
import functools
import gzip
import json
import re
import shutil
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

from assistant.retrieval import HybridRetriever
from assistant.settings import Settings
from vectorstore.embedders import get_embedder
from vectorstore.ingest import ingest
from vectorstore.store import PaperStore

ROOT = Path(__file__).resolve().parent.parent
LISTS = ROOT / "corpus" / "conferences"
ICLR = LISTS / "iclr2026_accepted.jsonl.gz"
ICML = LISTS / "icml2026_main_conference.jsonl.gz"
FIRST = 1500  # rows taken from the start of each list (plus ICML's oral/poster doubles of them)


@dataclasses.dataclass(frozen=True)
class RawPaper:
    """One paper as the raw files give it, merged as the store merges (see `raw_papers`)."""

    venue: str
    status: str
    title: str
    abstract: str
    keywords: tuple[str, ...]
    area: str
    authors: tuple[str, ...]


def read_rows(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def key(abstract: str) -> str:
    return " ".join(abstract.split())


def same_title(title: str) -> str:
    """A title compared as the store keeps it: Unicode NFKC, any dash as "-", single spaces."""
    text = unicodedata.normalize("NFKC", title)
    return " ".join(re.sub(r"[\u2010-\u2015\u2212]", "-", text).split())


@functools.cache
def subset_rows() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ICLR and ICML rows of the fixture: the first `FIRST` of each, with every row sharing an abstract
    with one of them (ICML lists an oral twice, as an oral and as a poster)."""
    iclr, icml = read_rows(ICLR), read_rows(ICML)
    chosen = {key(r["abstract"]) for r in icml[:FIRST]}
    return iclr[:FIRST], [r for i, r in enumerate(icml) if i < FIRST or key(r["abstract"]) in chosen]


def raw_papers(iclr: list[dict[str, Any]], icml: list[dict[str, Any]]) -> list[RawPaper]:
    """The papers of the rows as stored: ICML rows with one abstract are one paper (an oral when any row has an
    oral session); an abstract in both lists is one paper under ICLR (read first), with ICLR's decision."""
    papers = [
        RawPaper(
            "ICLR 2026",
            "Oral" if r["status"].endswith("Oral") else "Poster",
            r["title"],
            r["abstract"],
            tuple(r.get("keywords") or ()),
            r.get("primary_area") or "",
            (),
        )
        for r in iclr
    ]
    seen = {key(r["abstract"]) for r in iclr}
    groups: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for row in icml:
        groups[key(row["abstract"])].append(row)
    for abstract, group in groups.items():
        if abstract in seen:
            continue
        oral = any(e["type"] == "oral-session" for row in group for e in row["events"])
        first = group[0]
        papers.append(
            RawPaper(
                "ICML 2026",
                "Oral" if oral else "Poster",
                first["title"],
                first["abstract"],
                (),
                "",
                tuple(first["authors"]),
            )
        )
    return papers


def mentions(
    paper: RawPaper, phrase: str, fields: tuple[str, ...] = ("title", "abstract", "keywords")
) -> bool:
    """Whether the paper names `phrase` as whole words (any case, singular or plural) in `fields`."""
    words = phrase.split()
    if len(words[-1]) > 3 and words[-1].endswith("s") and not words[-1].endswith("ss"):
        words[-1] = words[-1][:-1]  # "networks" names "network" too
    pattern = re.compile(
        r"(?<!\w)" + r"[\s-]+".join(map(re.escape, words)) + r"(?:s|es)?(?!\w)", re.IGNORECASE
    )
    texts = {"title": [paper.title], "abstract": [paper.abstract], "keywords": list(paper.keywords)}
    return any(pattern.search(text) for field in fields for text in texts[field])


@functools.cache
def corpus_store() -> PaperStore:
    folder = Path(tempfile.mkdtemp(prefix="paperchat-corpus-"))
    atexit.register(shutil.rmtree, folder, True)
    iclr, icml = subset_rows()
    files = []
    for path, rows in ((ICLR, iclr), (ICML, icml)):
        files.append(folder / path.name)
        with gzip.open(files[-1], "wt", encoding="utf-8") as handle:
            handle.writelines(json.dumps(r) + "\n" for r in rows)
    store = PaperStore(folder / "store", get_embedder("hash"))
    ingest(store, files)
    return store


@functools.cache
def corpus_retriever() -> HybridRetriever:
    return HybridRetriever(corpus_store(), Settings().retrieval)
