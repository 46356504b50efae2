"""Mode detection, subfield summaries and comparisons."""

from __future__ import annotations

import re

import pytest

from assistant.chain import Assistant
from assistant.citations import cited_numbers
from assistant.extractive import aspect_cells
from assistant.llm.extractive import ExtractiveBackend
from assistant.llm.fake import ScriptedBackend
from assistant.modes import compare_targets, detect_mode, summarize_topic
from assistant.settings import Settings
from assistant.types import Answer, Event
from tests.chat_support import sample_retriever

_BASE: list[Assistant] = []


def make(llm) -> Assistant:
    """An assistant on the shared store; all share one cache of sentence vectors, to keep the suite fast."""
    if not _BASE:
        _BASE.append(Assistant(sample_retriever(), ExtractiveBackend(), Settings()))
    return _BASE[0].with_llm(llm)


def run(assistant: Assistant, question: str, **kw) -> tuple[list[Event], Answer]:
    events = list(assistant.stream(question, **kw))
    assert events[-1].answer is not None
    return events, events[-1].answer


@pytest.mark.parametrize(
    ("question", "mode"),
    [
        ("Summarize the work on spiking neural networks", "summarize"),
        ("Give me an overview of brain foundation models", "summarize"),
        ("What has been done on Hamiltonian prediction?", "summarize"),
        ("Compare SmoothSpike and Spik4lite", "compare"),
        ("HELM vs QHFlow2", "compare"),
        ("What is the difference between BrainGFM and Spike-DB?", "compare"),
        ("Contrast the two weather papers", "compare"),
        ("How does SmoothSpike work?", "ask"),
        ("Which papers compute overviews of brain scans?", "ask"),
    ],
)
def test_detect_mode(question, mode) -> None:
    assert detect_mode(question) == mode


def test_explicit_mode_wins() -> None:
    assert detect_mode("Compare A and B", "ask") == "ask"
    assert detect_mode("How does HELM work?", "summarize") == "summarize"


def test_topics_and_targets() -> None:
    assert summarize_topic("Summarize the work on spiking neural networks?") == "spiking neural networks"
    assert summarize_topic("What has been done on Hamiltonian prediction?") == "Hamiltonian prediction"
    assert compare_targets("Compare SmoothSpike and Spik4lite")[0] == ["SmoothSpike", "Spik4lite"]
    assert compare_targets("HELM vs. QHFlow2?")[0] == ["HELM", "QHFlow2"]
    assert compare_targets("What is the difference between BrainGFM and Spike-DB?")[0] == [
        "BrainGFM",
        "Spike-DB",
    ]
    assert compare_targets("Contrast the two spiking network distillation papers") == (
        ["spiking network distillation papers"],
        2,
    )


def test_extractive_summary_covers_every_matching_paper() -> None:
    retriever = sample_retriever()
    matching = retriever.count_matching("spiking neural networks", None)
    events, answer = run(make(ExtractiveBackend()), "Summarize the work on spiking neural networks")
    assert answer.mode == "summarize" and answer.grounded
    assert f"Coverage: covers {matching} of {matching} matching papers." in answer.answer
    assert len(answer.citations) == matching == len(answer.sources)
    assert cited_numbers(answer.answer) == set(range(1, matching + 1))
    assert {"SmoothSpike", "Spik4lite", "MEOM"} <= {c.label for c in answer.citations}
    assert any(e.kind == "status" and "Summarizing" in e.text for e in events)


def test_llm_summary_is_completed_with_the_papers_it_left_out() -> None:
    llm = ScriptedBackend(
        lambda m: (
            "### Spiking language models\nSmoothSpike smooths pre-activation inputs with "
            "a randomized Hadamard transformation [1]."
        )
    )
    _, answer = run(make(llm), "Summarize the work on spiking neural networks")
    n = len(answer.sources)
    assert n >= 3
    assert "Also on this topic:" in answer.answer
    assert len(answer.citations) == n and f"covers {n} of {n}" in answer.answer
    assert (
        "summarize" in llm.received[-1][-1]["content"].lower()
        or "overview" in llm.received[-1][-1]["content"]
    )


def test_local_model_summary_reads_one_note_per_paper_in_a_single_call() -> None:
    llm = ScriptedBackend(
        lambda m: (
            "### Spiking language models\nSmoothSpike smooths pre-activation inputs with "
            "a randomized Hadamard transformation [1]."
        )
    )
    llm.compact_prompts = True  # a slow local model: no map calls, the notes come from the abstracts
    _, answer = run(make(llm), "Summarize the work on spiking neural networks")
    n = len(answer.sources)
    assert n >= 3 and len(llm.received) == 1
    prompt = llm.received[0][-1]["content"]
    notes = [line for line in prompt.splitlines() if line.startswith("- ")]
    assert len(notes) == n and f"Notes on {n} papers" in prompt
    for k, (line, result) in enumerate(zip(notes, answer.sources, strict=True), 1):
        assert line.endswith(f"[{k}]")
        assert line.split(": ", 1)[1].split()[0] in result.paper.abstract
    assert f"covers {n} of {n}" in answer.answer


def test_summary_notes_shrink_to_fit_the_budget_and_skip_injected_sentences() -> None:
    from assistant.summarize import extractive_notes
    from tests.chat_support import INJECTION

    assistant = make(ScriptedBackend())
    results = assistant.retriever.retrieve_all("neuromorphic spiking networks", cap=40).results
    assert any(INJECTION in r.paper.abstract for r in results)
    wide = extractive_notes(assistant, "neuromorphic spiking networks", results, budget=4000)
    tight = extractive_notes(assistant, "neuromorphic spiking networks", results, budget=150)
    assert len(wide.splitlines()) == len(results) and INJECTION not in wide
    assert assistant.llm.count_tokens(tight) <= 150 and 1 <= len(tight.splitlines()) <= len(results)


def test_summary_of_an_absent_topic_is_not_grounded() -> None:
    _, answer = run(make(ExtractiveBackend()), "Summarize the work on sourdough fermentation")
    assert not answer.grounded and "does not cover" in answer.answer


def test_extractive_compare_builds_the_table() -> None:
    _, answer = run(make(ExtractiveBackend()), "Compare HELM and QHFlow2")
    assert answer.mode == "compare" and answer.grounded
    assert [c.label for c in answer.citations] == ["HELM", "QHFlow2"]
    for row in ("Problem", "Method", "Data", "Results", "Limitations"):
        assert re.search(rf"^\| {row} \|", answer.answer, re.MULTILINE)
    assert "Verdict:" in answer.answer


def test_compare_says_which_paper_is_not_in_the_corpus() -> None:
    events, answer = run(make(ExtractiveBackend()), "Compare U-Cast and WeatherGPT-X")
    assert "WeatherGPT-X is not in the corpus." in answer.answer
    assert not answer.grounded and [c.label for c in answer.citations] == ["U-Cast"]
    _, answer = run(make(ExtractiveBackend()), "Compare SmoothSpike, Spik4lite and FooNet-9")
    assert answer.answer.startswith("FooNet-9 is not in the corpus.")
    assert [c.label for c in answer.citations] == ["SmoothSpike", "Spik4lite"]


def test_llm_compare_fills_a_table_it_does_not_shape_and_its_citations_are_checked() -> None:
    smooth = (
        "Method: randomized Hadamard transformation of pre-activation inputs\n"  # no Problem line
        "Data: not stated\nResults: bounds the maximum input with high probability\nLimitations: N/A"
    )
    spik = (
        "Here is the description.\n**Problem:** costly spiking network inference on edge devices [1]\n"
        "Method: zeroing out low-efficiency channels and compensating spikes [5]\n"
        "- Data: NVIDIA Jetsons\nResults: a better trade-off of accuracy and efficiency\nLimitations: None"
    )
    verdict = (
        "**Verdict:** SmoothSpike smooths pre-activation inputs with a randomized Hadamard transformation [1], "
        "while Spik4lite zeroes out low-efficiency channels [2] [7]."
    )
    llm = ScriptedBackend([smooth, spik, verdict])
    events, answer = run(make(llm), "Compare SmoothSpike and Spik4lite")
    first, second, last = (messages[-1]["content"] for messages in llm.received)
    assert "Newton-Schulz" in first and "NVIDIA Jetsons" not in first  # each paper is read alone
    assert "NVIDIA Jetsons" in second and "Newton-Schulz" not in second
    assert (
        "| Method | randomized Hadamard transformation of pre-activation inputs [1] |" in last
    )  # the verdict reads the table
    rows = [line for line in answer.answer.splitlines() if line.startswith("|")]
    assert [row.split("|")[1].strip() for row in rows[2:]] == [
        "Problem",
        "Method",
        "Data",
        "Results",
        "Limitations",
    ]
    assert all(row.count("|") == 4 for row in rows)  # one column per paper, in every row
    assert (
        "| Method | randomized Hadamard transformation of pre-activation inputs [1] | "
        "zeroing out low-efficiency channels and compensating spikes [2] |"
    ) in answer.answer
    assert "| Data | not stated | NVIDIA Jetsons [2] |" in answer.answer
    assert rows[-1] == "| Limitations | not stated | not stated |"
    smooth_problem = aspect_cells(answer.sources[0])["Problem"]  # left out by the model: the abstract's own
    assert smooth_problem and f"| Problem | {smooth_problem.rstrip('.')} [1]" in answer.answer
    assert "| costly spiking network inference on edge devices [2] |" in answer.answer
    assert (
        "Verdict: SmoothSpike smooths pre-activation inputs with a randomized Hadamard transformation [1], "
        "while Spik4lite zeroes out low-efficiency channels [2]"
    ) in answer.answer
    assert "**" not in answer.answer and "[7]" not in answer.answer and answer.removed_citations == 1
    assert [c.label for c in answer.citations] == ["SmoothSpike", "Spik4lite"]
    streamed = "".join(e.text for e in events if e.kind == "token")
    assert streamed.count("Verdict:") == 1 and "Reading" in " ".join(
        e.text for e in events if e.kind == "status"
    )


def test_a_summary_of_a_large_subfield_can_be_listed_in_full() -> None:
    from assistant.summarize import LIST_ALL_HINT, wants_full_list
    from assistant.types import Turn

    retriever = sample_retriever()
    settings = Settings()
    settings.chain.summarize_cap = 2
    assistant = Assistant(retriever, ExtractiveBackend(), settings)
    question = "Summarize the work on spiking neural networks"
    matching = retriever.count_matching("spiking neural networks", None)
    assert matching > 2
    _, summary = run(assistant, question)
    assert f"covers 2 of {matching} matching papers. {LIST_ALL_HINT}" in summary.answer
    history = [Turn(question, summary.answer, [c.paper_id for c in summary.citations])]
    _, listed = run(assistant, "List all of them", history=history)
    assert listed.mode == "summarize" and listed.grounded
    assert listed.answer.startswith(f"All {matching} papers matching")
    assert len(listed.citations) == matching and cited_numbers(listed.answer) == set(range(1, matching + 1))
    assert {c.paper_id for c in summary.citations} <= {c.paper_id for c in listed.citations}
    assert not wants_full_list("List all of them", [Turn("How does SmoothSpike work?", "…", [])])
