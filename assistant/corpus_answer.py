"""The corpus mode's answer in words, from a `CorpusResult` only: the headline number, the groups or the
list, the criterion with the count of each part, and a few example papers cited [n].

Every number written here is one the query computed; nothing is left to a language model.
"""

from __future__ import annotations

import re

from assistant.corpus_query import Criterion
from assistant.corpus_stats import CorpusResult, Group, venue_of

__all__ = ["corpus_text", "describe", "LIST_SHOWN", "EXAMPLES"]

LIST_SHOWN = 20  # papers listed in the answer's text; the table has them all
EXAMPLES = 5  # example papers cited under a count, a breakdown or a share
GROUPS_SHOWN = 15
_FIELD_TITLES = {
    "venue": "venue",
    "status": "decision",
    "area": "primary area",
    "keyword": "keyword",
    "author": "author",
}
_COMPARATIVE = re.compile(r"\b(bigger|larger|greater|higher|more|smaller|lower|less|fewer)\b", re.IGNORECASE)
_YES_NO = re.compile(r"^\s*(?:is|are|was|were|does|do|did|has|have)\b", re.IGNORECASE)


def describe(c: Criterion) -> str:
    """The papers a criterion selects, in words: "ICML 2026 orals about “diffusion” by …"."""
    noun = {"Oral": "orals", "Poster": "posters", "Spotlight": "spotlights"}.get(c.status, "papers")
    head = " and ".join(c.venues)
    text = f"{head} {noun}".strip() if head else ("all " + noun if c.is_everything() else noun)
    if c.topics:
        where = "" if set(c.fields) == {"title", "abstract", "keywords"} else " in the " + "/".join(c.fields)
        topics = " and ".join(" or ".join(f"“{p}”" for p in group) for group in c.topics)
        text += f" naming {topics}{where}"
    if c.areas:
        text += " in the primary area " + " or ".join(f"“{a}”" for a in c.areas)
    if c.keywords:
        text += " with the keyword " + " or ".join(f"“{k}”" for k in c.keywords)
    if c.authors:
        text += " by " + " and ".join(c.authors)
    if c.related and c.topics:
        text += " (and related papers)"
    return text


def corpus_text(result: CorpusResult, question: str) -> str:
    """The whole answer: headline, body (groups or list), criterion, examples. Examples are cited [1]…[n]
    in the order of `result.papers`."""
    blocks = [_headline(result, question), _body(result), _criterion(result), _examples(result)]
    return "\n\n".join(b for b in blocks if b)


def _headline(r: CorpusResult, question: str) -> str:
    c, what = r.criterion, describe(r.criterion)
    if r.count is None:
        return f"The store cannot count {what}: " + " ".join(r.notes)
    if r.none_match and r.count == 0:
        return f"**0** papers: none match ({'; '.join(r.none_match)})."
    if c.show == "share" and c.group:
        return _share_groups(r, question)
    if c.show == "share":
        of = describe(c.base())
        return f"**{_pct(r.count, r.total)}** of {of} are {what}: {r.count:,} of {r.total:,}."
    out_of = (
        f" (of {r.total:,} {describe(_plain(c, r.scope))}: {_pct(r.count, r.total)})"
        if r.total != r.count
        else ""
    )
    return f"**{r.count:,}** {what}{out_of}."


def _plain(c: Criterion, scope: list[str]) -> Criterion:
    """The denominator's papers: the venues counted (a venue left out for lacking a field is not among
    them), with the decision asked about."""
    return Criterion(venues=tuple(scope) or c.venues, status=c.status)


def _share_groups(r: CorpusResult, question: str) -> str:
    c = r.criterion
    groups = [g for g in r.groups if g.total]
    lines = [f"{g.name} {_pct(g.count, g.total or 0)} ({g.count:,} of {g.total:,})" for g in groups]
    text = f"Share of {describe(c)} per {_FIELD_TITLES[c.group]}: " + " · ".join(lines) + "."
    verdict = _verdict(groups, c, question)
    return f"{verdict} {text}".strip()


def _verdict(groups: list[Group], c: Criterion, question: str) -> str:
    """ "Yes." / "No." for "Is X a bigger share of A than of B?", decided from the shares."""
    word = _COMPARATIVE.search(question)
    if not (word and _YES_NO.search(question) and c.group == "venue" and len(c.venues) >= 2):
        best = max(groups, key=lambda g: g.share or 0.0, default=None)
        return f"{best.name} has the largest share." if best and len(groups) > 1 else ""
    by_name = {g.name.lower(): g for g in groups}
    first, second = (_venue_group(by_name, v) for v in c.venues[:2])
    if first is None or second is None:
        return ""
    bigger = word.group(1).lower() in ("bigger", "larger", "greater", "higher", "more")
    a, b = first.share or 0.0, second.share or 0.0
    yes = a > b if bigger else a < b
    return (
        f"**{'Yes' if yes else 'No'}** ({first.name} {_pct(first.count, first.total or 0)}, {second.name} "
        + (f"{_pct(second.count, second.total or 0)}).")
    )


def _venue_group(by_name: dict[str, Group], venue: str) -> Group | None:
    key = venue.lower()
    return by_name.get(key) or next((g for n, g in by_name.items() if n.startswith(key + " ")), None)


def _body(r: CorpusResult) -> str:
    c = r.criterion
    if r.count is None or (r.none_match and r.count == 0):
        return ""
    if c.group and c.show != "share":
        return _groups(r)
    if c.show == "list":
        return _listing(r)
    return ""


def _groups(r: CorpusResult) -> str:
    c = r.criterion
    shown = r.groups[: min(c.top, GROUPS_SHOWN) if c.group in ("keyword", "author") else GROUPS_SHOWN]
    lines = [f"By {_FIELD_TITLES[c.group]}:"]
    for i, g in enumerate(shown, 1):
        part = (
            f"{g.count:,} of {g.total:,}, {_pct(g.count, g.total)}"
            if g.total
            else _pct(g.count, r.count or 0)
        )
        lines.append(f"{i}. {g.name}: {g.count:,} ({part})")
    if len(r.groups) > len(shown) and c.group not in ("keyword", "author"):
        lines.append(f"… and {len(r.groups) - len(shown)} more (all in the table)")
    return "\n".join(lines)


def _listing(r: CorpusResult) -> str:
    lines = []
    for i, paper in enumerate(r.papers[:LIST_SHOWN], 1):
        status = f" {paper.status}" if paper.status else ""
        lines.append(f"{i}. {paper.display_name} ({venue_of(paper)}{status}) [{i}]")
    if len(r.papers) > LIST_SHOWN:
        lines.append(f"… and {len(r.papers) - LIST_SHOWN:,} more (all {len(r.papers):,} in the table)")
    return "\n".join(lines)


def _criterion(r: CorpusResult) -> str:
    lines = [f"Criterion: {r.criterion.to_text()}"]
    lines += [f"- {p.label}: {p.count:,}" for p in r.parts]
    lines += [f"- {n}" for n in r.notes if r.count is not None]
    lines += [f"- {n}" for n in r.none_match if r.count]
    return "\n".join(lines)


def _examples(r: CorpusResult) -> str:
    if r.criterion.show == "list" or not r.papers or r.count is None:
        return ""
    shown = r.papers[:EXAMPLES]
    return "For example: " + "; ".join(f"{p.display_name} [{i}]" for i, p in enumerate(shown, 1)) + "."


def example_count(r: CorpusResult) -> int:
    """How many papers the text cites, [1]…[n], in the order of `r.papers`."""
    if r.count is None or not r.papers:
        return 0
    if r.criterion.show == "list":
        return min(LIST_SHOWN, len(r.papers))
    return min(EXAMPLES, len(r.papers))


def _pct(count: int, total: int | None) -> str:
    if not total:
        return "–"
    share = 100 * count / total
    return f"{share:.1f}%" if share >= 0.1 or share == 0 else f"{share:.2f}%"


def table_text(result: CorpusResult, limit: int = 50) -> str:
    """The groups and the matching papers as plain-text tables, for a terminal (the first `limit` papers)."""
    lines: list[str] = []
    if result.groups:
        title = _FIELD_TITLES.get(result.criterion.group, result.criterion.group)
        lines += ["", f"{title:<60} {'papers':>7} {'of':>7} {'share':>7}"]
        for g in result.groups:
            total = f"{g.total:,}" if g.total is not None else ""
            share = _pct(g.count, g.total) if g.total else _pct(g.count, result.count or 0)
            lines.append(f"{_cut(g.name, 60):<60} {g.count:>7,} {total:>7} {share:>7}")
    if result.papers:
        lines += ["", f"{'#':>4}  {'title':<64} {'venue':<10} {'status':<7} {'area':<28} link"]
        for i, row in enumerate(result.rows()[:limit], 1):
            lines.append(
                f"{i:>4}  {_cut(row['title'], 64):<64} {row['venue']:<10} {row['status']:<7} "
                f"{_cut(row['area'], 28):<28} {row['link']}"
            )
        if len(result.papers) > limit:
            lines.append(f"      … {len(result.papers) - limit:,} more (--json lists them all)")
    return "\n".join(lines) + ("\n" if lines else "")


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
