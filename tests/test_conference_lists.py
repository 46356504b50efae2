"""The conference lists the product ships: the counts the README states, checked against the raw files with
plain json (no project code), and a real ingest of a few thousand of their papers: counts, merges, a question.
"""

from __future__ import annotations

import collections
import gzip
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from assistant.cli import main as cli_main
from assistant.retrieval import HybridRetriever
from assistant.settings import Settings
from tests.conftest import ROOT, SAMPLE_FILES, SHARED
from vectorstore.embedders import get_embedder
from vectorstore.ingest import ingest
from vectorstore.store import PaperStore

SHIPPED = ROOT / "corpus" / "conferences"
ICLR = SHIPPED / "iclr2026_accepted.jsonl.gz"
ICML = SHIPPED / "icml2026_main_conference.jsonl.gz"


def raw(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def key(abstract: str) -> str:
    return " ".join(abstract.split())


def iclr_status(row: dict[str, Any]) -> str:
    return "Oral" if row["status"].endswith("Oral") else "Poster"


def icml_groups(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for row in rows:
        groups[key(row["abstract"])].append(row)
    return groups


def icml_status(group: list[dict[str, Any]]) -> str:
    return "Oral" if any(e["type"] == "oral-session" for row in group for e in row["events"]) else "Poster"


def expected_counts(iclr: list[dict[str, Any]], icml: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Papers per venue and status as stored: ICML's oral/poster doubles are one paper, an abstract in both
    lists is stored once, under the venue read first (ICLR)."""
    iclr_keys = {key(r["abstract"]) for r in iclr}
    icml_counts = collections.Counter(
        icml_status(g) for k, g in icml_groups(icml).items() if k not in iclr_keys
    )
    return {"ICLR 2026": dict(collections.Counter(map(iclr_status, iclr))), "ICML 2026": dict(icml_counts)}


def readme_table() -> dict[str, dict[str, int]]:
    text = (SHIPPED / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (ICLR|ICML) 2026 \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \|$", text, re.M)
    assert len(rows) == 2, "the README's table of papers per venue and status"
    table = {}
    for venue, papers, oral, poster, spotlight in rows:
        counts = {"Oral": oral, "Poster": poster, "Spotlight": spotlight}
        table[f"{venue} 2026"] = {s: int(n.replace(",", "")) for s, n in counts.items() if n != "0"}
        assert int(papers.replace(",", "")) == sum(table[f"{venue} 2026"].values())
    return table


def test_the_shipped_lists_are_the_published_ones() -> None:
    shared = SHARED / "corpus" / "conferences"
    if not shared.exists():
        pytest.skip("../shared is not beside this checkout")
    for name in (ICLR.name, ICML.name):
        digests = {hashlib.sha256((folder / name).read_bytes()).hexdigest() for folder in (SHIPPED, shared)}
        assert len(digests) == 1, f"{name} differs from ../shared"


def test_the_readme_counts_are_the_raw_files_counts() -> None:
    iclr, icml = raw(ICLR), raw(ICML)
    assert len(iclr) == 5358 and len(icml) == 5932
    assert readme_table() == expected_counts(iclr, icml)
    assert collections.Counter(r["status"] for r in iclr) == {
        "Poster": 5120,
        "Oral": 223,
        "ICLR 2026 ConditionalPoster": 14,
        "ICLR 2026 ConditionalOral": 1,
    }


def subset(rows: list[dict[str, Any]], first: int, also: set[str]) -> list[dict[str, Any]]:
    return [r for i, r in enumerate(rows) if i < first or key(r["abstract"]) in also]


@pytest.fixture(scope="module")
def few_thousand(tmp_path_factory: pytest.TempPathFactory) -> tuple[PaperStore, list[dict], list[dict]]:
    """A real store (the default embedder) over ~2,600 papers of both lists, the samples' papers among them."""
    folder = tmp_path_factory.mktemp("conferences")
    iclr, icml = raw(ICLR), raw(ICML)
    seeds = {
        key(p) for f in SAMPLE_FILES for p in f.read_text(encoding="utf-8").split("\n\n")[1:] if p.strip()
    }
    doubles = {k for k, g in icml_groups(icml).items() if len(g) > 1}
    parts = {
        "iclr2026_accepted.jsonl.gz": subset(iclr, 1200, seeds),
        "icml2026_main_conference.jsonl.gz": subset(icml, 1200, seeds | doubles),
    }
    for name, rows in parts.items():
        with gzip.open(folder / name, "wt", encoding="utf-8") as handle:
            handle.writelines(json.dumps(r) + "\n" for r in rows)
    store = PaperStore(folder / "store", get_embedder(Settings().store.embedder))
    ingest(store, [folder / name for name in parts])
    iclr_rows, icml_rows = parts.values()
    return store, iclr_rows, icml_rows


@pytest.mark.slow
def test_a_few_thousand_real_papers_counts_merges_and_a_question(few_thousand: tuple, capsys: Any) -> None:
    store, iclr, icml = few_thousand
    statuses = store.catalog.statuses()
    expected = expected_counts(iclr, icml)
    assert {v: statuses[v] for v in expected} == expected
    assert statuses.get("ICML 2026", {}).get("Oral", 0) > 0 and statuses["ICLR 2026"]["Oral"] > 0

    # each of ICML's oral/poster doubles is one stored paper, an oral, with links to its virtual-site pages
    for group in (g for g in icml_groups(icml).values() if len(g) > 1):
        ids = {store.catalog.resolve(str(r["openreview_id"] or r["id"])) for r in group}
        assert len(ids) == 1 and None not in ids
        paper = store.get(ids.pop())
        assert paper.status == "Oral" and paper.authors == group[0]["authors"]
        assert any(url.startswith("https://icml.cc/virtual/2026/poster/") for url in paper.urls)

    # the ICLR samples are all in ICLR's list: each merges into its titled record, with its links
    report = ingest(store, SAMPLE_FILES)
    assert report.merged >= 19 + 8 and report.read == 38
    iclr_sample = SAMPLE_FILES[0].read_text(encoding="utf-8").split("\n\n")[1:]
    titled = {key(r["abstract"]): r for r in iclr}
    for abstract in filter(str.strip, iclr_sample):
        row = titled[key(abstract)]
        paper = store.get(row["openreview_id"])
        assert paper.title == row["title"] and paper.extra["primary_area"] == row["primary_area"]
        assert f"https://openreview.net/pdf?id={row['openreview_id']}" in paper.urls

    # a known question finds its paper first
    retriever = HybridRetriever(store, Settings().retrieval)
    found = retriever.retrieve(
        "benchmark for detecting multimodal misinformation from the creator's intent", k=5
    )
    assert found.relevant and found.results[0].paper.paper_id == "02NbD16OnA"

    # `paperchat stats` says what is loaded: venues, papers per venue and status
    assert cli_main(["stats", "--store", str(store.path)]) == 0
    out = capsys.readouterr().out
    oral, poster = statuses["ICLR 2026"]["Oral"], statuses["ICLR 2026"]["Poster"]
    assert f"ICLR 2026: {oral + poster:,} papers (Poster {poster:,} · Oral {oral:,})" in out
