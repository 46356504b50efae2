"""The corpus benchmark's questions: at least 30, and their true answers exactly what bench/corpus_truth.py
computes from the raw lists today (so a changed list or a hand edit of the file is caught)."""

from __future__ import annotations

import json

from bench.corpus_truth import OUT, build


def test_the_truth_file_is_what_the_raw_files_give() -> None:
    rows = [json.loads(line) for line in OUT.read_text(encoding="utf-8").splitlines() if line]
    assert len(rows) >= 30
    assert rows == build()
    kinds = {r["show"] for r in rows} | {r["group"] for r in rows if r["group"]}
    assert kinds >= {"count", "list", "groups", "share", "venue", "status", "area", "keyword", "author"}
    assert any(r["count"] is None for r in rows) and all(r["count"] != 0 or "titles" not in r for r in rows)
