"""The corpus mode's numbers on a real store over ~3,000 papers of both lists, each against a count that the
test computes itself from the raw files (tests.corpus_lists reads them with plain json)."""

from __future__ import annotations

import collections
import unicodedata

import pytest

from assistant.corpus_names import keyword_key
from assistant.corpus_parse import parse_question
from assistant.corpus_query import Criterion, parse_criterion_text
from assistant.corpus_stats import CorpusIndex, CorpusResult
from assistant.errors import QuestionError
from tests.corpus_lists import RawPaper, corpus_store, mentions, raw_papers, same_title, subset_rows


@pytest.fixture(scope="module")
def index() -> CorpusIndex:
    return CorpusIndex(corpus_store().catalog.papers())


@pytest.fixture(scope="module")
def raw() -> list[RawPaper]:
    return raw_papers(*subset_rows())


def ask(index: CorpusIndex, question: str) -> CorpusResult:
    return index.select(parse_question(question, list(index.venues)))


def titles(result: CorpusResult) -> set[str]:
    return {same_title(p.title) for p in result.papers}


def test_the_fixture_holds_the_raw_papers(index: CorpusIndex, raw: list[RawPaper]) -> None:
    assert len(index) == len(raw)
    assert index.venues == dict(collections.Counter(p.venue for p in raw))


def test_count_of_a_venue_decision_and_topic(index: CorpusIndex, raw: list[RawPaper]) -> None:
    result = ask(index, "How many ICML 2026 orals are about diffusion?")
    expected = [p for p in raw if p.venue == "ICML 2026" and p.status == "Oral" and mentions(p, "diffusion")]
    assert result.criterion.show == "count" and result.criterion.venues == ("ICML 2026",)
    assert result.count == len(expected) > 0
    orals = sum(p.venue == "ICML 2026" and p.status == "Oral" for p in raw)
    assert result.total == orals
    assert titles(result) == {same_title(p.title) for p in expected}


def test_list_of_papers_with_a_phrase_in_titles(index: CorpusIndex, raw: list[RawPaper]) -> None:
    result = ask(index, 'List the ICLR 2026 papers with "flow matching" in their titles')
    expected = {
        same_title(p.title)
        for p in raw
        if p.venue == "ICLR 2026" and mentions(p, "flow matching", ("title",))
    }
    assert result.criterion.show == "list" and result.criterion.fields == ("title",)
    assert titles(result) == expected and result.count == len(expected) > 0
    assert all(row["link"].startswith("https://") for row in result.rows())


def test_each_part_of_the_criterion_has_its_count(index: CorpusIndex, raw: list[RawPaper]) -> None:
    result = ask(index, "How many ICLR 2026 papers are about reinforcement learning?")
    iclr = [p for p in raw if p.venue == "ICLR 2026"]
    assert result.criterion.topics == (("reinforcement learning", "RL"),)
    parts = {p.label.split(" (")[0]: p.count for p in result.parts}
    assert parts["“reinforcement learning”"] == sum(mentions(p, "reinforcement learning") for p in iclr)
    assert parts["“RL”"] == sum(mentions(p, "RL") for p in iclr)
    both = sum(mentions(p, "reinforcement learning") or mentions(p, "RL") for p in iclr)
    assert parts["any of “reinforcement learning”, “RL”"] == result.count == both
    in_titles = sum(mentions(p, "reinforcement learning", ("title",)) for p in iclr)
    assert f"title {in_titles:,}" in result.parts[0].label


def test_group_by_venue_and_status(index: CorpusIndex, raw: list[RawPaper]) -> None:
    result = ask(index, "How many papers about diffusion per venue?")
    assert result.criterion.group == "venue"
    per_venue = collections.Counter(p.venue for p in raw if mentions(p, "diffusion"))
    sizes = collections.Counter(p.venue for p in raw)
    assert {g.name: (g.count, g.total) for g in result.groups} == {v: (per_venue[v], sizes[v]) for v in sizes}
    status = ask(index, "Breakdown of the ICML 2026 papers by status")
    assert status.criterion.group == "status"
    expected = collections.Counter(p.status for p in raw if p.venue == "ICML 2026")
    assert {g.name: g.count for g in status.groups} == dict(expected)


def test_group_by_primary_area(index: CorpusIndex, raw: list[RawPaper]) -> None:
    result = ask(index, "Which primary areas have the most ICLR 2026 orals?")
    expected = collections.Counter(p.area for p in raw if p.venue == "ICLR 2026" and p.status == "Oral")
    assert result.criterion.group == "area" and result.criterion.status == "Oral"
    assert {g.name: g.count for g in result.groups} == dict(expected)
    assert [g.count for g in result.groups] == sorted(expected.values(), reverse=True)


def test_group_by_keyword(index: CorpusIndex, raw: list[RawPaper]) -> None:
    result = ask(
        index, "What are the 5 most common keywords of the ICLR 2026 papers on reinforcement learning?"
    )
    about = [
        p
        for p in raw
        if p.venue == "ICLR 2026" and (mentions(p, "reinforcement learning") or mentions(p, "RL"))
    ]
    counts = collections.Counter(k for p in about for k in {keyword_key(k) for k in p.keywords})
    assert result.criterion.group == "keyword" and result.criterion.top == 5
    assert len(result.groups) == 5
    got = [g.count for g in result.groups]
    assert got == [n for _, n in counts.most_common(5)]
    assert result.groups[0].name.lower().replace("-", " ").rstrip("s") == counts.most_common(1)[0][0]


def test_group_by_author_and_list_by_author(index: CorpusIndex, raw: list[RawPaper]) -> None:
    # one author however the list spells the name: "Hao Chen" and "hao chen", "Wei ZHANG" and "Wei Zhang"
    counts = collections.Counter(a for p in raw for a in {same_name(a) for a in p.authors})
    result = ask(index, "Who has the most ICML 2026 papers?")
    assert result.criterion.group == "author"
    assert [g.count for g in result.groups] == [n for _, n in counts.most_common(10)]
    assert same_name(result.groups[0].name) == counts.most_common(1)[0][0]
    spelling = next(a for p in raw for a in p.authors if same_name(a) == counts.most_common(1)[0][0])
    listed = ask(index, f"List the ICML 2026 papers by {spelling}")
    assert listed.criterion.authors == (spelling,) and listed.count == counts.most_common(1)[0][1]
    expected = {
        same_title(p.title) for p in raw if counts.most_common(1)[0][0] in {same_name(a) for a in p.authors}
    }
    assert titles(listed) == expected


def same_name(name: str) -> str:
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch))
    return " ".join(plain.replace(".", " ").lower().split())


def test_share_with_its_denominator(index: CorpusIndex, raw: list[RawPaper]) -> None:
    result = ask(index, "What share of ICML 2026 orals are about reinforcement learning?")
    orals = [p for p in raw if p.venue == "ICML 2026" and p.status == "Oral"]
    about = [p for p in orals if mentions(p, "reinforcement learning") or mentions(p, "RL")]
    assert result.criterion.show == "share" and set(result.criterion.share_of) == {"venue", "status"}
    assert (result.count, result.total) == (len(about), len(orals))


def test_venue_against_venue(index: CorpusIndex, raw: list[RawPaper]) -> None:
    result = ask(index, "Is diffusion a bigger share of ICML than of ICLR?")
    assert result.criterion.group == "venue" and result.criterion.show == "share"
    for venue in ("ICML 2026", "ICLR 2026"):
        group = next(g for g in result.groups if g.name == venue)
        papers = [p for p in raw if p.venue == venue]
        assert (group.count, group.total) == (sum(mentions(p, "diffusion") for p in papers), len(papers))


def test_unknown_names_match_none_and_name_the_nearest(index: CorpusIndex) -> None:
    author = ask(index, "List the ICML 2026 papers by Zyxwv Qwertyson")
    assert author.count == 0 and "none match" in author.none_match[0]
    real = next(a for p in index.papers.values() for a in p.authors if len(a.split()) == 2 and a.isascii())
    near = ask(index, f"How many papers by {real}x?")  # a letter too many
    assert near.count == 0 and "none match" in near.none_match[0] and real in near.none_match[0]
    area = ask(index, "How many ICLR 2026 papers are in the primary area of reinforcment learning?")
    assert area.count == 0 and "reinforcement learning" in area.none_match[0]
    venue = ask(index, "How many NeurIPS 2026 papers are about diffusion?")
    assert venue.count == 0 and "ICLR 2026" in venue.none_match[0] and "ICML 2026" in venue.none_match[0]


def test_a_field_a_list_lacks_is_unknown_not_zero(index: CorpusIndex, raw: list[RawPaper]) -> None:
    iclr_authors = ask(index, "How many ICLR 2026 papers by Yoshua Bengio?")
    assert iclr_authors.count is None and "ICLR 2026 lists no authors" in iclr_authors.notes[0]
    icml_areas = ask(index, "How many ICML 2026 papers are in the primary area of reinforcement learning?")
    assert icml_areas.count is None and "no primary areas" in icml_areas.notes[0]
    both = ask(index, "How many papers are in the primary area of reinforcement learning?")
    expected = sum(p.area == "reinforcement learning" for p in raw)
    assert both.count == expected > 0 and "left out, not counted as zero" in both.notes[0]
    assert both.scope == ["ICLR 2026"]


def test_the_criterion_text_is_editable(index: CorpusIndex, raw: list[RawPaper]) -> None:
    asked = parse_question("How many ICML 2026 orals are about diffusion?", list(index.venues))
    assert parse_criterion_text(asked.to_text()) == asked
    edited = index.select(
        parse_criterion_text("venue: ICML 2026; topic: diffusion | score matching; in: title")
    )
    expected = [
        p
        for p in raw
        if p.venue == "ICML 2026"
        and (mentions(p, "diffusion", ("title",)) or mentions(p, "score matching", ("title",)))
    ]
    assert edited.count == len(expected) > 0
    with pytest.raises(QuestionError, match="colour"):
        parse_criterion_text("venue: ICML; colour: red")
    with pytest.raises(QuestionError, match="status"):
        parse_criterion_text("status: rejected")


def test_related_papers_are_a_part_shown_and_added_only_when_asked(index: CorpusIndex) -> None:
    criterion = Criterion(venues=("ICLR 2026",), topics=(("diffusion",),))
    plain = index.select(criterion)
    assert plain.count is not None
    outside = [p.paper_id for p in index.papers.values() if p.venue == "ICLR" and p not in plain.papers][:3]
    shown = index.select(criterion, related=outside)
    assert shown.count == plain.count and shown.parts[-1].count == 3
    assert shown.parts[-1].label.startswith("not counted")
    added = index.select(Criterion(venues=("ICLR 2026",), topics=(("diffusion",),), related=True), outside)
    assert added.count == plain.count + 3 and added.parts[-1].label.startswith("added")
