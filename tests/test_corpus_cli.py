"""`paperchat ask --mode corpus` on the real-list fixture: the table printed, and --json's count, criterion,
papers and groups, each checked against the raw files."""

from __future__ import annotations

import collections
import json
from typing import Any

from assistant.cli import main as cli_main
from tests.corpus_lists import corpus_store, mentions, raw_papers, same_title, subset_rows


def ask(capsys: Any, *args: str) -> str:
    store = corpus_store()
    code = cli_main(
        ["ask", "--store", str(store.path), "--embedder", "hash", "--backend", "extractive", *args]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def test_ask_corpus_prints_the_table(capsys: Any) -> None:
    raw = raw_papers(*subset_rows())
    expected = [p for p in raw if p.venue == "ICML 2026" and p.status == "Oral" and mentions(p, "diffusion")]
    out = ask(capsys, "--mode", "corpus", "How many ICML 2026 orals are about diffusion?")
    assert f"\n**{len(expected)}** ICML 2026 orals" in out
    header = next(line for line in out.splitlines() if line.strip().startswith("#  title"))
    assert header.split()[1:] == ["title", "venue", "status", "area", "link"]
    rows = out.split(header, 1)[1].strip().splitlines()
    assert len(rows) == len(expected) > 0
    assert all("ICML 2026" in row and "Oral" in row and "https://" in row for row in rows)


def test_ask_corpus_json_gives_count_criterion_papers_groups(capsys: Any) -> None:
    raw = raw_papers(*subset_rows())
    out = ask(capsys, "--json", "Which primary areas have the most ICLR 2026 orals?")
    data = json.loads(out)
    orals = [p for p in raw if p.venue == "ICLR 2026" and p.status == "Oral"]
    assert data["mode"] == "corpus" and data["count"] == len(orals)
    assert data["criterion"]["text"] == "venue: ICLR 2026; status: Oral; group: area; show: groups"
    assert {same_title(p["title"]) for p in data["papers"]} == {same_title(p.title) for p in orals}
    assert {g["name"]: g["count"] for g in data["groups"]} == dict(collections.Counter(p.area for p in orals))
    assert data["group_by"] == "area" and "corpus" not in data
