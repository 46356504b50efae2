"""The corpus mode through the assistant's chain on a real store over ~3,000 papers of both lists: the auto
mode routes to it, its numbers are the query's, follow-ups narrow the last result, and a model's paragraph
never adds a number."""

from __future__ import annotations

import re

import pytest

from assistant.chain import Assistant
from assistant.corpus_stats import CorpusResult
from assistant.llm.extractive import ExtractiveBackend
from assistant.llm.fake import ScriptedBackend
from assistant.settings import Settings
from assistant.types import Answer, Turn
from tests.corpus_lists import RawPaper, corpus_retriever, mentions, raw_papers, same_title, subset_rows


@pytest.fixture(scope="module")
def assistant() -> Assistant:
    return Assistant(corpus_retriever(), ExtractiveBackend(), Settings())


@pytest.fixture(scope="module")
def raw() -> list[RawPaper]:
    return raw_papers(*subset_rows())


def ask(assistant: Assistant, question: str, history: list[Turn] | None = None, **kw: object) -> Answer:
    events = list(assistant.stream(question, history or [], **kw))  # type: ignore[arg-type]
    answer = events[-1].answer
    assert answer is not None
    return answer


def result(answer: Answer) -> CorpusResult:
    assert answer.mode == "corpus" and answer.corpus is not None
    return answer.corpus


def diffusion_icml(raw: list[RawPaper]) -> list[RawPaper]:
    return [p for p in raw if p.venue == "ICML 2026" and mentions(p, "diffusion")]


def test_auto_routes_a_count_and_every_number_comes_from_the_query(
    assistant: Assistant, raw: list[RawPaper]
) -> None:
    answer = ask(assistant, "How many ICML 2026 papers are about diffusion?")
    found = result(answer)
    expected = diffusion_icml(raw)
    assert found.count == len(expected) > 0
    assert answer.answer.startswith(f"**{len(expected):,}** ICML 2026 papers")
    assert "Criterion: venue: ICML 2026; topic: diffusion; show: count" in answer.answer
    icml = sum(p.venue == "ICML 2026" for p in raw)
    in_titles = sum(mentions(p, "diffusion", ("title",)) for p in expected)
    # every number in the answer is one of these, counted here from the raw files (0: no keywords in the
    # ICML list, no related paper added), the citation marks and the percentage aside
    allowed = {"2026", *(f"{n:,}" for n in (len(expected), icml, in_titles, 0))}
    numbers = set(re.findall(r"\d[\d,]*", re.sub(r"\[\d+\]|\d+\.\d+%", "", answer.answer)))
    assert numbers <= allowed
    assert f"{100 * len(expected) / icml:.1f}%" in answer.answer
    assert [c.paper_id for c in answer.citations] == [
        p.paper_id for p in found.papers[: len(answer.citations)]
    ]
    data = answer.to_dict()["corpus"]
    assert data["count"] == len(expected) and data["criterion"]["text"].startswith("venue: ICML 2026")
    assert len(data["papers"]) == len(expected) and set(data["papers"][0]) >= {
        "title",
        "venue",
        "status",
        "link",
    }


def test_follow_ups_narrow_and_list_the_last_result(assistant: Assistant, raw: list[RawPaper]) -> None:
    first_q = "How many ICML 2026 papers are about diffusion?"
    first = ask(assistant, first_q)
    turns = [Turn(first_q, first.answer, [c.paper_id for c in first.citations])]
    orals_q = "And how many of those are orals?"
    orals = ask(assistant, orals_q, turns)
    expected = [p for p in diffusion_icml(raw) if p.status == "Oral"]
    assert result(orals).count == len(expected) > 0
    assert result(orals).criterion.status == "Oral"
    turns.append(Turn(orals_q, orals.answer, [c.paper_id for c in orals.citations]))
    shown = ask(assistant, "show them", turns)
    assert result(shown).criterion.show == "list"
    assert {same_title(p.title) for p in result(shown).papers} == {same_title(p.title) for p in expected}
    assert all(p.display_name in shown.answer for p in result(shown).papers[:20])


def test_an_edited_criterion_is_answered_as_written(assistant: Assistant, raw: list[RawPaper]) -> None:
    answer = ask(assistant, "venue: ICML 2026; topic: diffusion; in: title; show: list")
    expected = {
        same_title(p.title) for p in raw if p.venue == "ICML 2026" and mentions(p, "diffusion", ("title",))
    }
    assert {same_title(p.title) for p in result(answer).papers} == expected


def test_explicit_corpus_mode_and_ordinary_questions(assistant: Assistant) -> None:
    assert ask(assistant, "What is flow matching?").mode != "corpus"
    answer = ask(assistant, "orals about diffusion", mode="corpus")
    assert result(answer).criterion.status == "Oral"


def test_a_field_the_list_lacks_is_said_not_counted(assistant: Assistant) -> None:
    answer = ask(assistant, "How many ICLR 2026 papers are by Yoshua Bengio?")
    assert result(answer).count is None and not answer.grounded
    assert "ICLR 2026 lists no authors" in answer.answer and "**0**" not in answer.answer


def test_the_models_paragraph_never_adds_a_number(raw: list[RawPaper]) -> None:
    question = "How many ICML 2026 orals are about diffusion?"
    plain = Assistant(corpus_retriever(), ExtractiveBackend(), Settings())
    base = result(ask(plain, question))
    first = base.papers[0]
    sentence = first.abstract.split(". ")[0].rstrip(".")
    llm = ScriptedBackend([f"{sentence} [1]. There are 999 such papers [1]."])
    answer = ask(Assistant(corpus_retriever(), llm, Settings()), question)
    assert result(answer).count == base.count
    assert "999" not in answer.answer
    assert sentence in answer.answer.split("For example:")[-1]  # the paragraph is kept, without the number
