"""The full-corpus question set (bench/questions_full.jsonl, issue 24) checked against the raw lists, no model:
the counts per type, every gold id a paper of the samples or the two conference lists, every key fact in its
gold abstract (or, for an author question, in its author list), every absent term in no title or abstract, and
hard questions sharing no content word with their gold paper's title.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from typing import Any

import pytest

from tests.conftest import ROOT
from vectorstore.loaders import read_papers
from vectorstore.paper import Paper

QUESTIONS = ROOT / "bench" / "questions_full.jsonl"
CORPUS_FILES = sorted((ROOT / "corpus").glob("*.txt")) + sorted(
    (ROOT / "corpus" / "conferences").glob("*.jsonl.gz")
)

# Words of five or more letters that say nothing about which paper is meant: a hard question may share at most
# one of them with its gold title.
GENERIC_WORDS = frozenset(
    {
        "learning",
        "model",
        "models",
        "neural",
        "network",
        "networks",
        "large",
        "language",
        "training",
        "towards",
        "toward",
        "based",
        "using",
        "efficient",
        "framework",
        "method",
        "methods",
        "deep",
        "benchmark",
        "real-time",
    }
)
EXPECTED_COUNTS = {"ask": 60, "unanswerable": 15, "summarize": 10, "compare": 10, "follow_up": 10}


@cache
def questions() -> tuple[dict[str, Any], ...]:
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
    return tuple(json.loads(line) for line in lines if line.strip())


@cache
def papers() -> dict[str, Paper]:
    found: dict[str, Paper] = {}
    for path in CORPUS_FILES:
        issues: list[Any] = []
        for paper in read_papers(path, issues):
            found[paper.paper_id] = paper
        assert not issues, f"{path.name}: {issues[:3]}"
    return found


@cache
def all_text() -> str:
    return "\n".join(f"{p.title}\n{p.abstract}".lower() for p in papers().values())


def of_type(kind: str) -> list[dict[str, Any]]:
    return [q for q in questions() if q["type"] == kind]


def content_words(text: str) -> set[str]:
    """Lowercase words of five or more letters, a plural 's' dropped so 'graphs' meets 'graph'."""
    words = re.findall(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*", text.lower())
    parts = {part for word in words for part in [word, *word.split("-")]}
    return {
        w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 5 else w for w in parts if len(w) >= 5
    }


def test_counts_per_type_and_hard_share() -> None:
    counts = Counter(q["type"] for q in questions())
    assert dict(counts) == EXPECTED_COUNTS
    assert sum(bool(q.get("hard")) for q in of_type("ask")) == 20


def test_ids_unique_and_splits_about_sixty_forty() -> None:
    ids = [q["id"] for q in questions()]
    assert len(ids) == len(set(ids))
    splits = Counter(q["split"] for q in questions())
    assert set(splits) == {"train", "test"}
    assert 0.55 <= splits["train"] / len(ids) <= 0.65
    for kind in EXPECTED_COUNTS:
        assert {q["split"] for q in of_type(kind)} == {"train", "test"}, kind
    hard = [q for q in of_type("ask") if q.get("hard")]
    assert {q["split"] for q in hard} == {"train", "test"}


def test_both_venues_and_the_samples_are_asked_about() -> None:
    single = of_type("ask") + of_type("follow_up")
    venues = Counter(papers()[q["gold_id"]].venue for q in single)
    assert venues["ICLR"] >= 20 and venues["ICML"] >= 20, venues
    assert all(q["venue"] == papers()[q["gold_id"]].venue for q in single)
    assert any(q["gold_id"].startswith("h:") for q in single), "no question about a sample abstract"


@pytest.mark.parametrize("kind", ["ask", "follow_up", "summarize", "compare"])
def test_every_gold_id_is_a_paper_of_the_lists(kind: str) -> None:
    for q in of_type(kind):
        gold = q["gold_ids"] if "gold_ids" in q else [q["gold_id"]]
        missing = [g for g in gold if g not in papers()]
        assert not missing, f"{q['id']}: {missing}"


def test_gold_sets_have_the_asked_sizes() -> None:
    for q in of_type("summarize"):
        assert 5 <= len(set(q["gold_ids"])) == len(q["gold_ids"]) <= 15, q["id"]
    for q in of_type("compare"):
        assert 2 <= len(set(q["gold_ids"])) == len(q["gold_ids"]) <= 3, q["id"]


def test_compared_papers_are_named_in_the_question() -> None:
    """Each compared paper is named as people do: a name from its title (the part before a colon, or an
    acronym) appears in the question."""
    for q in of_type("compare"):
        for gold in q["gold_ids"]:
            title = papers()[gold].title
            name = re.sub(r"\\\w+\{([^}]*)\}", r"\1", title.split(":")[0])  # \textbf{X} -> X
            name = re.sub(r"\(.*?\)", "", name).strip()
            assert name.lower() in q["question"].lower(), f"{q['id']}: {name!r} not in the question"


def test_key_facts_are_verbatim_in_the_gold_abstract() -> None:
    for q in of_type("ask") + of_type("follow_up"):
        paper = papers()[q["gold_id"]]
        assert q["key_facts"] and all(f == f.lower() and f.strip() for f in q["key_facts"]), q["id"]
        if q.get("expects") == "no_authors":
            assert not paper.authors, f"{q['id']}: the list does give authors"
            continue
        if q.get("expects") == "authors":
            names = [a.lower() for a in paper.authors]
            assert names and all(f in names for f in q["key_facts"]), q["id"]
            continue
        abstract = paper.abstract.lower()
        missing = [f for f in q["key_facts"] if f not in abstract]
        assert not missing, f"{q['id']}: {missing} not in the abstract of {q['gold_id']}"


def test_follow_ups_refer_back_in_the_second_turn() -> None:
    pronoun = re.compile(r"\b(it|its|they|their|them|the runner-up|this paper|that paper)\b", re.I)
    for q in of_type("follow_up"):
        first, second = q["turns"]
        assert pronoun.search(second), q["id"]
        assert not set(content_words(second)) & content_words(papers()[q["gold_id"]].title) - GENERIC_WORDS, (
            f"{q['id']}: the second turn names the paper itself"
        )
    assert any(q.get("expects") == "no_authors" and q["venue"] == "ICLR" for q in of_type("follow_up"))


def test_absent_terms_appear_in_no_title_or_abstract() -> None:
    text = all_text()
    for q in of_type("unanswerable"):
        assert q["absent_terms"], q["id"]
        for term in q["absent_terms"]:
            assert term.lower() in q["question"].lower(), f"{q['id']}: {term!r} is not asked about"
            assert term.lower() not in text, f"{q['id']}: {term!r} occurs in the corpus"


def test_hard_questions_share_at_most_one_generic_word_with_the_title() -> None:
    for q in of_type("ask"):
        if not q.get("hard"):
            continue
        shared = content_words(q["question"]) & content_words(papers()[q["gold_id"]].title)
        assert not shared - GENERIC_WORDS, (
            f"{q['id']}: shares {sorted(shared - GENERIC_WORDS)} with its title"
        )
        assert len(shared) <= 1, f"{q['id']}: shares {sorted(shared)} with its title"


def test_hard_questions_ask_for_numbers_datasets_or_baselines() -> None:
    """A hard question carries what the abstract states (a figure or a named dataset or baseline), not its
    wording: at least one key fact holds a digit or a capitalised name from the question."""
    for q in of_type("ask"):
        if q.get("hard"):
            named = any(re.search(r"\d", f) or f in q["question"].lower() for f in q["key_facts"])
            assert named, q["id"]


def test_content_words_and_generic_rule_can_fail() -> None:
    """The title check itself: a question that reuses a title word is caught."""
    assert content_words("Rapid Training of Hamiltonian Graph Networks") >= {"rapid", "hamiltonian", "graph"}
    assert content_words("graphs") == {"graph"}
    shared = content_words("Which graph method?") & content_words("Hamiltonian Graph Networks")
    assert shared - GENERIC_WORDS == {"graph"}


def test_seed_questions_resolve_through_the_papers_of_the_samples() -> None:
    seeds = {p.paper_id for path in CORPUS_FILES if path.suffix == ".txt" for p in read_papers(path, [])}
    asked = {q["gold_id"] for q in of_type("ask") + of_type("follow_up") if q["gold_id"].startswith("h:")}
    assert asked and asked <= seeds


def test_probe_questions_resolve_against_the_lists() -> None:
    """bench/questions_probe.jsonl (33 questions on randomly drawn papers, written after the main set): every
    gold paper exists and holds its key facts in its title or abstract; every absent term is absent."""
    rows = [json.loads(line) for line in (ROOT / "bench" / "questions_probe.jsonl").read_text().splitlines()]
    assert len(rows) == 33 and len({r["id"] for r in rows}) == 33
    text = all_text()
    for q in rows:
        if q["type"] == "unanswerable":
            assert q["absent_terms"] and all(t in q["question"].lower() for t in q["absent_terms"]), q["id"]
            assert not any(t in text for t in q["absent_terms"]), q["id"]
            continue
        paper = papers()[q["gold_id"]]
        missing = [f for f in q["key_facts"] if f not in f"{paper.title}\n{paper.abstract}".lower()]
        assert not missing, f"{q['id']}: {missing}"
