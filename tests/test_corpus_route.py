"""Which questions the auto mode sends to the corpus mode: 40 phrasings of counts, lists, breakdowns and
shares go there; 40 ordinary questions (about what papers say, naming a method, summaries, comparisons,
numbers inside one paper) do not. Follow-ups of a corpus answer stay in the corpus mode."""

from __future__ import annotations

import pytest

from assistant.corpus_parse import is_follow_up, parse_question
from assistant.corpus_route import criterion_for, looks_like_corpus_question, wants_corpus
from assistant.modes import detect_mode
from assistant.types import Turn

VENUES = ["ICLR 2026", "ICML 2026"]

CORPUS = [
    "How many ICML 2026 orals are about diffusion?",
    "Which primary areas have the most ICLR 2026 orals?",
    "List the ICML 2026 papers by Yoshua Bengio",
    "Is reinforcement learning a bigger share of ICML than of ICLR this year?",
    "What are the most common keywords of the ICLR 2026 papers on LLM agents?",
    "how many papers mention graph neural networks",
    "How many orals does ICLR 2026 have?",
    "Count the ICLR papers about federated learning",
    "Number of ICML 2026 papers on protein design",
    "What is the total number of papers about mixture of experts?",
    "List all ICLR 2026 orals on reinforcement learning",
    "Show me all papers about sparse autoencoders",
    "Give me every ICML spotlight paper on diffusion",
    "Which ICLR 2026 papers are tagged with the keyword 'LoRA'?",
    "All papers written by Sergey Levine",
    "Papers by Chelsea Finn at ICML 2026",
    "Who has the most papers at ICML 2026?",
    "Who wrote the most ICML papers on reinforcement learning?",
    "Top 10 keywords at ICLR 2026",
    "What are the top 5 primary areas of ICLR orals?",
    "Most common primary areas among the ICLR 2026 papers about diffusion",
    "Breakdown of the ICLR 2026 papers by primary area",
    "Distribution of papers about LLM agents across venues",
    "Number of papers per venue",
    "Diffusion papers by status",
    "Papers per primary area at ICLR 2026",
    "What share of ICML orals are about diffusion?",
    "What fraction of ICLR 2026 papers mention transformers?",
    "What percentage of the papers are orals?",
    "Proportion of ICLR papers in the primary area of reinforcement learning",
    "Are there more diffusion papers at ICML than at ICLR?",
    "Does ICLR have more orals than ICML?",
    "How many ICLR 2026 papers are in the primary area of optimization?",
    "How many of the ICML 2026 papers are by Pieter Abbeel?",
    "which keywords appear most often in ICLR papers on robotics",
    "How many accepted papers mention 'flow matching' in their titles?",
    "Can you list the ICLR 2026 orals about large language models?",
    "Please count the ICML posters about federated learning",
    "What is the ratio of orals to posters at ICML 2026?",
    "venue: ICML 2026; status: Oral; topic: diffusion; show: count",
]

ORDINARY = [
    "What is the main contribution of the SmoothSpike paper?",
    "How does SmoothSpike close the gap between spiking networks and ANNs?",
    "Which paper proposes a randomized Hadamard transformation for spiking networks?",
    "How many layers does the proposed transformer use?",
    "How many GPUs did they train on?",
    "How many parameters does the LoRA adapter add?",
    "How many tokens per second does speculative decoding reach?",
    "What datasets are used to evaluate graph neural networks for molecules?",
    "Summarize the work on diffusion models for protein design",
    "Give me an overview of research on LLM agents",
    "What has been done on federated learning at these conferences?",
    "Compare DPO and PPO for aligning language models",
    "How does flow matching differ from diffusion?",
    "GRPO vs PPO for reasoning",
    "What are the differences between LoRA and full fine-tuning?",
    "Which is better for long context, Mamba or attention?",
    "What is FlashAttention and why is it faster?",
    "Explain the idea behind sparse autoencoders for interpretability",
    "Does any paper study reward hacking in RLHF?",
    "Is there a paper on watermarking LLM outputs?",
    "What baselines does the paper compare against?",
    "Which benchmark shows the largest improvement?",
    "What accuracy does the method reach on ImageNet?",
    "How much does the new optimizer reduce training time?",
    "Who are the authors of the SmoothSpike paper?",
    "What is the paper by Smith et al. about?",
    "What does the ICLR 2026 paper on misleading creator intent propose?",
    "Tell me about retrieval-augmented generation for code",
    "What are the limitations of chain-of-thought prompting?",
    "How do they measure hallucination?",
    "What loss function does the paper use?",
    "Why does the model fail on long sequences?",
    "How is the reward model trained?",
    "Which optimizer do they use, Adam or SGD?",
    "What is the most common failure mode of the proposed agent?",
    "What are the main approaches to test-time scaling?",
    "How many steps does the sampler need to match the baseline?",
    "Can you explain the GFlowNet objective they propose?",
    "What results does the paper report on GSM8K?",
    "How many papers does the survey cite?",
]


def test_the_lists_are_forty_distinct_questions_each() -> None:
    assert len(set(CORPUS)) == 40 and len(set(ORDINARY)) == 40


@pytest.mark.parametrize("question", CORPUS)
def test_corpus_questions_go_to_the_corpus_mode(question: str) -> None:
    assert looks_like_corpus_question(question), question
    assert detect_mode(question) == "corpus"


@pytest.mark.parametrize("question", ORDINARY)
def test_ordinary_questions_do_not(question: str) -> None:
    assert not looks_like_corpus_question(question), question
    assert not wants_corpus(question, [])
    assert detect_mode(question) != "corpus"


def test_an_explicit_mode_wins() -> None:
    assert detect_mode("How many ICML orals are about diffusion?", "ask") == "ask"
    assert detect_mode("What is FlashAttention?", "corpus") == "corpus"


FIRST = "How many ICML 2026 papers are about diffusion?"


def history(*questions: str) -> list[Turn]:
    return [Turn(q, "…") for q in questions]


def test_and_how_many_of_those_are_orals_narrows_the_last_result() -> None:
    turns = history(FIRST)
    follow = "And how many of those are orals?"
    assert is_follow_up(follow) and wants_corpus(follow, turns)
    criterion = criterion_for(follow, turns, VENUES)
    assert criterion is not None
    assert criterion.venues == ("ICML 2026",) and criterion.status == "Oral"
    assert criterion.topics == (("diffusion",),) and criterion.show == "count"


def test_show_them_lists_the_last_result() -> None:
    turns = history(FIRST, "And how many of those are orals?")
    criterion = criterion_for("show them", turns, VENUES)
    assert criterion is not None and wants_corpus("show them", turns)
    assert criterion.show == "list" and criterion.status == "Oral" and criterion.topics == (("diffusion",),)


def test_what_about_another_venue_switches_it() -> None:
    criterion = criterion_for("What about ICLR?", history(FIRST), VENUES)
    assert criterion is not None and criterion.venues == ("ICLR",) and criterion.topics == (("diffusion",),)


def test_a_follow_up_breakdown_keeps_the_filters() -> None:
    criterion = criterion_for("break them down by status", history(FIRST), VENUES)
    assert criterion is not None and criterion.group == "status" and criterion.topics == (("diffusion",),)


def test_follow_ups_of_an_ordinary_answer_are_not_corpus_questions() -> None:
    turns = history("What is the main contribution of the SmoothSpike paper?")
    assert criterion_for("show them", turns, VENUES) is None
    assert not wants_corpus("And how do they train it?", turns)
    assert not wants_corpus("show them", turns)


def test_a_new_corpus_question_after_one_is_read_on_its_own() -> None:
    turns = history(FIRST)
    question = "How many ICLR 2026 orals are about graph neural networks?"
    assert criterion_for(question, turns, VENUES) is None
    criterion = parse_question(question, VENUES)
    assert criterion.venues == ("ICLR 2026",) and criterion.topics[0][0] == "graph neural networks"
