"""The corpus mode's queries: a `Criterion` counted, listed and grouped in SQL over the stored metadata.

`CorpusIndex` lays the catalog's records out as three SQLite tables (papers; their keywords; their authors)
in memory, so that a count, a group-by or a share is one query, and the answer's numbers all come from
them. A topic phrase matches a title, an abstract or a keyword where it occurs as whole words, in any
case, with spaces and hyphens alike and its last word singular or plural (`phrase_pattern`).

Where a venue's list has no such field (ICLR lists no authors, ICML no primary area and no keywords), the
venue is left out of a question on that field and the result says so; it is never counted as zero. Names
the store does not hold (an author, an area, a venue) match nothing, and the result names the nearest.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from assistant.corpus_names import Names, folded, keyword_key
from assistant.corpus_query import Criterion
from vectorstore.paper import Paper

__all__ = ["CorpusIndex", "CorpusResult", "Group", "Part", "phrase_pattern", "venue_of", "STATUS_ORDER"]

STATUS_ORDER = ("Oral", "Spotlight", "Poster", "")
NO_VALUE = {"status": "(no decision)", "area": "(no primary area)"}
FIELD_NAMES = {"author": "authors", "area": "primary areas", "keyword": "keywords"}
LISTS_FIELD = 0.5  # a venue lists a field when at least this share of its papers have it

_DDL = """
CREATE TABLE papers (pid TEXT PRIMARY KEY, venue TEXT, status TEXT, area TEXT, title TEXT, abstract TEXT,
                     ord INTEGER);
CREATE TABLE keywords (pid TEXT, keyword TEXT, norm TEXT);
CREATE TABLE authors (pid TEXT, name TEXT, folded TEXT);
CREATE INDEX keywords_pid ON keywords (pid);
CREATE INDEX authors_folded ON authors (folded);
CREATE TEMP TABLE chosen (pid TEXT PRIMARY KEY);
"""


@functools.lru_cache(maxsize=1024)
def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """Whole words, any case, "-" or space between words, the last word singular or plural."""
    words = [w for w in re.split(r"[\s-]+", phrase.strip()) if w]
    if not words:
        raise ValueError("an empty phrase")
    last = words[-1]
    if len(last) > 3 and last[-1:].lower() == "s" and last[-2:].lower() != "ss":
        words[-1] = last[:-1]
    body = r"[\s-]+".join(re.escape(w) for w in words)
    return re.compile(rf"(?<!\w){body}(?:s|es)?(?!\w)", re.IGNORECASE)


def _phrase(phrase: str, text: str | None) -> int:
    return int(bool(text) and phrase_pattern(phrase).search(text or "") is not None)


def venue_of(paper: Paper) -> str:
    """The venue and year a paper is counted under, e.g. "ICML 2026"."""
    return f"{paper.venue or 'unknown venue'} {paper.year or ''}".strip()


@dataclasses.dataclass(frozen=True)
class Part:
    """One line of the criterion shown with an answer, and its count ("“diffusion” in titles": 301)."""

    label: str
    count: int


@dataclasses.dataclass(frozen=True)
class Group:
    """Matching papers with one value of the grouped field; `total` is the group's denominator, if any."""

    name: str
    count: int
    total: int | None = None

    @property
    def share(self) -> float | None:
        return self.count / self.total if self.total else None

    def to_dict(self) -> dict[str, Any]:
        share = self.share
        return {"name": self.name, "count": self.count, "total": self.total, "share": share}


@dataclasses.dataclass
class CorpusResult:
    """What a criterion selects: the count (None when the lists in scope lack the field asked about), the
    denominator, the papers, the groups, and the criterion's parts with their counts and notes."""

    criterion: Criterion
    count: int | None
    total: int
    papers: list[Paper]
    groups: list[Group] = dataclasses.field(default_factory=list)
    parts: list[Part] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    none_match: list[str] = dataclasses.field(default_factory=list)
    scope: list[str] = dataclasses.field(default_factory=list)

    def rows(self) -> list[dict[str, str]]:
        """The papers as table rows: title, venue, status, area, link, paper id."""
        return [
            {
                "title": p.display_name,
                "venue": venue_of(p),
                "status": p.status,
                "area": str(p.extra.get("primary_area", "")),
                "link": next(iter(p.urls), ""),
                "paper_id": p.paper_id,
            }
            for p in self.papers
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "total": self.total,
            "criterion": {
                "text": self.criterion.to_text(),
                **dataclasses.asdict(self.criterion),
                "parts": [dataclasses.asdict(p) for p in self.parts],
                "notes": self.notes,
                "none_match": self.none_match,
                "scope": self.scope,
            },
            "papers": self.rows(),
            "groups": [g.to_dict() for g in self.groups],
            "group_by": self.criterion.group,
        }


class CorpusIndex:
    """The stored papers' metadata as SQL tables. Thread-safe; build a new one after an ingest."""

    def __init__(self, papers: Iterable[Paper]) -> None:
        self.papers: dict[str, Paper] = {}
        self._lock = threading.Lock()
        self.db = sqlite3.connect(":memory:", check_same_thread=False)
        self.db.create_function("phrase", 2, _phrase, deterministic=True)
        self.db.executescript(_DDL)
        for i, paper in enumerate(papers):
            self._add(i, paper)
        self.names = Names(self.db)
        self.coverage = {
            field: dict(self._rows(sql)) for field, sql in _COVERAGE.items()
        }  # venue -> papers that have the field
        self.venues = dict(self._rows("SELECT venue, COUNT(*) FROM papers GROUP BY venue ORDER BY venue"))

    def __len__(self) -> int:
        return len(self.papers)

    def _add(self, i: int, paper: Paper) -> None:
        self.papers[paper.paper_id] = paper
        area = str(paper.extra.get("primary_area", "")) or None
        self.db.execute(
            "INSERT OR REPLACE INTO papers VALUES (?, ?, ?, ?, ?, ?, ?)",
            (paper.paper_id, venue_of(paper), paper.status, area, paper.title, paper.abstract, i),
        )
        self.db.executemany(
            "INSERT INTO keywords VALUES (?, ?, ?)",
            [(paper.paper_id, k, keyword_key(k)) for k in paper.keywords if k.strip()],
        )
        self.db.executemany(
            "INSERT INTO authors VALUES (?, ?, ?)", [(paper.paper_id, a, folded(a)) for a in paper.authors]
        )

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.db.execute(sql, tuple(params)).fetchall()

    # ------------------------------------------------------------------ the query

    def select(self, criterion: Criterion, related: Sequence[str] = ()) -> CorpusResult:
        """The papers `criterion` selects; `related` are the papers the retriever ranks above its topic
        cutoff (counted as a part, and added when `criterion.related`)."""
        with self._lock:
            return _Query(self, criterion, related).run()

    def ids(self, where: str, params: Sequence[Any]) -> list[str]:
        return [r[0] for r in self._rows(f"SELECT pid FROM papers WHERE {where} ORDER BY ord", params)]

    def group_counts(self, field: str, ids: Iterable[str]) -> list[tuple[str, int]]:
        """(value, papers) of `field` among `ids`, most papers first."""
        self.db.execute("DELETE FROM chosen")
        self.db.executemany("INSERT OR IGNORE INTO chosen VALUES (?)", [(i,) for i in ids])
        return [(str(name), int(n)) for name, n in self._rows(_GROUP_SQL[field])]


_COVERAGE = {
    "author": "SELECT venue, COUNT(DISTINCT p.pid) FROM papers p JOIN authors a ON a.pid = p.pid GROUP BY venue",
    "area": "SELECT venue, COUNT(*) FROM papers WHERE area IS NOT NULL GROUP BY venue",
    "keyword": "SELECT venue, COUNT(DISTINCT p.pid) FROM papers p JOIN keywords k ON k.pid = p.pid GROUP BY venue",
}
_GROUP_SQL = {
    "venue": "SELECT venue, COUNT(*) FROM papers JOIN chosen USING (pid) GROUP BY venue ORDER BY 2 DESC, 1",
    "status": "SELECT status, COUNT(*) FROM papers JOIN chosen USING (pid) GROUP BY status ORDER BY 2 DESC, 1",
    "area": "SELECT COALESCE(area, ''), COUNT(*) FROM papers JOIN chosen USING (pid) GROUP BY area "
    "ORDER BY 2 DESC, 1",
    "keyword": "SELECT norm, COUNT(DISTINCT pid) FROM keywords JOIN chosen USING (pid) GROUP BY norm "
    "ORDER BY 2 DESC, 1",
    "author": "SELECT folded, COUNT(DISTINCT pid) FROM authors JOIN chosen USING (pid) GROUP BY folded "
    "ORDER BY 2 DESC, 1",
}


class _Query:
    """One criterion run against the index (under its lock)."""

    def __init__(self, index: CorpusIndex, criterion: Criterion, related: Sequence[str]) -> None:
        self.index, self.c, self.related = index, criterion, related
        self.notes: list[str] = []
        self.none_match: list[str] = []
        self.parts: list[Part] = []
        self.unanswerable = False

    def run(self) -> CorpusResult:
        c = self.c
        scope = self._scope()
        needed = [f for f in ("author", "area", "keyword") if self._uses(f)]
        for field in needed:
            scope = self._with_field(field, scope)
        if not scope:  # unknown: no list in scope has the field asked about; zero: no venue named is held
            count = None if self.unanswerable else 0
            return CorpusResult(c, count, 0, [], [], self.parts, self.notes, self.none_match, [])
        where, params = self._filters(c, scope)
        base = self.index.ids(where, params)
        chosen = self._topics(base) if c.topics else base
        denominator = self._denominator(scope)
        papers = [self.index.papers[i] for i in chosen]
        papers.sort(key=self._order(chosen))
        groups = self._groups(chosen, scope) if c.group else []
        return CorpusResult(
            c, len(chosen), len(denominator), papers, groups, self.parts, self.notes, self.none_match, scope
        )

    def _uses(self, field: str) -> bool:
        values = {"author": self.c.authors, "area": self.c.areas, "keyword": self.c.keywords}[field]
        return bool(values) or self.c.group == field

    # ------------------------------------------------------------------ scope and filters

    def _scope(self) -> list[str]:
        known = self.index.venues
        if not self.c.venues:
            return sorted(known)
        scope: list[str] = []
        for named in self.c.venues:
            matches = [
                v for v in known if v.lower() == named.lower() or v.lower().startswith(named.lower() + " ")
            ]
            if matches:
                scope += matches
            else:
                nearest = self.index.names.nearest_venue(named, list(known))
                self.none_match.append(f"venue {named!r}: none match; the store holds {', '.join(nearest)}")
        return list(dict.fromkeys(scope))

    def _with_field(self, field: str, scope: list[str]) -> list[str]:
        have, sizes = self.index.coverage[field], self.index.venues
        missing = [v for v in scope if have.get(v, 0) < LISTS_FIELD * sizes.get(v, 0)]
        if not missing:
            return scope
        kept = [v for v in scope if v not in missing]
        what = FIELD_NAMES[field]
        few = [f"{have[v]:,} of {sizes[v]:,} {v} papers have them" for v in missing if have.get(v)]
        lacking = " and ".join(missing) + f" list{'s' if len(missing) == 1 else ''} no {what}"
        lacking += f" ({'; '.join(few)})" if few else ""
        if kept:
            self.notes.append(f"{lacking}: left out, not counted as zero; {', '.join(kept)} only.")
        else:
            self.unanswerable = True
            self.notes.append(f"{lacking}, so the store cannot answer this (unknown, not zero).")
        return kept

    def _filters(self, c: Criterion, scope: list[str]) -> tuple[str, list[Any]]:
        clauses = [f"venue IN ({','.join('?' * len(scope))})"]
        params: list[Any] = list(scope)
        if c.status:
            clauses.append("status = ?")
            params.append(c.status)
            self._check_status(c.status, scope)
        if c.areas:
            areas = [a for named in c.areas for a in self._resolved("area", named)]
            clauses.append(f"area IN ({','.join('?' * len(areas))})" if areas else "0")
            params += areas
        if c.keywords:
            clauses.append(
                "pid IN (SELECT pid FROM keywords WHERE "
                + " OR ".join("phrase(?, keyword)" for _ in c.keywords)
                + ")"
            )
            params += list(c.keywords)
        for named in c.authors:
            names = self._resolved("author", named)
            clauses.append(f"pid IN (SELECT pid FROM authors WHERE folded IN ({','.join('?' * len(names))}))")
            params += [folded(n) for n in names]
        return " AND ".join(clauses), params

    def _resolved(self, kind: str, named: str) -> list[str]:
        found = self.index.names.resolve(kind, named)
        if found:
            if [folded(f) for f in found] != [folded(named)]:
                self.parts.append(Part(f"{kind} {named!r} = {' | '.join(found[:8])}", len(found)))
        else:
            nearest = self.index.names.nearest(kind, named)
            hint = f"; nearest in the store: {'; '.join(nearest)}" if nearest else ""
            self.none_match.append(f"{kind} {named!r}: none match{hint}")
        return found

    def _check_status(self, status: str, scope: list[str]) -> None:
        held = [s for s, _ in self.index.group_counts("status", self.index.ids(_in(scope), scope)) if s]
        if status not in held:
            self.none_match.append(
                f"decision {status!r}: none match; decisions here: {', '.join(sorted(held))}"
            )

    # ------------------------------------------------------------------ topics

    def _topics(self, base: list[str]) -> list[str]:
        allowed = set(base)
        chosen = set(base)
        for group in self.c.topics:
            matched: set[str] = set()
            for phrase in group:
                by_field = {f: self._matching(f, phrase) & allowed for f in self.c.fields}
                union = set().union(*by_field.values())
                where = " · ".join(f"{f} {len(ids):,}" for f, ids in by_field.items())
                self.parts.append(Part(f"“{phrase}” ({where})", len(union)))
                matched |= union
            if len(group) > 1:
                self.parts.append(Part("any of " + ", ".join(f"“{p}”" for p in group), len(matched)))
            chosen &= matched
        if len(self.c.topics) > 1:
            self.parts.append(Part("all topics", len(chosen)))
        self._keyword_note()
        self._related(allowed, chosen)
        return [i for i in base if i in chosen]

    def _matching(self, field: str, phrase: str) -> set[str]:
        if field == "keywords":
            return {
                r[0]
                for r in self.index._rows(
                    "SELECT DISTINCT pid FROM keywords WHERE phrase(?, keyword)", [phrase]
                )
            }
        return set(self.index.ids(f"phrase(?, {field})", [phrase]))

    def _keyword_note(self) -> None:
        if "keywords" not in self.c.fields:
            return
        have, sizes = self.index.coverage["keyword"], self.index.venues
        missing = [v for v in self._scope_quiet() if have.get(v, 0) < LISTS_FIELD * sizes.get(v, 0)]
        if missing:
            self.notes.append(
                f"Keywords searched where the list has them; {' and '.join(missing)} lists none."
            )

    def _scope_quiet(self) -> list[str]:
        known = self.index.venues
        if not self.c.venues:
            return sorted(known)
        return [
            v
            for v in known
            for n in self.c.venues
            if v.lower() == n.lower() or v.lower().startswith(n.lower() + " ")
        ]

    def _related(self, allowed: set[str], chosen: set[str]) -> None:
        extra = [i for i in self.related if i in allowed and i not in chosen]
        if not self.related and not self.c.related:
            return
        if self.c.related:
            chosen.update(extra)
            self.parts.append(Part("added: above the retriever's topic cutoff, naming no phrase", len(extra)))
        else:
            self.parts.append(
                Part("not counted: above the retriever's topic cutoff, naming no phrase", len(extra))
            )

    # ------------------------------------------------------------------ denominators, groups, order

    def _denominator(self, scope: list[str]) -> list[str]:
        c = self.c
        kinds = c.share_of if c.show == "share" else ("venue", "status")
        base = dataclasses.replace(c, share_of=tuple(kinds)).base()
        quiet = _Query(self.index, base, ())
        where, params = quiet._filters(base, scope)
        ids = self.index.ids(where, params)
        return quiet._topics(ids) if base.topics else ids

    def _groups(self, chosen: list[str], scope: list[str]) -> list[Group]:
        field = self.c.group
        counts = self.index.group_counts(field, chosen)
        totals: dict[str, int] = {}
        if field in ("venue", "status") or self.c.show == "share":
            denominator = self._denominator(scope)
            if set(denominator) == set(chosen):  # "ratio of orals to posters": each group of the whole
                totals = {name: len(chosen) for name, _ in counts}
            else:
                totals = dict(self.index.group_counts(field, denominator))
        names = self.index.names.display(field, [name for name, _ in counts])
        groups = [
            Group(names.get(n, n) or NO_VALUE.get(field, "(none)"), k, totals.get(n)) for n, k in counts
        ]
        if field in ("keyword", "author"):
            return groups[: self.c.top]
        if field == "venue":  # every venue in scope, with zero where nothing matches
            seen = {g.name for g in groups}
            groups += [Group(v, 0, totals.get(v)) for v in scope if v not in seen]
        return groups

    def _order(self, chosen: list[str]) -> Any:
        first_words = self.c.topics[0] if self.c.topics else ()

        def key(paper: Paper) -> tuple[int, str, int, str]:
            in_title = any(phrase_pattern(p).search(paper.title) for p in first_words)
            rank = STATUS_ORDER.index(paper.status) if paper.status in STATUS_ORDER else len(STATUS_ORDER)
            return (
                0 if in_title or not first_words else 1,
                venue_of(paper),
                rank,
                paper.display_name.lower(),
            )

        return key


def _in(scope: list[str]) -> str:
    return f"venue IN ({','.join('?' * len(scope))})"
