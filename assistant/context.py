"""The numbered sources put in a prompt: delimited, untrusted, and sized so the prompt always fits.

Each source is wrapped in `<source n="…">…</source>`; anything in a paper's text that looks like one of
these tags is defused first, so an abstract cannot close its own source and pose as instructions.

Local CPU models read prompts slowly (measured here: ~50 tokens/s for the 1.5B model on 2 AVX2 cores):
their backends set `compact_prompts`, and they get a smaller budget (`ChainSettings.local_*`). When a
sentence scorer is given (the ask chain), their sources are the question's best sentences across the top
papers, ranked like the extractive answer (embedding similarity plus rare question words), at most
`PER_PAPER` per paper and none far below the best one (another paper only when its best sentence
competes: each costs a header the first token waits for); each paper's sentences are shown in reading order.
The search's best paper is always source 1 (with its best sentence, whatever the score); the others follow
by their best sentence.
A follow-up about the one paper under discussion gets that paper alone (`one_paper=True`): as many of its
sentences as fit, best first, whatever their score, since the answer is somewhere in that abstract.
Without a scorer (summaries), a paper is shown by the sentences of its best-matching chunk that share most
words with the question. Other backends get whole abstracts.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from assistant.citations import SupportScorer
from assistant.extractive import Sentence, is_method_sentence, rank_sentences
from assistant.llm.base import ChatBackend
from assistant.settings import ChainSettings
from assistant.types import SearchResult
from vectorstore.chunking import split_sentences
from vectorstore.lexical import tokenize

__all__ = ["Context", "build_context", "available_budget", "is_compact", "defuse", "source_header"]

PER_PAPER = 3  # most sentences of one paper in a compact ask context
SENTENCE_FLOOR = 0.6  # a compact context holds no sentence scoring below this share of the best one
OTHER_PAPER_FLOOR = 0.8  # nor a paper besides the search's best whose best sentence scores below this share
ONE_PAPER_SENTENCES = 12  # a follow-up's one paper: its sentences up to the budget (an abstract has ~6-12)
SAFETY_TOKENS = 48  # chat-template tokens around each message, and counting slack
_TAG = re.compile(
    r"<\s*/?\s*(?:sources?|system|instructions?|user|assistant|im_start|im_end)\b[^>]*>?", re.IGNORECASE
)
_SPECIAL = re.compile(r"<\|[^|>]{0,40}\|>")


@dataclasses.dataclass
class Context:
    """The sources block of a prompt and the results it numbers (`sources[n - 1]` is source n)."""

    text: str
    sources: list[SearchResult]
    tokens: int
    dropped: int = 0


def is_compact(llm: ChatBackend) -> bool:
    """Whether `llm` is a slow local model that should get best chunks rather than whole abstracts."""
    return llm.compact_prompts


def available_budget(
    llm: ChatBackend,
    *,
    budget: int,
    reserved_text: Sequence[str],
    max_tokens: int,
    local_budget: int | None = None,
) -> int:
    """Tokens left for sources: the budget (for local models at most `local_budget`, by default the
    setting `chain.local_prompt_budget`), capped so that the whole prompt plus the reply fits the window."""
    used = (
        sum(llm.count_tokens(t) for t in reserved_text)
        + max_tokens
        + SAFETY_TOKENS * (len(reserved_text) + 1)
    )
    if is_compact(llm):
        budget = min(budget, ChainSettings().local_prompt_budget if local_budget is None else local_budget)
    return max(0, min(budget, llm.context_window - used))


def defuse(text: str) -> str:
    """`text` with source/role tags and chat special tokens neutralised, so it stays data."""
    text = _SPECIAL.sub(" ", text)
    return _TAG.sub(lambda m: m.group(0).replace("<", "‹").replace(">", "›"), text)


def source_header(n: int, result: SearchResult, *, brief: bool = False) -> str:
    """The opening tag of source `n`, naming its paper's label, title, venue and year.

    `brief` (a local model's best-sentence context, read at ~100 tokens/s): the label, or the title alone
    when it starts with the label ("ForestPersons: A Large-Scale Dataset …"), and no venue or year; that
    is 10-17 tokens less a source, which the first token waits for."""
    paper = result.paper
    title = paper.title if paper.title and paper.title != paper.label else ""
    if brief and title.startswith(paper.label):
        return f'<source n="{n}" title="{_attr(title)}">'
    attrs = [f'n="{n}"', f'label="{_attr(paper.label)}"']
    if title:
        attrs.append(f'title="{_attr(title)}"')
    if paper.venue and not brief:
        attrs.append(f'venue="{_attr(paper.venue)}"')
    if paper.year and not brief:
        attrs.append(f'year="{paper.year}"')
    return f"<source {' '.join(attrs)}>"


def build_context(
    results: Sequence[SearchResult],
    llm: ChatBackend,
    *,
    budget: int,
    question: str = "",
    compact: bool | None = None,
    first: int = 1,
    scorer: SupportScorer | None = None,
    one_paper: bool = False,
) -> Context:
    """Number `results` (best first) as sources, adding them while they fit in `budget` tokens.

    A source that does not fit whole is shortened to its leading sentences; results that do not fit at
    all are dropped (counted in `dropped`). The first result is always included, shortened if need be.
    Sources are numbered from `first`. Compact contexts with a `scorer` hold the question's best
    sentences instead (see the module docstring), the search's first result as source 1, then the others
    by their best sentence; with `one_paper`, those of the first result alone, as many as fit.
    """
    compact = is_compact(llm) if compact is None else compact
    if one_paper:
        results = results[:1]
    if compact and scorer is not None and question:
        limits = (ONE_PAPER_SENTENCES, 0.0) if one_paper else (PER_PAPER, SENTENCE_FLOOR)
        best = _best_sentences(
            results, llm, budget=budget, question=question, scorer=scorer, first=first, limits=limits
        )
        if best is not None:
            return best
    blocks: list[str] = []
    kept: list[SearchResult] = []
    used = 0
    for result in results:
        n = first + len(kept)
        sentences = _sentences(result, question, compact)
        left = budget - used
        block = _fit(n, result, sentences, llm, left if kept else max(left, 1))
        if block is None:
            continue
        blocks.append(block)
        kept.append(result)
        used += llm.count_tokens(block) + 1
    return Context("\n".join(blocks), kept, used, dropped=len(results) - len(kept))


def _best_sentences(
    results: Sequence[SearchResult],
    llm: ChatBackend,
    *,
    budget: int,
    question: str,
    scorer: SupportScorer,
    first: int,
    limits: tuple[int, float] = (PER_PAPER, SENTENCE_FLOOR),
) -> Context | None:
    per_paper, floor_share = limits
    ranked = rank_sentences(question, results, scorer)
    if not ranked:
        return None
    floor = ranked[0].score * floor_share
    paper_floor = ranked[0].score * OTHER_PAPER_FLOOR  # one_paper has no other paper to hold back
    by_paper: dict[int, list[Sentence]] = {}
    for sentence in ranked:
        by_paper.setdefault(sentence.source - 1, []).append(sentence)
    # The search's best paper first (it has found the gold paper more often than the best sentence has:
    # "On how many benchmarks is ARTDECO evaluated?" puts AstaBench's "existing benchmarks fall short" first),
    # then the others by their best sentence, only those whose best sentence competes with the best.
    papers = sorted(
        (i for i, sentences in by_paper.items() if i == 0 or sentences[0].score >= paper_floor),
        key=lambda i: (i != 0, -by_paper[i][0].score),
    )
    # Candidates per paper: its best sentence, then the one that states its method ("we propose X, which …",
    # what a "how"/"what is" question usually needs), then its next best; offered best paper and tier first.
    candidates: list[tuple[int, int, int, Sentence]] = []
    for rank, i in enumerate(papers):
        best, *rest = by_paper[i]
        tiers = [best]
        method = next(
            (x for x in sorted(by_paper[i], key=lambda x: x.span) if is_method_sentence(x.text)), None
        )
        if method is not None and method is not best:
            tiers.append(method)
        tiers += [x for x in rest if x is not method and x.score >= floor]
        candidates += [(rank + tier, rank, tier, x) for tier, x in enumerate(tiers[:per_paper])]
    order: list[int] = []
    chosen: dict[int, list[tuple[tuple[int, int], str]]] = {}
    for *_, sentence in sorted(candidates, key=lambda c: c[:3]):
        index = sentence.source - 1
        trial = {**chosen, index: [*chosen.get(index, []), (sentence.span, defuse(sentence.text))]}
        trial_order = sorted({*order, index}, key=papers.index)
        if _compact_tokens(results, trial_order, trial, llm, first) <= budget:
            chosen, order = trial, trial_order
        elif not order:
            return None  # not even the best sentence fits: shorten chunks the usual way
    blocks = _compact_blocks(results, order, chosen, first)
    return Context(
        "\n".join(blocks),
        [results[i] for i in order],
        _compact_tokens(results, order, chosen, llm, first),
        dropped=len(results) - len(order),
    )


def _compact_blocks(
    results: Sequence[SearchResult],
    order: list[int],
    chosen: dict[int, list[tuple[tuple[int, int], str]]],
    first: int,
) -> list[str]:
    return [
        _block(source_header(first + k, results[i], brief=True), [text for _, text in sorted(chosen[i])])
        for k, i in enumerate(order)
    ]


def _compact_tokens(
    results: Sequence[SearchResult],
    order: list[int],
    chosen: dict[int, list[tuple[tuple[int, int], str]]],
    llm: ChatBackend,
    first: int,
) -> int:
    return sum(llm.count_tokens(b) + 1 for b in _compact_blocks(results, order, chosen, first))


def _fit(n: int, result: SearchResult, sentences: list[str], llm: ChatBackend, left: int) -> str | None:
    header = source_header(n, result)
    if llm.count_tokens(header) + 8 > left:
        return None
    chosen: list[str] = []
    for sentence in sentences:
        trial = _block(header, [*chosen, sentence])
        if llm.count_tokens(trial) > left:
            break
        chosen.append(sentence)
    if not chosen:
        cut = max(0, (left - llm.count_tokens(header) - 6) * 3)  # ~3 characters a token, on the safe side
        if cut < 40:
            return None
        chosen = [sentences[0][:cut].rsplit(" ", 1)[0] + " …"] if sentences else []
    return _block(header, chosen)


def _block(header: str, sentences: list[str]) -> str:
    return f"{header}\n{' '.join(sentences)}\n</source>"


def _sentences(result: SearchResult, question: str, compact: bool) -> list[str]:
    """The sentences to show for a result, in reading order (compact: the chunk's, most on-topic first)."""
    if not compact:
        text = defuse(result.paper.abstract)
        return [text[s:e] for s, e in split_sentences(text)] or [text]
    text = defuse(result.chunk or result.paper.abstract)
    spans = split_sentences(text) or [(0, len(text))]
    words = set(tokenize(question))
    scored = sorted(
        range(len(spans)), key=lambda i: (-len(words & set(tokenize(text[spans[i][0] : spans[i][1]]))), i)
    )
    order = sorted(scored[: max(2, len(spans))])  # keep reading order; the budget trims from the end
    top = scored[0]
    if order[0] != top:  # make sure the most on-topic sentence survives trimming
        order.remove(top)
        order.insert(0, top)
    return [text[spans[i][0] : spans[i][1]] for i in order]


def _attr(value: str) -> str:
    return defuse(value).replace('"', "'").replace("\n", " ")[:160]
