"""Mode routing on 40 phrasings each of a comparison and a summary request, and on 40 plain questions that
name a method, a dataset or a baseline and must be answered as questions (issue 24: a question goes to
compare or summarize only when it asks for that). Also what each request names: the items to compare and the
topic to summarize, and that a follow-up is routed by its own words, not by the history folded into it."""

from __future__ import annotations

import pytest

from assistant.chain import Assistant
from assistant.llm.extractive import ExtractiveBackend
from assistant.modes import compare_targets, detect_mode, summarize_topic
from assistant.settings import Settings
from assistant.types import Turn
from tests.chat_support import sample_retriever

COMPARE = [
    "Compare SmoothSpike and BSD",
    "compare LoRA with DoRA",
    "Contrast GRPO and PPO for reasoning",
    "SmoothSpike vs. BSD",
    "lora vs dora",
    "GRPO versus DPO: which is better for alignment?",
    "What are the differences between Mamba and transformers in these papers?",
    "What's the difference between DiT and U-Net diffusion backbones?",
    "Difference between PPO and GRPO?",
    "How does GRPO differ from PPO?",
    "How do FlashAttention and PagedAttention differ?",
    "In what ways do Mamba and RWKV differ?",
    "Which is better, LoRA or full fine-tuning?",
    "Which performs better: DPO or RLHF?",
    "How does SmoothSpike compare to BSD?",
    "How do SmoothSpike and BSD compare?",
    "How does BSD stack up against SmoothSpike?",
    "SmoothSpike or BSD: which one needs fewer time steps?",
    "Which of SmoothSpike and BSD uses fewer time steps?",
    "Please compare the two papers on spiking neural network conversion",
    "Compare the three papers on neuromorphic hardware mapping",
    "Can you compare CoreMapper and Spik4lite?",
    "Could you contrast Mamba with attention-based models?",
    "I'd like a comparison of DoRA and LoRA",
    "Give me a comparison between GraphCast and GenCast",
    "Side-by-side comparison of CoreMapper and Spik4lite",
    "Compare and contrast diffusion policies and flow matching policies",
    "What distinguishes SmoothSpike from BSD?",
    "What sets DoRA apart from LoRA?",
    "How is DoRA different from LoRA?",
    "How are GraphCast and GenCast different?",
    "Tell me how GraphCast and GenCast differ",
    "What do SmoothSpike and BSD have in common, and where do they differ?",
    "Similarities and differences between GRPO and DPO",
    "Pros and cons of LoRA versus adapters",
    "Weigh LoRA against QLoRA",
    "compare: SmoothSpike, BSD, Spik4lite",
    "SmoothSpike against BSD: strengths and weaknesses",
    "Is BrainGFM or Spike-DB more data-efficient?",
    "Put HELM and QHFlow2 side by side",
]
SUMMARIZE = [
    "Summarize the work on spiking neural networks",
    "summarise research on neuromorphic computing",
    "Can you summarize the papers on model merging?",
    "Please summarize what the corpus says about mixture of experts",
    "Briefly summarize the research on reward hacking",
    "Summarize the ICML 2026 papers on causal discovery",
    "What is the research on membership inference attacks at these conferences? Summarize it.",
    "Sum up the work on quantization of LLMs",
    "Give me an overview of diffusion models for weather forecasting",
    "Give an overview of test-time scaling",
    "Can you give an overview of the research on diffusion language models?",
    "Could you provide an overview of retrieval-augmented generation work?",
    "Overview of LLM agent papers",
    "Overview: KV cache compression",
    "Survey the papers about graph foundation models",
    "Survey of methods for membership inference",
    "What has been done on brain foundation models?",
    "What has been done in table understanding?",
    "What's been published on optimal transport?",
    "What work exists on hallucination detection?",
    "What research is there on federated learning?",
    "A summary of the work about RLHF",
    "I want a summary of papers on multimodal retrieval",
    "Give me a high-level summary of work on sparse autoencoders",
    "What are the main themes in research on LLM reasoning?",
    "What are the main approaches to machine unlearning?",
    "What are the common approaches for long-context modeling?",
    "What approaches have been proposed for jailbreak defense?",
    "What are the trends in spiking neural network research?",
    "What are the recent trends in LLM alignment?",
    "Summarize recent advances in protein design",
    "Tell me about the research landscape of federated learning",
    "Give me the big picture of work on continual learning",
    "Review the literature on speculative decoding",
    "Literature review of graph transformers",
    "Give me a rundown of papers on robot learning from video",
    "What do the papers say about in-context learning?",
    "What are the key ideas across papers on world models?",
    "Map out the research on LLM-based code generation",
    "Overview the work on neural operators",
]
ASK = [
    "How does SmoothSpike close the gap between spiking networks and ANNs?",
    "What datasets does BSD evaluate on?",
    "Which benchmark does TABLET introduce?",
    "What is the key idea behind CoreMapper?",
    "Who wrote SmoothSpike?",
    "How many time steps does SmoothSpike need?",
    "Which paper proposes a randomized Hadamard transformation for spiking networks?",
    "What problem does Spik4lite address?",
    "How does DoRA decompose the pretrained weights?",
    "What baselines does GenCast beat?",
    "On which datasets is BrainGFM pretrained?",
    "What is the main contribution of the TABLET paper?",
    "What accuracy does SmoothSpike reach on ImageNet?",
    "What speedup over FlashAttention-2 does PBS-Attn report?",
    "How does the proposed kernel compare against FlashAttention-2 in throughput?",
    "Is SmoothSpike better than prior ANN-to-SNN conversion methods?",
    "How much better is QHFlow2 than the previous state of the art?",
    "What is the difference in accuracy between SmoothSpike and its ANN teacher?",
    "Which optimizers does the Muon paper compare against?",
    "Which datasets were used to compare BSD with its baselines?",
    "What does the summary of results in BSD show?",
    "How does the survey paper on LLM agents categorize methods?",
    "How does SmoothSpike handle outliers in pre-activations?",
    "How does the method differ from standard rotary position embeddings?",
    "How does SmoothSpike differ from conventional ANN-to-SNN conversion?",
    "How is HELM different from previous Hamiltonian models?",
    "Tell me about SmoothSpike.",
    "Explain how BSD works.",
    "What are the limitations of CoreMapper?",
    "What results does DoRA report on LLaMA?",
    "Was SmoothSpike published at ICLR or ICML?",
    "What does GRPO optimize in the DeepSeekMath-style setup of this paper?",
    "What does the MEOM paper propose for brain signals?",
    "What is the runner-up on the T1 benchmark?",
    "By how much does QHFlow2 beat its baselines?",
    "Which model does BrainGFM use as its backbone, a transformer or a GNN?",
    "What loss does Spike-DB train with?",
    "Does HELM outperform DFT-based methods on accuracy?",
    "How does CoreMapper map spiking networks onto neuromorphic cores?",
    "What is the KV cache eviction policy of the paper that uses attention sinks?",
]


def test_the_lists_are_forty_distinct_phrasings_each() -> None:
    for questions in (COMPARE, SUMMARIZE, ASK):
        assert len(questions) == len(set(questions)) == 40


@pytest.mark.parametrize("question", COMPARE)
def test_comparison_requests_go_to_compare(question: str) -> None:
    assert detect_mode(question) == "compare"


@pytest.mark.parametrize("question", SUMMARIZE)
def test_summary_requests_go_to_summarize(question: str) -> None:
    assert detect_mode(question) == "summarize"


@pytest.mark.parametrize("question", ASK)
def test_plain_questions_naming_a_method_are_asked(question: str) -> None:
    assert detect_mode(question) == "ask"


@pytest.mark.parametrize(
    ("question", "targets"),
    [
        ("How does GRPO differ from PPO?", ["GRPO", "PPO"]),
        ("How does SmoothSpike compare to BSD?", ["SmoothSpike", "BSD"]),
        ("How does BSD stack up against SmoothSpike?", ["BSD", "SmoothSpike"]),
        ("Which is better, LoRA or full fine-tuning?", ["LoRA", "full fine-tuning"]),
        ("SmoothSpike or BSD: which one needs fewer time steps?", ["SmoothSpike", "BSD"]),
        ("Which of SmoothSpike and BSD uses fewer time steps?", ["SmoothSpike", "BSD"]),
        ("Is BrainGFM or Spike-DB more data-efficient?", ["BrainGFM", "Spike-DB"]),
        ("Contrast GRPO and PPO for reasoning", ["GRPO", "PPO"]),
        ("What sets DoRA apart from LoRA?", ["DoRA", "LoRA"]),
        ("What do SmoothSpike and BSD have in common, and where do they differ?", ["SmoothSpike", "BSD"]),
        ("Can you compare CoreMapper and Spik4lite?", ["CoreMapper", "Spik4lite"]),
        ("I'd like a comparison of DoRA and LoRA", ["DoRA", "LoRA"]),
        ("Put HELM and QHFlow2 side by side", ["HELM", "QHFlow2"]),
        ("compare: SmoothSpike, BSD, Spik4lite", ["SmoothSpike", "BSD", "Spik4lite"]),
    ],
)
def test_compare_targets_of_each_phrasing(question: str, targets: list[str]) -> None:
    assert compare_targets(question) == (targets, 0)


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        (
            "What is the research on membership inference attacks at these conferences? Summarize it.",
            "membership inference attacks",
        ),
        ("What are the trends in spiking neural network research?", "spiking neural network"),
        ("What do the papers say about in-context learning?", "in-context learning"),
        ("What's been published on optimal transport?", "optimal transport"),
        ("Give me a high-level summary of work on sparse autoencoders", "sparse autoencoders"),
        (
            "Can you give an overview of the research on diffusion language models?",
            "diffusion language models",
        ),
        ("What approaches have been proposed for jailbreak defense?", "jailbreak defense"),
        ("Tell me about the research landscape of federated learning", "federated learning"),
        ("Overview: KV cache compression", "KV cache compression"),
    ],
)
def test_summary_topic_of_each_phrasing(question: str, topic: str) -> None:
    assert summarize_topic(question) == topic


@pytest.mark.parametrize(
    "question",
    [
        "Which paper gives precise definitions of memory types for RL agents, such as long-term vs short-term?",
        "Which method trains on both real vs synthetic images and reports the difference between them?",
        "What benchmark compares LLM agents against human experts on data science tasks?",
    ],
)
def test_a_question_looking_for_one_paper_is_asked_whatever_it_mentions(question: str) -> None:
    assert detect_mode(question) == "ask"


def test_a_follow_up_is_routed_by_its_own_words_not_by_the_history() -> None:
    """ "Who wrote it?" after a question with "vs" in it is a question, not a comparison."""
    assistant = Assistant(sample_retriever(), ExtractiveBackend(), Settings())
    first = "How does SmoothSpike close the gap between spiking networks and ANNs, short-term vs long-term?"
    answer = assistant.ask(first)
    history = [Turn(first, answer.answer, [c.paper_id for c in answer.citations])]
    follow = assistant.ask("Which transform does it apply?", history)
    assert follow.mode == "ask" and follow.grounded
    assert follow.citations[0].label == "SmoothSpike"
