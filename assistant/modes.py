"""Which answering mode a question asks for, and what it names: the one place modes are detected.

`detect_mode` reads the mode from the question ("summarize the work on X", "compare A and B", "A vs B");
`summarize_topic` and `compare_targets` read what a summary or a comparison is about. The modes
themselves are carried out by `assistant.ask`, `assistant.summarize` and `assistant.compare`.
"""

from __future__ import annotations

import re

__all__ = ["MODES", "detect_mode", "summarize_topic", "compare_targets"]

MODES = ("auto", "ask", "summarize", "compare")
_COMPARE = re.compile(
    r"^\s*(?:please\s+)?(?:compare|contrast)\b|\b(?:vs\.?|versus)\s|\bdifferences?\s+between\b|"
    r"\bhow\s+(?:does|do|is|are)\s+.+\s+differ\b",
    re.IGNORECASE,
)
_SUMMARIZE = re.compile(
    r"^\s*(?:please\s+)?(?:summari[sz]e|give\s+(?:me\s+)?an?\s+overview|overview\s+of|survey)\b|"
    r"\bwhat\s+has\s+been\s+done\s+(?:on|in|about)\b|\bsummary\s+of\b|\boverview\s+of\b",
    re.IGNORECASE,
)
_SUMMARY_WORDS = re.compile(
    r"^\s*(?:please\s+)?(?:summari[sz]e|give\s+(?:me\s+)?an?\s+overview\s+of|overview\s+of|"
    r"survey|what\s+has\s+been\s+done\s+(?:on|in|about)|(?:a\s+)?summary\s+of)\s*"
    r"(?:the\s+)?(?:(?:work|research|papers?|literature)\s+(?:on|about|in)\s+)?",
    re.IGNORECASE,
)
_TWO = re.compile(r"\bthe\s+(two|three|2|3)\s+(?P<what>.+)$", re.IGNORECASE)
_SPLIT = re.compile(
    r"\s*(?:,\s*(?:and\s+)?|\band\b|\bwith\b|\bversus\b|\bvs\.?|\bto\b|\bfrom\b)\s*", re.IGNORECASE
)


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
        count = {"two": 2, "three": 3}.get(
            two.group(1).lower(), int(two.group(1)) if two.group(1).isdigit() else 2
        )
        return [two.group("what").strip()], count
    parts = [
        re.sub(
            r"^(?:the|a|an)\s+|\s+(?:papers?|methods?|models?|approach(?:es)?)$",
            "",
            p.strip(" \"'“”"),
            flags=re.IGNORECASE,
        )
        for p in _SPLIT.split(text)
    ]
    return [p for p in parts if p], 0
