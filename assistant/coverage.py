"""Names a question asks about that no paper of the corpus mentions.

"What speedup does the FlashGlide kernel report?" presupposes a FlashGlide. Over 11k papers some abstract
always scores well for any question about attention kernels, so the relevance cutoff alone lets the question
through, and the answer pins another paper's figure on the made-up name. A name that occurs in no title,
abstract, keyword, label or author of the store is checked here instead, by exact text: the corpus lacks what
the question is about, and the answer says so and names the nearest names the store does have.

A name is what a reader would take for one: CamelCase (FlashGlide), an acronym (LIGO), letters with digits
(TransLingua-7B), or a capitalised word inside the sentence (Kenya). Spelling variants count as present:
case, hyphens, dots and spaces ("Flash-Attention", "flash attention" for "FlashAttention"), a plural "s",
and a known base with a version suffix ("FlashAttention-3" when the corpus has FlashAttention).
"""

from __future__ import annotations

import collections
import difflib
import math
import re
from collections.abc import Callable, Iterable
from typing import Any

from vectorstore.lexical import tokenize
from vectorstore.paper import Paper

__all__ = ["NameIndex", "question_names"]

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-./_+]*[A-Za-z0-9+]|[A-Za-z]")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]")
_SENTENCE_START = re.compile(r"(?:^|[.?!:;]\s+|\n)\W*$")
_INNER_PUNCT = re.compile(r"(?<=[a-z0-9])[-./_'’+](?=[a-z0-9])")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
# Capitalised words that are not names wherever they stand in a question.
_COMMON = frozenset(
    """i a an the what which who whom whose how why when where is are was were do does did can could should
    would will may might has have had please tell show give list find explain describe compare summarize
    summarise and or but if in on of for to from with by about any some there this that these those it its
    they their paper papers method model models approach section table figure appendix yes no ok okay""".split()
)
# A name right after one of these is what the question measures against or situates in, not its subject.
_CONTEXT = re.compile(
    r"\b(?:over|than|against|versus|vs\.?|beating|beats|outperforming|outperforms|surpassing|like|such as|"
    r"including|e\.g\.,?|on|in|from|to|with|using|via)\s+(?:the\s+|a\s+|an\s+)?$",
    re.IGNORECASE,
)
MIN_PAPERS_FOR_WORDS = 2000  # below this an unused ordinary word says little about the corpus
# A question whose rarest words none of the closest papers uses, and most of whose word weight (idf) they miss,
# asks about a subject the corpus lacks even when each word occurs somewhere ("coral bleaching", "aftershock").
# Measured over the full lists (bench/questions_full.jsonl): the three unanswerable questions the cutoff let
# through matched 0.51-0.65 of their weight with a missing word of idf 7.7-9.3; every answerable one, 0.69 or
# more, or missed only common words (idf < 7; "wood" 8.2 in a question matched at 0.90).
RARE_IDF = 7.0  # log(papers / (1 + df)): a word about one paper in 1,100 uses
MATCHED_SHARE = 0.67  # below this share of the question's idf weight found in the closest papers
_FILLER = frozenset(
    "which what how does do is are the a an of on in for with by from to and or that this its their paper "
    "method work model models approach".split()
)
TYPO_DF = 3  # a word is taken for a misspelling of a word that this many papers use ("medeval" is a name)
MIN_NAME = 2  # "Qi" is too short to tell a name from a word
VERSION = re.compile(
    r"^(?P<base>.+?)(?:[-\s](?:v?\d[\w.]*|[a-z]{1,2}|xl|xxl|large|base|small|mini|pro|plus|instruct|chat)"
    r"|(?<=[a-z])v?\d[\w.]*)$"
)


def _joined(text: str) -> str:
    """Lower case, punctuation inside a word dropped ("flash-attention" -> "flashattention")."""
    return _INNER_PUNCT.sub("", text.lower())


def _key(name: str) -> str:
    return _NOT_ALNUM.sub("", name.lower())


def question_names(question: str, positions: bool = False) -> list[Any]:
    """The tokens of `question` that read as names (see the module docstring), in order, once each; with
    `positions`, (name, offset) pairs."""
    names: dict[str, int] = {}
    for match in _TOKEN.finditer(question):
        token = match.group(0).strip("'’.-/_")
        if len(_key(token)) < MIN_NAME or token.lower() in _COMMON:
            continue
        letters = sum(ch.isalpha() for ch in token)
        digits = sum(ch.isdigit() for ch in token)
        if letters == 0:
            continue  # a number or a year
        at_start = bool(_SENTENCE_START.search(question[: match.start()]))
        camel = bool(_CAMEL.search(token))
        acronym = sum(ch.isupper() for ch in token) >= 2
        versioned = digits > 0 and letters >= 2 and not token.islower()  # "7B", "ERA5"; not "15-day"
        proper = token[0].isupper() and not at_start
        if camel or acronym or versioned or proper:
            names.setdefault(token, match.start())
    return list(names.items()) if positions else list(names)


class NameIndex:
    """The store's text in a form that answers "does any paper mention this name?" quickly."""

    def __init__(self, papers: Iterable[Paper]) -> None:
        texts: list[str] = []
        labels: set[str] = set()
        for paper in papers:
            fields = [paper.title, paper.label, paper.abstract, paper.venue, *paper.keywords, *paper.authors]
            texts.append("\n".join(f for f in fields if f))
            if paper.label and len(paper.label.split()) <= 3 and not paper.label.endswith("…"):
                labels.add(paper.label)
        self.size = len(texts)
        spaced = "\n".join(_joined(t) for t in texts)
        self._tight = _NOT_ALNUM.sub("", spaced)
        self._df: collections.Counter[str] = collections.Counter()  # papers using each word
        for text in texts:
            lower = text.lower()  # the words as written, their parts ("ecmwf-s2s") and joined ("ecmwfs2s")
            self._df.update(
                set(re.findall(r"[a-z0-9]+", lower)) | set(re.findall(r"[a-z0-9]+", _joined(lower)))
            )
        self._words = set(self._df)
        # names the papers give versions ("flashattention2" -> "flashattention"): a new version is no new name
        self._versioned = {w.rstrip("0123456789") for w in self._words if w[-1].isdigit() and w[0].isalpha()}
        self._undigited = {w.rstrip("0123456789") for w in self._words}  # "wmt14" -> "wmt"
        self._labels = sorted(labels)
        self._by_key: dict[str, str] = {}
        for label in self._labels:
            self._by_key.setdefault(_key(label), label)

    def mentions(self, name: str) -> bool:
        """Whether any paper mentions `name` or a spelling variant of it."""
        key = _key(name)
        if not key:
            return True
        candidates = {key, key[:-1] if key.endswith("s") and len(key) > 3 else key}
        base = VERSION.match(name.lower())
        if base and len(_key(base.group("base"))) >= 3 and _key(base.group("base")) in self._versioned:
            return True  # another version of a versioned name ("FlashAttention-3" beside FlashAttention-2)
        for cand in candidates:
            if (
                cand in self._words
                or cand in self._undigited
                or f"{cand}s" in self._words
                or f"{cand}es" in self._words
            ):
                return True
            if len(cand) >= 6 and cand in self._tight:  # written with spaces: "flash attention"
                return True
        return False

    def absent(self, question: str) -> list[str]:
        """The names `question` asks about that no paper mentions. A name it only measures against ("over
        FlashAttention-2", "on WMT", "than GPT-4") is context, not the subject, and is not counted; nor is a
        compound whose parts are all known ("LLM-edited")."""
        return [
            name
            for name, start in question_names(question, positions=True)
            if not _CONTEXT.search(question[:start])
            and not self.mentions(name)
            and not self._known_parts(name)
        ]

    def unknown_words(self, question: str) -> list[str]:
        """Ordinary words of `question` (four letters or more) that no paper uses in any form and that are
        not a misspelling of a word the papers use: "groundwater", "cuneiform", "volcanic". Over a large
        corpus such a word marks a subject the corpus does not have; over a few dozen papers it means little,
        so it is reported only when the store holds `MIN_PAPERS_FOR_WORDS` papers or more."""
        if self.size < MIN_PAPERS_FOR_WORDS:
            return []
        return [  # no stem of it either: "volcanic" has no "volcan-"
            low
            for low in self._unseen_forms(question)
            if not any(self.mentions(low[: len(low) - cut]) for cut in (1, 2, 3) if len(low) - cut >= 5)
        ]

    def unmatched(
        self, question: str, papers: Iterable[Paper], papers_using: Callable[[str], int]
    ) -> list[str]:
        """The question's rare words (idf at least `RARE_IDF`; a word no paper writes counts as unseen, whatever
        its stem shares) that none of `papers` uses, when those papers hold less than `MATCHED_SHARE` of the
        question's word weight; [] otherwise, and over stores of fewer than `MIN_PAPERS_FOR_WORDS` papers
        (their word counts say little). `papers_using` counts the papers of the store that use a stemmed word
        (the store's BM25 index, `PaperStore.papers_using`)."""
        if self.size < MIN_PAPERS_FOR_WORDS:
            return []
        stems = {s for s in tokenize(question) if len(s) > 2 and s not in _FILLER}
        if not stems:
            return []
        used: set[str] = set()
        for paper in papers:
            used |= set(tokenize(f"{paper.title} {paper.abstract}"))
        idf = {s: math.log(self.size / (1 + papers_using(s))) for s in stems}
        for word in self._unseen_forms(question):
            # No paper writes the word itself, whatever its stem shares with others: "elevators" stems to
            # "elev" like "elevate" and "elevation", but no abstract is about elevators.
            idf.update((s, math.log(self.size)) for s in tokenize(word) if s in idf)
        total = sum(idf.values()) or 1.0
        matched = sum(w for s, w in idf.items() if s in used) / total
        rare = sorted((s for s in stems if s not in used and idf[s] >= RARE_IDF), key=lambda s: -idf[s])
        if matched >= MATCHED_SHARE or not rare:
            return []
        words = {s: w for w in re.findall(r"[A-Za-z][A-Za-z\-]*", question) for s in tokenize(w)}
        return [words.get(s, s).lower() for s in rare]

    def _unseen_forms(self, question: str) -> list[str]:
        """Ordinary words of `question` (four letters or more) that no paper writes in that form, nor as a
        plural, singular or a one-edit misspelling (`unknown_words` also drops those whose stem a paper uses)."""
        names = {n.lower() for n in question_names(question)}
        return [
            low
            for low in dict.fromkeys(w.lower() for w in re.findall(r"[A-Za-z]{4,}", question))
            if low not in _COMMON and low not in names and not self.mentions(low) and not self._misspelt(low)
        ]

    def _misspelt(self, word: str) -> bool:
        """Whether one edit (a letter dropped, added, swapped or changed) turns `word` into a used word."""
        letters = "abcdefghijklmnopqrstuvwxyz"
        splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
        edits = (
            {a + b[1:] for a, b in splits if b}
            | {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
            | {a + c + b[1:] for a, b in splits if b for c in letters}
            | {a + c + b for a, b in splits for c in letters}
        )
        return any(self._df.get(e, 0) >= TYPO_DF for e in edits - {word})

    def _known_parts(self, name: str) -> bool:
        parts = [p for p in re.split(r"[-/_]", name) if len(_key(p)) >= 3]
        return len(parts) > 1 and all(self.mentions(p) for p in parts)

    def nearest(self, name: str, n: int = 3) -> list[str]:
        """Method names of the store spelt most like `name` (for "did you mean")."""
        keys = difflib.get_close_matches(_key(name), list(self._by_key), n=n, cutoff=0.75)
        return [self._by_key[k] for k in keys]
