"""Every prompt renders with exactly its declared variables, and only then."""

from __future__ import annotations

import pytest

import prompts
from prompts import PromptError

EXPECTED = {
    "system",
    "condense",
    "answer",
    "summarize_map",
    "summarize_reduce",
    "compare_paper",
    "compare_verdict",
}


def test_all_product_prompts_exist() -> None:
    assert EXPECTED <= set(prompts.names())


@pytest.mark.parametrize("name", prompts.names())
def test_every_prompt_renders_with_its_declared_variables(name: str) -> None:
    declared = prompts.variables(name)
    values = {v: f"<<{v} value {{not_a_placeholder}}>>" for v in declared}
    text = prompts.render(name, **values)
    for v in declared:
        assert f"<<{v} value {{not_a_placeholder}}>>" in text  # inserted once, never re-scanned
    assert "# variables" not in text
    assert not any(f"{{{v}}}" in text for v in declared)


@pytest.mark.parametrize("name", prompts.names())
def test_missing_variable_is_an_error(name: str) -> None:
    declared = prompts.variables(name)
    if not declared:
        pytest.skip("no variables")
    with pytest.raises(PromptError, match="missing"):
        prompts.render(name, **{v: "x" for v in declared[1:]})


def test_unexpected_variable_is_an_error() -> None:
    with pytest.raises(PromptError, match="unexpected"):
        prompts.render("answer", question="q", sources="s", extra="no")


def test_unknown_prompt_is_an_error() -> None:
    with pytest.raises(PromptError, match="no prompt named"):
        prompts.render("nonexistent")


def test_system_prompt_demands_citations_and_treats_sources_as_data() -> None:
    text = prompts.render("system", marker="NOT_IN_CORPUS").lower()
    assert "[1]" in text and "not_in_corpus" in text
    assert "untrusted" in text and "ignore" in text and "<source>" in text


def test_answer_prompt_puts_question_after_sources() -> None:
    text = prompts.render("answer", question="QUESTION?", sources="SOURCES")
    assert text.index("SOURCES") < text.index("QUESTION?")
