"""The no-model answer path: chosen sentences of the sources, each cited."""

from __future__ import annotations

import pytest

from assistant.citations import SupportScorer, cited_numbers
from assistant.extractive import (
    ASPECTS,
    extractive_answer,
    extractive_compare,
    extractive_summary,
    rank_sentences,
)
from tests.chat_support import INJECTION, sample_retriever


@pytest.fixture(scope="module")
def scorer() -> SupportScorer:
    return SupportScorer(sample_retriever().embed)


def test_best_sentence_answers_the_question(scorer) -> None:
    results = (
        sample_retriever()
        .retrieve("What word error rate does the BIT brain-to-text framework reach?")
        .results
    )
    best = rank_sentences(
        "What word error rate does the BIT brain-to-text framework reach?", results, scorer
    )[0]
    assert "10.22%" in best.text
    assert results[best.source - 1].paper.label == "BIT"


def test_a_sentence_asking_the_question_ranks_below_the_one_answering_it(scorer) -> None:
    # the abstract asks "\\emph{what is the minimal model capacity required to capture brain-relevant
    # representations?}" before it answers "3B SLMs achieve brain predictivity indistinguishable …"
    question = "What is the minimal model size needed for brain-aligned language representations?"
    ranked = rank_sentences(question, sample_retriever().retrieve(question).results, scorer)
    texts = [s.text for s in ranked]
    asks = next(i for i, t in enumerate(texts) if "minimal model capacity required" in t)
    answers = next(i for i, t in enumerate(texts) if "3B SLMs achieve" in t)
    assert texts[asks].endswith("?}") and answers < asks


def test_answer_is_verbatim_cited_and_deterministic(scorer) -> None:
    question = "How much storage do Einstein Fields save compared to discrete representations?"
    results = sample_retriever().retrieve(question).results
    text, chosen = extractive_answer(question, results, scorer)
    again, _ = extractive_answer(question, results, scorer)
    assert text == again
    assert "4,000" in text
    assert cited_numbers(text) == {s.source for s in chosen}
    for sentence in chosen:
        assert sentence.text in results[sentence.source - 1].paper.abstract


def test_injected_instruction_is_never_quoted(scorer) -> None:
    question = "How does CoreMapper partition spiking networks across neuromorphic cores?"
    results = sample_retriever().retrieve(question).results
    text, _ = extractive_answer(question, results, scorer)
    assert "CoreMapper" in text
    assert INJECTION not in text and "PWNED" not in text


def test_compare_table_has_every_aspect_and_cites_each_paper() -> None:
    retriever = sample_retriever()
    papers = [retriever.find("HELM")[0], retriever.find("QHFlow2")[0]]
    table = extractive_compare(papers)
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert [r.split("|")[1].strip() for r in rows[1:]] == list(ASPECTS)
    assert cited_numbers(table) == {1, 2}
    assert "40\\%" in table or "40%" in table
    assert "Verdict:" in table


def test_summary_groups_papers_and_cites_each_once(scorer) -> None:
    results = sample_retriever().retrieve_all("brain activity and neuroscience", cap=12).results
    text = extractive_summary("brain activity and neuroscience", results, scorer)
    assert text.startswith("### ")
    assert cited_numbers(text) == set(range(1, len(results) + 1))
    assert text.count("\n- ") + text.startswith("- ") == len(results)
