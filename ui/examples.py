"""First-screen example questions and filter choices, derived from the papers actually in the store."""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from assistant.types import Paper

__all__ = ["Example", "CorpusFacts", "survey", "frequent_topic", "topics", "TopicScore"]

TopicScore = Callable[[str], float]
SAMPLE = 3000  # papers looked at; enough for a topic, cheap on an 11k-paper store
_WORD = re.compile(r"[A-Za-z][A-Za-z-]+")
_URL = re.compile(r"https?://\S+")
_STOP = frozenset(
    """a an and are as at be by can do does for from has have in into is it its of on or our over such that
    the their these this those through to under via we what when where which while with without within
    both each more most other than then they also however not only new novel propose proposed proposes
    method methods approach approaches paper work results show shows demonstrate task tasks based using use
    used existing recent across different framework frameworks model models state art first two three key
    performance significant significantly achieve achieves extensive experiments well large wide many
    while often remains remain make makes including further leading learning data""".split()
)


@dataclasses.dataclass(frozen=True)
class Example:
    mode: str
    question: str


@dataclasses.dataclass
class CorpusFacts:
    examples: list[Example]
    venues: list[str]
    years: list[int]
    statuses: list[str]


def _is_name(label: str) -> bool:
    """A label that is a method's name ("BrainGFM"), not the first words of an abstract."""
    return not label.endswith("…") and len(label.split()) <= 4 and len(label) <= 40


def topics(papers: Sequence[Paper], n: int = 5) -> list[str]:
    """The topics most papers share: frequent keywords, else the most widespread two-word phrases."""
    keywords = Counter(k.strip().lower() for p in papers for k in dict.fromkeys(p.keywords) if k.strip())
    common = [k for k, count in keywords.most_common(n) if count >= 2]
    if common:
        return common
    phrases: Counter[str] = Counter()
    for p in papers:
        words = [w.lower() for w in _WORD.findall(_URL.sub(" ", p.abstract))]
        phrases.update(
            {f"{a} {b}" for a, b in itertools.pairwise(words) if a not in _STOP and b not in _STOP}
        )
    return [phrase for phrase, _ in phrases.most_common(n)]


def frequent_topic(papers: Sequence[Paper], score: TopicScore | None = None) -> str:
    """A topic many papers share; with `score`, the candidate the store covers best (a negative score:
    not covered)."""
    candidates = topics(papers)
    if score is not None and candidates:
        scored = [(score(t), t) for t in candidates]
        best = max(scored, key=lambda pair: pair[0])
        if best[0] >= 0:
            return best[1]
    return candidates[0] if candidates else ""


def survey(papers: Iterable[Paper], score: TopicScore | None = None) -> CorpusFacts:
    """Example questions (ask, summarize, compare) and the venues, years and decisions in the store."""
    sample = list(itertools.islice(papers, SAMPLE))
    venues = sorted({p.venue for p in sample if p.venue})
    years = sorted({p.year for p in sample if p.year}, reverse=True)
    statuses = sorted({p.status for p in sample if p.status})
    topic = frequent_topic(sample, score)
    named = [p for p in sample if _is_name(p.label)]
    on_topic = [p for p in named if topic and topic in p.abstract.lower()] if topic else []
    pair = (on_topic if len(on_topic) >= 2 else named)[:2]
    asked = next((p for p in named if p not in pair), named[0] if named else None)
    examples: list[Example] = []
    if asked is not None:
        examples.append(Example("ask", f"What does {asked.label} propose, and how is it evaluated?"))
    elif topic:
        examples.append(Example("ask", f"Which papers study {topic}?"))
    if topic:
        examples.append(Example("summarize", f"Summarize the research on {topic}"))
    if len(pair) == 2:
        examples.append(Example("compare", f"Compare {pair[0].label} and {pair[1].label}"))
    return CorpusFacts(examples, venues, years, statuses)
