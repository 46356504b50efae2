"""Names in the corpus index: authors and primary areas as a question names them, resolved to the names
the store holds, the nearest names when none match, and keyword and author keys for grouping.

An author matches by the whole name (any case, accents and dots ignored), else by every word named
("Bengio" -> every Bengio); an area by the words named ("reinforcement learning", "computer vision").
"""

from __future__ import annotations

import collections
import difflib
import re
import sqlite3
import unicodedata

__all__ = ["Names", "folded", "keyword_key"]

NEAREST = 5


def folded(name: str) -> str:
    """A name for comparing: accents and dots dropped, lower case, single spaces."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).replace(".", " ")
    return " ".join(text.casefold().split())


def keyword_key(keyword: str) -> str:
    """The key keywords are grouped under: lower case, "-" as a space, the last word singular."""
    text = " ".join(keyword.lower().replace("-", " ").split())
    if len(text) > 3 and text.endswith("s") and not text.endswith("ss"):
        text = text[:-1]
    return text


class Names:
    """The authors, areas and keyword spellings of one index (read once, when the index is built)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.authors: dict[str, str] = {}  # folded -> the most common spelling
        spellings: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        for name, key in db.execute("SELECT name, folded FROM authors"):
            spellings[key][name] += 1
        self.authors = {k: c.most_common(1)[0][0] for k, c in spellings.items()}
        self._author_words: dict[str, set[str]] = collections.defaultdict(set)
        for key in self.authors:
            for word in key.split():
                self._author_words[word].add(key)
        self.areas = [r[0] for r in db.execute("SELECT DISTINCT area FROM papers WHERE area IS NOT NULL")]
        self.areas.sort()
        kw: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        for keyword, key in db.execute("SELECT keyword, norm FROM keywords"):
            kw[key][keyword] += 1
        self.keywords = {k: c.most_common(1)[0][0] for k, c in kw.items()}

    def resolve(self, kind: str, named: str) -> list[str]:
        """The store's names for `named` (an author or an area), or [] when none match."""
        return self._author(named) if kind == "author" else self._area(named)

    def _author(self, named: str) -> list[str]:
        key = folded(named)
        if key in self.authors:
            return [self.authors[key]]
        words = key.split()
        if not words:
            return []
        keys = set.intersection(*(self._author_words.get(w, set()) for w in words))
        return sorted(self.authors[k] for k in keys)

    def _area(self, named: str) -> list[str]:
        key = folded(named)
        exact = [a for a in self.areas if folded(a) == key]
        if exact:
            return exact
        words = set(re.findall(r"\w+", key))
        return [
            a
            for a in self.areas
            if key in folded(a) or (words and words <= set(re.findall(r"\w+", folded(a))))
        ]

    def nearest(self, kind: str, named: str) -> list[str]:
        """The names most like `named` (for "none match; nearest: …")."""
        if kind == "author":
            key = folded(named)
            close = difflib.get_close_matches(key, list(self.authors), n=NEAREST, cutoff=0.7)
            surname = key.split()[-1] if key.split() else ""
            same = sorted(self._author_words.get(surname, set()))[:NEAREST] if surname else []
            return [self.authors[k] for k in dict.fromkeys([*close, *same])][:NEAREST]
        close = difflib.get_close_matches(
            folded(named), [folded(a) for a in self.areas], n=NEAREST, cutoff=0.5
        )
        by_key = {folded(a): a for a in self.areas}
        words = set(re.findall(r"\w+", folded(named))) - {"and", "of", "the", "learning", "to", "other"}
        overlap = [a for a in self.areas if words & set(re.findall(r"\w+", folded(a)))]
        return list(dict.fromkeys([*(by_key[c] for c in close), *overlap]))[:NEAREST] or self.areas[:NEAREST]

    def nearest_venue(self, named: str, venues: list[str]) -> list[str]:
        close = difflib.get_close_matches(named, venues, n=NEAREST, cutoff=0.5)
        return close or venues

    def display(self, field: str, keys: list[str]) -> dict[str, str]:
        """How to show each grouped key: an author's or keyword's most common spelling."""
        table = {"author": self.authors, "keyword": self.keywords}.get(field, {})
        return {k: table.get(k, k) for k in keys}
