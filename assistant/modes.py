"""The answering modes besides plain questions: subfield summaries and side-by-side comparisons.

`detect_mode` reads the mode from the question ("summarize the work on X", "compare A and B", "A vs B");
`run_summarize` and `run_compare` carry a mode out for an `Assistant`, yielding the same events as
`Assistant.stream`.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator, Sequence
from typing import TYPE_CHECKING

import prompts
from assistant.citations import cite_plain, validate_citations
from assistant.context import build_context, defuse, is_compact
from assistant.extractive import (
    ASPECTS,
    aspect_cells,
    compare_names,
    compare_table,
    extractive_compare,
    extractive_summary,
    key_sentence,
    short_name,
    token_events,
)
from assistant.types import Answer, Event, Filters, SearchResult

if TYPE_CHECKING:
    from assistant.chain import Assistant

__all__ = ["MODES", "detect_mode", "summarize_topic", "compare_targets", "run_summarize", "run_compare",
           "extractive_notes", "parse_aspects"]

MODES = ("auto", "ask", "summarize", "compare")
_COMPARE = re.compile(r"^\s*(?:please\s+)?(?:compare|contrast)\b|\b(?:vs\.?|versus)\s|\bdifferences?\s+between\b|"
                      r"\bhow\s+(?:does|do|is|are)\s+.+\s+differ\b", re.IGNORECASE)
_SUMMARIZE = re.compile(r"^\s*(?:please\s+)?(?:summari[sz]e|give\s+(?:me\s+)?an?\s+overview|overview\s+of|survey)\b|"
                        r"\bwhat\s+has\s+been\s+done\s+(?:on|in|about)\b|\bsummary\s+of\b|\boverview\s+of\b",
                        re.IGNORECASE)
_SUMMARY_WORDS = re.compile(r"^\s*(?:please\s+)?(?:summari[sz]e|give\s+(?:me\s+)?an?\s+overview\s+of|overview\s+of|"
                            r"survey|what\s+has\s+been\s+done\s+(?:on|in|about)|(?:a\s+)?summary\s+of)\s*"
                            r"(?:the\s+)?(?:(?:work|research|papers?|literature)\s+(?:on|about|in)\s+)?",
                            re.IGNORECASE)
_TWO = re.compile(r"\bthe\s+(two|three|2|3)\s+(?P<what>.+)$", re.IGNORECASE)
_SPLIT = re.compile(r"\s*(?:,\s*(?:and\s+)?|\band\b|\bwith\b|\bversus\b|\bvs\.?|\bto\b|\bfrom\b)\s*", re.IGNORECASE)
_NAME_LIKE = re.compile(r"^[\w-]*[A-Z0-9][\w-]*$")
_ASPECT_LINE = re.compile(r"^\W*(?P<aspect>problem|method|data|results?|limitations?)\W*\s*:\s*(?P<value>.*)$",
                          re.IGNORECASE)
_NOT_STATED = re.compile(r"^\W*(?:not\s+(?:stated|mentioned|specified|given|discussed)|none|n/?a|unknown|-+)\W*$",
                         re.IGNORECASE)
COMPARE_PAPER_TOKENS = 220  # five lines of under 25 words
CELL_WORDS = 40  # longest cell a model may fill
NOTE_WORDS = 30  # longest note on one paper when a local model's summary notes are taken from the abstracts


def detect_mode(question: str, explicit: str = "auto") -> str:
    """'ask', 'summarize' or 'compare'; an explicit mode other than 'auto' wins."""
    if explicit != "auto":
        return explicit
    if _COMPARE.search(question):
        return "compare"
    if _SUMMARIZE.search(question):
        return "summarize"
    return "ask"


def summarize_topic(question: str) -> str:
    """The topic of a summary request: "Summarize the work on X?" -> "X"."""
    topic = _SUMMARY_WORDS.sub("", question).strip(" ?.!")
    return topic or question.strip(" ?.!")


def compare_targets(question: str) -> tuple[list[str], int]:
    """(the named items to compare, or [description]; how many papers a description asks for, else 0)."""
    text = question.strip().rstrip("?.! ")
    text = re.sub(r"^\s*(?:please\s+)?(?:compare|contrast)\s+", "", text, flags=re.IGNORECASE)
    text = re.sub(r"^.*?\bdifferences?\s+between\s+", "", text, flags=re.IGNORECASE)
    text = re.sub(r"^\s*how\s+(?:does|do|is|are)\s+", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\s+differ\b.*$", "", text, flags=re.IGNORECASE)
    two = _TWO.search(text)
    if two:
        count = {"two": 2, "three": 3}.get(two.group(1).lower(), int(two.group(1)) if two.group(1).isdigit() else 2)
        return [two.group("what").strip()], count
    parts = [re.sub(r"^(?:the|a|an)\s+|\s+(?:papers?|methods?|models?|approach(?:es)?)$", "", p.strip(" \"'“”"),
                    flags=re.IGNORECASE) for p in _SPLIT.split(text)]
    return [p for p in parts if p], 0


# ---------------------------------------------------------------------------------------------- summarize


def run_summarize(assistant: Assistant, question: str, standalone: str, filters: Filters | None) -> Iterator[Event]:
    topic = summarize_topic(standalone)
    retriever, settings = assistant.retriever, assistant.settings
    found = retriever.retrieve_all(topic, filters=filters, cap=settings.chain.summarize_cap)
    if not found.parsed_filters.is_empty():
        yield Event("status", f"Filters: {found.parsed_filters.describe()}")
    if not found.results:
        yield from assistant.not_covered(standalone, filters, mode="summarize", parsed=found)
        return
    matching = max(retriever.count_matching(found.query, found.filters), len(found.results))
    results = found.results
    yield Event("status", f"Summarizing {len(results)} of {matching} matching papers on {found.query!r}")
    text: str
    if assistant.llm.generates:
        text = yield from _summarize_with_llm(assistant, found.query, results)
    else:
        text = extractive_summary(found.query, results, assistant.scorer)
        yield from token_events(text)
    checked = validate_citations(text, results, assistant.scorer, threshold=settings.chain.support_threshold)
    final, citations = checked.text, list(checked.citations)
    cited = {c.paper_id for c in citations}
    left_out = [r for r in results if r.paper.paper_id not in cited]
    if left_out:  # every paper used is cited: the ones the overview left out are listed
        also, more = cite_plain(", ".join(f"{_name(r)} [{n}]" for n, r in enumerate(left_out, 1)), left_out)
        for c in more:
            c.n += len(citations)
        also = re.sub(r"\[(\d+)\]", lambda m: f"[{int(m.group(1)) + len(citations)}]", also)
        final += f"\n\nAlso on this topic: {also}."
        citations += more
    coverage = f"Coverage: covers {len(citations)} of {matching} matching papers."
    yield Event("token", final[len(checked.text):] + "\n\n" + coverage if left_out else "\n\n" + coverage)
    yield Event("final", answer=Answer(
        f"{final}\n\n{coverage}", True, "summarize", standalone, citations, list(results),
        found.filters, checked.unsupported, checked.removed))


def _summarize_with_llm(assistant: Assistant, topic: str,
                        results: Sequence[SearchResult]) -> Generator[Event, None, str]:
    """Map (notes per batch of papers that fits the context) then reduce (themes); returns the text.

    A local model reads prompts at ~50 tokens/s here, so one map call per batch of papers would keep the
    user waiting minutes for the first token: for local models the notes are each paper's key sentence
    instead (`extractive_notes`), and the model writes only the overview.
    """
    if is_compact(assistant.llm):
        reduce = prompts.render("summarize_reduce", topic=topic, notes="", count=len(results))
        budget = assistant.source_budget(reduce, local_budget=assistant.llm.context_window)
        notes = extractive_notes(assistant, topic, results, budget=budget)
        prompt = prompts.render("summarize_reduce", topic=topic, notes=notes, count=len(notes.splitlines()))
        return (yield from assistant.generate(prompt, len(results)))
    budget = assistant.source_budget(prompts.render("summarize_map", topic=topic, sources=""))
    batches = []
    first = 1
    while first <= len(results):
        context = build_context(results[first - 1:], assistant.llm, budget=budget, question=topic,
                                compact=True, first=first)
        batches.append(context)
        first += max(1, len(context.sources))
    if len(batches) == 1:
        notes = batches[0].text
    else:
        parts = []
        for i, context in enumerate(batches, 1):
            yield Event("status", f"Reading papers: batch {i} of {len(batches)}")
            prompt = prompts.render("summarize_map", topic=topic, sources=context.text)
            parts.append(assistant.complete(prompt))
        notes = "\n".join(parts)
    prompt = prompts.render("summarize_reduce", topic=topic, notes=notes, count=len(results))
    return (yield from assistant.generate(prompt, len(results)))


def extractive_notes(assistant: Assistant, topic: str, results: Sequence[SearchResult], *, budget: int) -> str:
    """One note per paper, "- Name: key sentence [n]", the sentences shortened so the notes fit `budget`
    tokens; notes that still do not fit are left out (the summary then lists those papers as not covered)."""
    query = assistant.scorer.embed([topic])[0]
    words = max(8, min(NOTE_WORDS, int(budget / max(1, len(results)) / 1.6) - 6))
    lines: list[str] = []
    used = 0
    for n, result in enumerate(results, 1):
        sentence = defuse(key_sentence(result, assistant.scorer, query)).split()
        text = " ".join(sentence[:words]) + (" …" if len(sentence) > words else "")
        line = f"- {defuse(short_name(result) or result.paper.label)}: {text} [{n}]"
        used += assistant.llm.count_tokens(line) + 1
        if used > budget:
            break
        lines.append(line)
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- compare


def run_compare(assistant: Assistant, question: str, standalone: str, filters: Filters | None) -> Iterator[Event]:
    papers, missing = _resolve(assistant, standalone)
    notes = [f"{name} is not in the corpus." for name in missing]
    if missing:
        yield Event("status", "Not in the corpus: " + ", ".join(missing))
    if len(papers) < 2:
        yield from _cannot_compare(assistant, standalone, papers, notes)
        return
    names = " and ".join(f"{short_name(r) or 'paper'} [{n}]" for n, r in enumerate(papers, 1))
    yield Event("status", f"Comparing {names}")
    prefix = "\n".join(notes) + ("\n\n" if notes else "")
    if prefix:
        yield Event("token", prefix)
    text: str
    if assistant.llm.generates:
        text = yield from _compare_with_llm(assistant, standalone, papers)
    else:
        text = extractive_compare(papers)
        yield from token_events(text)
    checked = validate_citations(text, papers, assistant.scorer, threshold=assistant.settings.chain.support_threshold)
    yield Event("final", answer=Answer(prefix + checked.text, True, "compare", standalone, checked.citations,
                                       papers, filters or Filters(), checked.unsupported, checked.removed))


def _compare_with_llm(assistant: Assistant, question: str,
                      papers: Sequence[SearchResult]) -> Generator[Event, None, str]:
    """The table is built here, not by the model: small models asked for a whole table mix up its rows and
    columns. The model fills in each paper's aspects from that paper's abstract alone (one call per paper,
    "Method: …" lines), an aspect it leaves out is taken from the abstract's cue sentences (`aspect_cells`),
    and the table is rendered with each cell citing its paper. Then the model writes the verdict from the
    table, streamed. Returns the whole text."""
    names = compare_names(papers)
    columns: list[dict[str, str]] = []
    for n, (name, paper) in enumerate(zip(names, papers, strict=True), 1):
        yield Event("status", f"Reading {name} [{n}] ({n} of {len(papers)})")
        budget = assistant.source_budget(prompts.render("compare_paper", sources="", paper=name))
        context = build_context([paper], assistant.llm, budget=budget, question=question, compact=False, first=n)
        reply = assistant.complete(prompts.render("compare_paper", sources=context.text, paper=defuse(name)),
                                   max_tokens=COMPARE_PAPER_TOKENS)
        parsed, fallback = parse_aspects(reply), aspect_cells(paper)
        columns.append({aspect: parsed[aspect] if aspect in parsed else fallback[aspect] for aspect in ASPECTS})
    table = compare_table(names, columns)
    yield from token_events(table + "\n\nVerdict: ")
    prompt = prompts.render("compare_verdict", question=question, table=table)
    verdict = yield from _without_prefix(assistant.generate(prompt, len(papers)), "verdict:")
    return f"{table}\n\nVerdict: {verdict}"


def parse_aspects(reply: str) -> dict[str, str]:
    """The aspects a model's "Problem: …" lines state ("not stated" kept as ""), markers and markup removed."""
    found: dict[str, str] = {}
    for line in reply.splitlines():
        match = _ASPECT_LINE.match(line)
        if not match:
            continue
        aspect = next(a for a in ASPECTS if a.lower().startswith(match.group("aspect").lower()[:4]))
        value = re.sub(r"\s*\[\d+(?:\s*,\s*\d+)*\]", "", match.group("value")).strip(" *_`\"'")
        if aspect not in found:
            found[aspect] = "" if _NOT_STATED.match(value) else _clip_words(value, CELL_WORDS)
    return found


def _without_prefix(events: Generator[Event, None, str], prefix: str) -> Generator[Event, None, str]:
    """Pass `events` on, dropping a leading `prefix` (any case, with markup) from the streamed text; returns
    the generator's text without it."""
    pending, started = "", False
    while True:
        try:
            event = next(events)
        except StopIteration as stop:
            raw = str(stop.value or "")
            break
        if started or event.kind != "token":
            yield event
            continue
        pending += event.text
        if len(pending) >= len(prefix) + 8:
            started = True
            if shown := _strip_prefix(pending, prefix):
                yield Event("token", shown)
    if not started and (shown := _strip_prefix(pending, prefix)):
        yield Event("token", shown)
    return _strip_prefix(raw, prefix)


def _strip_prefix(text: str, prefix: str) -> str:
    return re.sub(rf"^\s*[*_#]*\s*{re.escape(prefix.rstrip(':'))}\s*[*_]*\s*:?\s*[*_]*\s*", "", text,
                  flags=re.IGNORECASE)


def _clip_words(text: str, words: int) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def _name(result: SearchResult) -> str:
    return short_name(result) or " ".join(result.paper.abstract.split()[:6]) + " …"


def _resolve(assistant: Assistant, question: str) -> tuple[list[SearchResult], list[str]]:
    """The papers the question names (in order, without repeats) and the names found in no paper."""
    targets, count = compare_targets(question)
    retriever = assistant.retriever
    if count:
        found = retriever.retrieve(targets[0], k=count)
        return [r for r in found.results if r.score >= found.cutoff], [] if found.relevant else targets
    papers: dict[str, SearchResult] = {}
    missing: list[str] = []
    for name in targets:
        hits = retriever.find(name, k=1)
        exact = bool(hits) and hits[0].score >= 1.0
        described = bool(hits) and not _NAME_LIKE.match(name) and hits[0].score >= retriever.cutoff
        if exact or described:
            papers.setdefault(hits[0].paper.paper_id, hits[0])
        else:
            missing.append(name)
    return list(papers.values()), missing


def _cannot_compare(assistant: Assistant, question: str, papers: list[SearchResult], notes: list[str]) -> Iterator[Event]:
    if papers:
        notes.append(f"Only one of the papers is in the corpus: {short_name(papers[0]) or 'a paper'} [1]; "
                     "there is nothing to compare it with.")
    else:
        notes.append("None of the papers named is in the corpus, so there is nothing to compare.")
    text, citations = cite_plain("\n".join(notes), papers)
    yield from token_events(text)
    yield Event("final", answer=Answer(text, False, "compare", question, citations, papers,
                                       notice="Comparison needs at least two papers from the corpus."))
