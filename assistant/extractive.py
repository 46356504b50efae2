"""Answers without a language model: chosen sentences of the sources, each cited. Fast and deterministic.

Sentences are ranked by cosine similarity to the question plus a bonus for the question's words they
contain; summaries group papers by clustering their embeddings; comparisons fill each row of the table with
the sentence whose cue words match that row.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence

import numpy as np

from assistant.citations import SupportScorer
from assistant.types import Event, SearchResult
from vectorstore.chunking import CLOSING_MARKS, split_sentences
from vectorstore.lexical import tokenize

__all__ = [
    "Sentence",
    "rank_sentences",
    "extractive_answer",
    "extractive_summary",
    "extractive_compare",
    "ASPECTS",
    "aspect_cells",
    "compare_names",
    "compare_table",
    "short_name",
    "is_method_sentence",
    "key_sentence",
]

LEXICAL_BONUS = 0.3
QUANTITY_BONUS = 0.1  # a question asking for a quantity prefers sentences that state one
QUESTION_PENALTY = 0.15  # a sentence that asks a question ("what is the minimal capacity …?") restates it
RELATIVE_FLOOR = 0.75  # a sentence is shown when it scores at least this share of the best one
THEME_SIMILARITY = 0.45  # average-linkage cosine at which two groups of papers stop being merged
MAX_THEMES = 5
CELL_CHARS = 200

ASPECTS: dict[str, tuple[str, ...]] = {
    "Problem": (
        "challenge",
        "problem",
        "however",
        "remain",
        "struggle",
        "limit",
        "gap",
        "difficult",
        "costly",
        "suffer",
        "unclear",
        "fail",
    ),
    "Method": (
        "we propose",
        "we introduce",
        "we present",
        "we develop",
        "propose",
        "introduce",
        "framework",
        "algorithm",
        "approach",
        "architecture",
    ),
    "Data": (
        "dataset",
        "benchmark",
        "data",
        "experiments on",
        "evaluate",
        "evaluated",
        "corpus",
        "subjects",
        "simulation",
    ),
    "Results": (
        "outperform",
        "achiev",
        "improv",
        "state-of-the-art",
        "reduc",
        "%",
        "results show",
        "faster",
        "accura",
        "demonstrate",
    ),
    "Limitations": ("limitation", "limited to", "fails", "does not", "cannot", "at the cost", "trade-off"),
}
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier)"
    r"|\byou\s+are\s+now\b|\bsystem\s+prompt\b",
    re.IGNORECASE,
)
_BOILERPLATE = re.compile(
    r"^\W*(?:our\s+)?(?:the\s+)?(?:code|data|models?)\b.{0,40}\bavailable\b", re.IGNORECASE
)
_ASKS_QUANTITY = re.compile(
    r"\bhow\s+(?:many|much|large|big|fast|long|often|well)\b|\bwhat\s+(?:\S+\s+){0,4}?(?:rate|accuracy|score|error|"
    r"speed-?up|improvement|gain|reduction|percentage|number|size|count|margin|performance)\b",
    re.IGNORECASE,
)
_ENDS_IN_QUESTION = re.compile(rf"\?[\s{CLOSING_MARKS}]*$")  # a sentence that asks, not states
_QUANTITY = re.compile(r"\d(?:[\d,.]*\d)?\s*(?:%|×|x\b|times\b|[kKMB]\b)|\b\d[\d,.]*\b")
_INTRO = re.compile(
    r"\b(?:we|this (?:paper|work))\s+(?:\w+\s+)?(?:propose|introduce|present|develop)", re.IGNORECASE
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]{3,}")
_COMMON = frozenset(
    """this that with from their these those which while using used based have been more than
into also such both other paper work works show shows results method methods model models approach propose
proposed introduce novel framework learning data existing across between within over under only however
experiments extensive often performance achieves achieve state-of-the-art significant significantly large
training tasks task demonstrate demonstrates remains challenge problem first further where when""".split()
)


@dataclasses.dataclass
class Sentence:
    source: int  # 1-based number of the source
    span: tuple[int, int]
    text: str
    score: float


def is_method_sentence(text: str) -> bool:
    """Whether `text` states what the paper proposes ("we propose …", "this paper introduces …")."""
    return bool(_INTRO.search(text))


def short_name(result: SearchResult) -> str:
    """The paper's method name or title, or '' when it only has a label made of its first words."""
    paper = result.paper
    if paper.title:
        return paper.title
    return "" if paper.label.endswith("…") else paper.label


def rank_sentences(question: str, results: Sequence[SearchResult], scorer: SupportScorer) -> list[Sentence]:
    """Every sentence of every result, scored against the question, best first."""
    if not results:
        return []
    query = scorer.embed([question])[0]
    words = set(tokenize(question))
    candidates: list[tuple[int, tuple[int, int], str, float, set[str]]] = []
    for n, result in enumerate(results, 1):
        spans, vectors = scorer.sentences(result)
        for (s, e), sim in zip(spans, vectors @ query, strict=True):
            text = result.paper.abstract[s:e]
            if _INSTRUCTION.search(text) or _BOILERPLATE.search(text):
                continue  # text addressed to an assistant, or a code link, is not an answer about the paper
            candidates.append((n, (s, e), text, float(sim), words & set(tokenize(text))))
    # Question words rare among the candidate sentences say more about which sentence answers it.
    df = Counter(w for *_, shared in candidates for w in shared)
    idf = {w: math.log(1 + len(candidates) / (1 + df[w])) for w in words}
    total = sum(idf.values()) or 1.0
    quantity = QUANTITY_BONUS if _ASKS_QUANTITY.search(question) else 0.0
    ranked = [
        Sentence(
            n,
            span,
            text,
            sim
            + LEXICAL_BONUS * sum(idf[w] for w in shared) / total
            + (quantity if _QUANTITY.search(text) else 0.0)
            - (QUESTION_PENALTY if _ENDS_IN_QUESTION.search(text) else 0.0),
        )
        for n, span, text, sim, shared in candidates
    ]
    ranked.sort(key=lambda x: (-x.score, x.source, x.span))
    return ranked


def extractive_answer(
    question: str,
    results: Sequence[SearchResult],
    scorer: SupportScorer,
    *,
    papers: int = 3,
    per_paper: int = 2,
    total: int = 5,
) -> tuple[str, list[Sentence]]:
    """A few of the most relevant sentences of the top `papers`, grouped by paper, each cited."""
    ranked = rank_sentences(question, results[:papers], scorer)
    if not ranked:
        return "", []
    floor = ranked[0].score * RELATIVE_FLOOR
    chosen: list[Sentence] = []
    for sentence in ranked:
        if len(chosen) >= total or sentence.score < floor:
            break
        if sum(1 for c in chosen if c.source == sentence.source) < per_paper:
            chosen.append(sentence)
    by_paper: dict[int, list[Sentence]] = {}
    for sentence in chosen:
        by_paper.setdefault(sentence.source, []).append(sentence)
    paragraphs = []
    for n, sentences in by_paper.items():  # in order of each paper's best sentence
        sentences.sort(key=lambda x: x.span)
        name = short_name(results[n - 1])
        body = " ".join(_cited(s.text, n) for s in sentences)
        paragraphs.append(f"**{name}**: {body}" if name else body)
    return "\n\n".join(paragraphs), chosen


def extractive_summary(topic: str, results: Sequence[SearchResult], scorer: SupportScorer) -> str:
    """Papers grouped into themes (clusters of their embeddings), one key sentence for each, cited."""
    if not results:
        return ""
    vectors = np.stack([_paper_vector(r, scorer) for r in results])
    groups = _cluster(vectors)
    query = scorer.embed([topic])[0]
    lines: list[str] = []
    for group in groups:
        name = (
            _theme_name([results[i] for i in group], topic)
            if len(groups) > 1
            else topic[:1].upper() + topic[1:]
        )
        lines.append(f"### {name}")
        for i in group:
            name = short_name(results[i]) or "A paper"
            lines.append(f"- **{name}**: {_cited(key_sentence(results[i], scorer, query), i + 1)}")
        lines.append("")
    return "\n".join(lines).strip()


def extractive_compare(results: Sequence[SearchResult]) -> str:
    """A markdown table (rows: problem, method, data, results, limitations) and a short verdict, cited."""
    names = compare_names(results)
    columns = [aspect_cells(r) for r in results]
    verdict = "; ".join(
        f"{name} — {_clip(col['Method'] or col['Problem'], 120)} [{n}]"
        for n, (name, col) in enumerate(zip(names, columns, strict=True), 1)
    )
    return (
        compare_table(names, columns) + f"\n\nVerdict: the papers differ mainly in their methods: {verdict}."
    )


def compare_names(results: Sequence[SearchResult]) -> list[str]:
    """The column headings of a comparison: each paper's method name or title."""
    return [short_name(r) or f"Paper {n}" for n, r in enumerate(results, 1)]


def compare_table(names: Sequence[str], columns: Sequence[dict[str, str]]) -> str:
    """The side-by-side markdown table: one row per aspect (`ASPECTS`), one column per paper, every filled
    cell ending with its paper's citation [n]; an empty cell reads "not stated"."""
    lines = ["| | " + " | ".join(_cell(n) for n in names) + " |", "|---" * (len(names) + 1) + "|"]
    for aspect in ASPECTS:
        cells = [
            _cell(_cited(col.get(aspect, ""), n)) if col.get(aspect) else "not stated"
            for n, col in enumerate(columns, 1)
        ]
        lines.append(f"| {aspect} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- helpers


def _cited(text: str, n: int) -> str:
    text = text.strip()
    end = len(text.rstrip(".!?;:"))
    return f"{text[:end]} [{n}]{text[end:]}"


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")


def _clip(text: str, limit: int) -> str:
    text = text.strip().rstrip(".")
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def _paper_vector(result: SearchResult, scorer: SupportScorer) -> np.ndarray:
    _, vectors = scorer.sentences(result)
    mean = vectors.mean(axis=0)
    return np.asarray(mean / max(float(np.linalg.norm(mean)), 1e-12))


def _cluster(vectors: np.ndarray) -> list[list[int]]:
    """Average-linkage agglomerative clustering; groups in order of their first (best-ranked) paper."""
    groups = [[i] for i in range(len(vectors))]
    sims = vectors @ vectors.T
    while len(groups) > 1:
        best, pair = -1.0, (0, 0)
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                value = float(sims[np.ix_(groups[a], groups[b])].mean())
                if value > best:
                    best, pair = value, (a, b)
        if best < THEME_SIMILARITY and len(groups) <= MAX_THEMES:
            break
        a, b = pair
        groups[a] = sorted(groups[a] + groups.pop(b))
    return sorted(groups, key=lambda g: g[0])


def _theme_name(results: Sequence[SearchResult], topic: str) -> str:
    skip = _COMMON | {w.lower() for w in _WORD.findall(topic)}
    counts: Counter[str] = Counter()
    for result in results:
        counts.update({w.lower() for w in _WORD.findall(result.paper.abstract)} - skip)
    common = [w for w, c in counts.most_common(3) if c >= min(2, len(results))]
    return ", ".join(common).capitalize() if common else "Other work"


def key_sentence(result: SearchResult, scorer: SupportScorer, query: np.ndarray) -> str:
    """The sentence that best says what the paper does about `query` (an embedded topic): the most similar
    one, with a bonus for the sentence stating the paper's method; never text addressed to an assistant."""
    spans, vectors = scorer.sentences(result)
    abstract = result.paper.abstract
    scores = vectors @ query
    for i, (s, e) in enumerate(spans):
        if _INTRO.search(abstract[s:e]):
            scores[i] += 0.2
        if _INSTRUCTION.search(abstract[s:e]) or _BOILERPLATE.search(abstract[s:e]):
            scores[i] -= 10.0
    s, e = spans[int(np.argmax(scores))]
    return abstract[s:e]


def aspect_cells(result: SearchResult) -> dict[str, str]:
    """One sentence per aspect, by cue words, with position priors: the problem comes early, the method is
    the sentence introducing it, data and results come after the method."""
    abstract = result.paper.abstract
    sentences = [abstract[s:e] for s, e in split_sentences(abstract)] or [abstract]
    n = len(sentences)
    method = next((i for i, s in enumerate(sentences) if _INTRO.search(s)), -1)
    used: set[int] = set()
    cells: dict[str, str] = {}
    for aspect in ("Method", "Problem", "Data", "Results", "Limitations"):
        best, best_score = -1, 0.0
        for i, sentence in enumerate(sentences):
            if i in used:
                continue
            score = float(sum(sentence.lower().count(c) for c in ASPECTS[aspect]))
            if score and aspect == "Method":
                score += 3.0 * (i == method)
            if score and aspect == "Problem":
                score += 1.0 if i < max(1, n // 3) else -1.0
            if score and aspect in ("Data", "Results"):
                score += 1.0 if i > method >= 0 else (-1.0 if i < n // 3 else 0.0)
            if score > best_score:
                best, best_score = i, score
        if aspect == "Problem" and best < 0 and 0 not in used:
            best = 0  # an abstract's first sentence states its problem
        cells[aspect] = _clip(sentences[best], CELL_CHARS) if best >= 0 else ""
        if best >= 0:
            used.add(best)
    return {aspect: cells[aspect] for aspect in ASPECTS}


def token_events(text: str) -> Iterator[Event]:
    """An answer composed without a model, streamed word by word like a generated one."""
    for piece in re.findall(r"\S+\s*|\s+", text):
        yield Event("token", piece)
