"""Follow-ups that point back at the papers of the last answer (assistant.follow_up)."""

from __future__ import annotations

import pytest

from assistant.follow_up import asks_authors, focus_papers
from assistant.types import Turn

LAST = [Turn("How does T1 scale test-time compute?", "T1 does ... [1] [2]", ["p1", "p2"])]


@pytest.mark.parametrize(
    "question",
    [
        "Which datasets did they run their experiments on?",
        "By how much does T1 beat the runner-up?",
        "Who wrote it?",
        "Who are the authors?",
        "What are its limitations?",
        "How many tasks does the benchmark in this paper contain?",
        "Does the proposed method need labels?",
    ],
)
def test_a_question_pointing_back_keeps_the_last_papers(question: str) -> None:
    assert focus_papers(question, LAST) == ("p1", "p2")


@pytest.mark.parametrize(
    "question",
    ["Which papers study protein folding with diffusion?", "What about PBS-Attn?", "Summarize work on RLHF"],
)
def test_a_question_standing_on_its_own_has_no_focus(question: str) -> None:
    assert focus_papers(question, LAST) == ()
    assert focus_papers("Who wrote it?", []) == ()
    assert focus_papers("Who wrote it?", [Turn("q", "refused", [])]) == ()


def test_author_questions() -> None:
    for q in ("Who wrote it?", "Who are the authors?", "Who is behind this paper?", "List its authors"):
        assert asks_authors(q)
    for q in ("Which paper studies authorship attribution?", "What does it write to memory?"):
        assert not asks_authors(q)


def _assistant():
    from assistant.chain import Assistant
    from assistant.llm.extractive import ExtractiveBackend
    from assistant.settings import Settings
    from tests.chat_support import sample_retriever

    return Assistant(sample_retriever(), ExtractiveBackend(), Settings())


def test_a_follow_up_is_answered_from_the_paper_under_discussion_in_the_users_words() -> None:
    assistant = _assistant()
    first = "Which papers make spiking neural networks work for language models?"
    answer = assistant.ask(first)
    cited = [c.paper_id for c in answer.citations]
    assert len(cited) >= 2, "the first answer should cite several papers"
    history = [Turn(first, answer.answer, cited)]
    follow = assistant.ask("What does it apply to the pre-activation inputs?", history)
    assert follow.grounded and {c.paper_id for c in follow.citations} == {cited[0]}


def test_who_wrote_it_is_answered_from_the_list_and_never_guessed() -> None:
    assistant = _assistant()
    first = "How does SmoothSpike close the gap between spiking networks and ANNs?"
    answer = assistant.ask(first)
    history = [Turn(first, answer.answer, [c.paper_id for c in answer.citations])]
    follow = assistant.ask("Who wrote it?", history)
    paper = next(p for p in assistant.papers() if p.paper_id == answer.citations[0].paper_id)
    assert follow.citations[0].paper_id == paper.paper_id
    if paper.authors:
        assert all(name in follow.answer for name in paper.authors)
    else:
        assert "gives no authors" in follow.answer and "cannot say who wrote it" in follow.answer


def test_a_model_finding_nothing_in_the_paper_under_discussion_shows_its_sentences() -> None:
    """A small model's "not in the sources" about the paper a follow-up points at is not a refusal: the paper
    is known, so the answer is its abstract's sentences closest to the question, with a notice saying so."""
    from assistant.ask import FOCUSED_NONE
    from assistant.chain import Assistant
    from assistant.llm.fake import ScriptedBackend
    from assistant.settings import Settings
    from assistant.writing import NOT_IN_CORPUS
    from tests.chat_support import sample_retriever

    retriever = sample_retriever()
    paper = retriever.retrieve("What improvement does SmoothSpike report on GLUE?", k=1).results[0].paper
    llm = ScriptedBackend(
        [NOT_IN_CORPUS]
    )  # the answer: a follow-up about a known paper is not model-rewritten
    llm.compact_prompts = True
    history = [Turn("What is SmoothSpike?", f"{paper.label} is ... [1]", [paper.paper_id])]
    answer = Assistant(retriever, llm, Settings()).ask("What does it report on GLUE?", history)
    assert answer.grounded and answer.notice == FOCUSED_NONE
    assert [c.paper_id for c in answer.citations] == [paper.paper_id] and "8.2" in answer.answer
    prompt = llm.received[-1][-1]["content"]
    assert prompt.count("<source ") == 1 and f'label="{paper.label}' in prompt  # that paper alone


def test_a_follow_up_about_known_papers_is_rewritten_without_the_model() -> None:
    """The model is called once, for the answer, with the same system prompt as before: no rewrite call that
    would cost a generation and the model's cached prompt. A follow-up with nothing to point back at is still
    rewritten by the model."""
    from assistant.chain import Assistant
    from assistant.llm.fake import ScriptedBackend
    from assistant.settings import Settings
    from tests.chat_support import sample_retriever

    retriever = sample_retriever()
    paper = retriever.retrieve("What improvement does SmoothSpike report on GLUE?", k=1).results[0].paper
    llm = ScriptedBackend(["SmoothSpike reports 8.2 points on GLUE [1]."])
    llm.compact_prompts = True
    history = [Turn("What is SmoothSpike?", f"{paper.label} is ... [1]", [paper.paper_id])]
    answer = Assistant(retriever, llm, Settings()).ask("What does it report on GLUE?", history)
    assert len(llm.received) == 1 and llm.received[0][0]["role"] == "system"
    assert "SmoothSpike" in answer.standalone_question and answer.citations[0].paper_id == paper.paper_id
    other = ScriptedBackend(["What does SmoothSpike report on GLUE?", "It reports 8.2 points [1]."])
    Assistant(retriever, other, Settings()).ask(
        "What does it report on GLUE?", [Turn("What is SmoothSpike?", "…")]
    )
    assert len(other.received) == 2  # no papers to point back at: the model rewrites it
