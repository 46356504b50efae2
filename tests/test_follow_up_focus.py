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
