"""Whether a question is about the conferences as a whole (a count, a list of every matching paper, a
breakdown, a share), which the corpus mode answers from the metadata, rather than about what papers say.

Precision first: a question goes to the corpus mode only when it asks for a number of papers, all papers
of a kind, a grouping or a share; "How many layers does X use?" or "Which paper proposes X?" do not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant.corpus_parse import is_follow_up, narrowed, parse_question
from assistant.corpus_query import Criterion, is_criterion_text, parse_criterion_text
from assistant.types import Turn

__all__ = ["looks_like_corpus_question", "continues_corpus", "wants_corpus", "criterion_for"]

_I = re.IGNORECASE
_P = r"(?:papers|orals|posters|spotlights|works|submissions|articles|publications|accepted\s+papers|paper)"
_PLURAL = r"(?:papers|orals|posters|spotlights|works|submissions|articles|publications)"
_V = r"(?:ICLR|ICML|NeurIPS|conferences?|venues?)"
_FIELD = (
    r"(?:primary[\s-]+)?(?:research[\s-]+)?(?:areas?|keywords?|topics?|authors?|venues?|conferences?|tags?)"
)
_NOT_VERB = r"(?:(?!does\b|did\b|do\b|is\b|was\b|were\b|are\b)\S+\s+)"
_PATTERNS = [
    rf"\bhow\s+many\s+{_NOT_VERB}{{0,6}}?{_P}\b",
    rf"\bhow\s+many\s+(?:of\s+)?(?:the\s+)?{_V}\b",
    rf"\b(?:number|count|total|tally)\s+of\s+(?:\S+\s+){{0,5}}?{_P}\b",
    rf"^\s*(?:please\s+|can\s+you\s+|could\s+you\s+)*count\s+(?:\S+\s+){{0,5}}?{_P}\b",
    rf"^\s*(?:please\s+|can\s+you\s+|could\s+you\s+)*(?:list|enumerate)\s+(?:\S+\s+){{0,6}}?{_P}\b",
    rf"\b(?:show|give|find|name|display|print)\s+(?:me\s+)?(?:all|every)\s+(?:\S+\s+){{0,5}}?{_P}\b",
    rf"\ball\s+(?:the\s+)?(?:\S+\s+){{0,4}}?{_PLURAL}\s+(?:(?:co-?)?authored\s+|written\s+)?by\s+[A-Z]",
    rf"\b{_PLURAL}\s+(?:(?:co-?)?authored\s+|written\s+)?by\s+(?!the\b|a\b)[A-Z][\w'.-]+(?!\s+et\s+al)",
    rf"\b(?:which|what)\s+(?:(?:are|is|were)\s+the\s+)?(?:\S+\s+){{0,3}}?{_FIELD}\b.*\b(?:most|fewest|least|"
    rf"largest|biggest|highest|lowest|more|fewer|common|frequent|popular|prolific)\b",
    rf"\b(?:most|least)\s+(?:common|frequent|popular|prolific|represented|used|productive)\s+{_FIELD}\b",
    rf"\btop[\s-]*\d*\s+{_FIELD}\b",
    rf"\bwho\s+(?:has|have|wrote|authored|published)\s+the\s+most\s+(?:\S+\s+){{0,3}}?{_P}",
    rf"\b{_PLURAL}\s+(?:are\s+|were\s+)?(?:tagged\s+(?:with\s+)?|(?:with|having|carrying)\s+)the\s+keywords?\b",
    rf"\b(?:share|fraction|proportion|percentage|percent|ratio)\s+of\s+(?:the\s+)?(?:\S+\s+){{0,4}}?(?:{_P}|{_V})",
    r"\b(?:bigger|larger|greater|smaller|higher|lower)\s+(?:share|fraction|proportion|percentage)\b",
    rf"\b(?:breakdown|break\s+down|distribution|split|histogram|tally)\b.*\b(?:by|per|across|over)\s+(?:the\s+)?"
    rf"(?:{_FIELD}|status|decisions?)\b",
    rf"\b{_P}\s+(?:per|by|for\s+each|in\s+each|across)\s+(?:primary\s+)?(?:area|venue|conference|status|"
    rf"decision|keyword|author)s?\b",
    r"\b(?:ICLR|ICML)\b.*\b(?:than|vs\.?|versus|compared\s+(?:to|with))\s+(?:at\s+|in\s+|of\s+)?(?:ICLR|ICML)\b",
    r"\bwhich\s+(?:(?:ICLR|ICML)(?:\s+20\d\d)?\s+)?(?:orals|posters|spotlights)\b",
    rf"\bwhich\s+(?:ICLR|ICML)(?:\s+20\d\d)?\s+{_PLURAL}\b",
    r"\b(?:by|per)\s+(?:status|decision|(?:primary\s+)?area|venue|conference)s?\s*[?.!]?\s*$",
]
_CORPUS = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), _I)
_ABOUT_A_PAPER = re.compile(
    r"\b(?:cite|cites|cited|reference|references|referenced|reviews?|surveys?|compare\s+against)\b|"
    r"\bthe\s+(?:paper|method|model|approach)\b|\bthis\s+paper\b|\bet\s+al\b",
    _I,
)
_VENUE_COMPARE_NEEDS = re.compile(r"\b(?:more|fewer|less|share|bigger|larger|smaller|many|papers)\b", _I)


def looks_like_corpus_question(question: str) -> bool:
    """Whether `question` asks for a count, a full list, a breakdown or a share of papers."""
    if is_criterion_text(question):
        return True
    match = _CORPUS.search(question)
    if not match:
        return False
    if _ABOUT_A_PAPER.search(question):  # "How many papers does X cite?", "the paper by Smith et al."
        return False
    if re.search(
        r"\b(?:than|vs\.?|versus|compared)\b", match.group(0), _I
    ) and not _VENUE_COMPARE_NEEDS.search(question):
        return False
    return True


def continues_corpus(question: str, history: Sequence[Turn], venues: Sequence[str] = ()) -> bool:
    """Whether `question` is a follow-up of a corpus answer in `history` ("show them", "and how many of
    those are orals?"): the corpus mode then answers it whatever it looks like on its own."""
    return bool(history) and is_follow_up(question) and criterion_for(question, history, venues) is not None


def wants_corpus(question: str, history: Sequence[Turn]) -> bool:
    """Whether the question as typed goes to the corpus mode: it asks for counts, lists, breakdowns or shares,
    or it follows up a corpus answer of `history`."""
    return looks_like_corpus_question(question) or continues_corpus(question, history)


def criterion_for(question: str, history: Sequence[Turn], venues: Sequence[str] = ()) -> Criterion | None:
    """The criterion of `question` read as a follow-up of the corpus questions in `history`, or None when it
    is not one (the last turn was not a corpus question, or the question does not lean on it)."""
    previous: Criterion | None = None
    for turn in history:
        if is_criterion_text(turn.question):
            previous = parse_criterion_text(turn.question)
        elif previous is not None and is_follow_up(turn.question):
            previous = narrowed(previous, turn.question, venues)
        elif looks_like_corpus_question(turn.question):
            previous = parse_question(turn.question, venues)
        else:
            previous = None
    if previous is None or not is_follow_up(question):
        return None
    return narrowed(previous, question, venues)
