"""Which answering mode a question asks for, and what it names: the one place modes are detected.

`detect_mode` reads the mode from the question ("summarize the work on X", "compare A and B", "A vs B");
`summarize_topic` and `compare_targets` read what a summary or a comparison is about. The modes
themselves are carried out by `assistant.ask`, `assistant.summarize` and `assistant.compare`.
"""

from __future__ import annotations

import re

from assistant.corpus_route import looks_like_corpus_question

__all__ = ["MODES", "detect_mode", "summarize_topic", "compare_targets"]

MODES = ("auto", "ask", "summarize", "compare", "corpus")
_POLITE = (
    r"^\s*(?:please\s+|(?:can|could|would)\s+you\s+(?:please\s+)?|i'?d\s+like\s+(?:you\s+to\s+)?|let'?s\s+)?"
)
_COMPARE = re.compile(
    _POLITE + r"(?:compare|contrast|weigh)\b|^\s*put\s+.+\s+side\s+by\s+side\b|\bside[-\s]by[-\s]side\b|"
    r"\bcomparison\s+(?:of|between)\b|\b(?:vs\.?|versus)\s|\b(?:differences?|similarities)\s+between\b|"
    r"\bhave\s+in\s+common\b|\bwhat\s+(?:distinguishes|sets)\s+\S.*\b(?:from|apart)\b|"
    r"\bwhich\s+(?:one\s+)?(?:is|performs|works|scales|does)\s+better\b.*\bor\b|"
    r"\bwhich\s+of\s+(?!the\b|these\b|those\b|them\b)\S+\s+(?:and|or)\s+|"
    r"^\s*is\s+\S+\s+or\s+\S+\s+(?:more|less|better|worse|faster|slower|cheaper)\b|"
    r"^[^?:]{1,60}\bor\b[^?:]{1,60}[:,]\s*which\b|^[^?:]{1,60}\s+against\s+[^?:]{1,60}:|"
    r"\bhow\s+(?:does|do|is|are)\s+.+\s+(?:differ|different|compare|stacks?\s+up)\b|"
    r"\b(?:in\s+)?what\s+ways?\s+(?:does|do|is|are)\s+.+\s+(?:differ|different)\b|"
    r"\btell\s+me\s+how\s+.+\s+(?:differ|compare)\b",
    re.IGNORECASE,
)
# "How does the method differ from standard RoPE?" asks about one paper against its baseline, not for a
# comparison of two papers: its subject is the paper under discussion, or what it is set against is generic.
_ONE_PAPER_SUBJECT = re.compile(
    r"^\s*(?:how|in\s+what\s+ways?)\s+(?:does|do|is|are)\s+(?:it|they|this|that|the\s+(?:proposed\s+|new\s+)?"
    r"(?:method|approach|model|paper|framework|technique|algorithm|kernel|system|work|authors?)|"
    r"their\s+\w+|its\s+\w+)\b",
    re.IGNORECASE,
)
_GENERIC_OTHER = re.compile(
    r"\b(?:differ(?:s|ent)?|compares?|stacks?\s+up)\s+(?:from|to|with|against)\s+(?:the\s+|a\s+|an\s+)?"
    r"(?:standard|conventional|vanilla|traditional|existing|prior|previous|classical|classic|common|typical|"
    r"usual|regular|plain|ordinary|baselines?|other|earlier|current|state[-\s]of[-\s]the[-\s]art|sota|"
    r"older|naive|original)\b",
    re.IGNORECASE,
)
# "Which paper defines long-term vs short-term memory?" looks for one paper; its "vs" is part of the topic.
_FINDS_ONE = re.compile(
    r"^\s*(?:which|what)\s+(?:paper|work|study|article|method|approach|model|benchmark|dataset)\b"
    r"(?!.*\b(?:better|worse)\b)",
    re.IGNORECASE,
)
_SUMMARIZE = re.compile(
    _POLITE
    + r"(?:briefly\s+)?(?:summari[sz]e|sum\s+up|survey|overview|review\s+the\s+(?:literature|work|research)|"
    r"map\s+out)\b|"
    r"^\s*(?:a\s+)?(?:literature\s+review|summary|overview|survey)\s+(?:of|on|about)\b|^\s*overview\s*:|"
    r"\b(?:give|provide|want|need|write)\s+(?:me\s+|us\s+)?(?:an?|the)\s+(?:[\w-]+\s+)?(?:overview|summary|rundown|"
    r"survey|big\s+picture|literature\s+review)\b|"
    r"\bsummari[sz]e\s+(?:it|this|that|them|these|those)\b|"
    r"\bwhat(?:\s+has|\s+have|'s|’s)\s+been\s+(?:done|published|proposed|written)\s+(?:on|in|about|for|regarding)\b|"
    r"\bwhat\s+(?:work|research|papers?)\s+(?:exists?|is\s+there|are\s+there)\b|"
    r"\bwhat\s+approaches\s+have\s+been\s+proposed\b|"
    r"\bwhat\s+(?:is|are)\s+the\s+(?:\w+\s+)?(?:themes|trends|directions|lines\s+of\s+(?:work|research))\b|"
    r"\bwhat\s+are\s+the\s+(?:main|key|common|major|dominant|popular|different|recent|current)\s+"
    r"(?:approaches|methods|techniques|ideas)\s+(?:to|for|in|across|on)\b|"
    r"\bwhat\s+do\s+(?:the\s+|these\s+)?(?:papers|conferences|researchers|authors)\s+(?:say|report|find)\s+about\b|"
    r"\bresearch\s+landscape\b|\bstate\s+of\s+(?:the\s+)?(?:research|field)\b|\bacross\s+(?:the\s+)?papers\b",
    re.IGNORECASE,
)
_SUMMARY_LEAD = re.compile(
    _POLITE + r"(?:briefly\s+)?(?:summari[sz]e|sum\s+up|survey|overview|review|map\s+out|tell\s+me\s+about|"
    r"give\s+(?:me\s+|us\s+)?|provide\s+(?:me\s+)?|i\s+(?:want|need)|"
    r"what(?:\s+has|\s+have|'s|’s)\s+been\s+(?:done|published|proposed|written)|what\s+(?:work|research|papers?)\s+"
    r"(?:exists?|is\s+there|are\s+there)|what\s+approaches\s+have\s+been\s+proposed|"
    r"what\s+(?:is|are)\s+the|what\s+do\s+(?:the\s+|these\s+)?(?:papers|conferences|researchers|authors)\s+"
    r"(?:say|report|find))\s*:?\s*",
    re.IGNORECASE,
)
_SUMMARY_FILLER = re.compile(
    r"^(?:(?:an?|the|me|us|what|recent|high-level|brief|short|quick|main|key|common|major|dominant|popular|"
    r"different|current|big|picture|overview|summary|rundown|survey|literature|review|landscape|state|field|"
    r"work|research|papers?|corpus|advances|progress|trends|themes|directions|approaches|methods|techniques|"
    r"ideas|lines|exists?|is|are|there|says?|of|on|about|in|into|to|for|across|regarding)(?:[\s,:]+|$))+",
    re.IGNORECASE,
)
_SUMMARY_TAIL = re.compile(
    r"\s*(?:[.?!]\s*)?(?:please\s+)?summari[sz]e\s+(?:it|this|that|them|these|those)\W*$|"
    r"\s+(?:at|in|from|of)\s+(?:these|the|both|this\s+year'?s)\s+(?:conferences?|corpus|papers|lists?|venues?)\W*$|"
    r"\s+(?:research|work|papers)\W*$",
    re.IGNORECASE,
)
_TWO = re.compile(r"\bthe\s+(two|three|2|3)\s+(?P<what>.+)$", re.IGNORECASE)
_SPLIT = re.compile(
    r"\s*(?:,\s*(?:and\s+)?|\band\b|\bor\b|\bwith\b|\bversus\b|\bvs\.?|\bagainst\b|\bstacks?\s+up\s+against\b|"
    r"\bcompares?\s+(?:to|with|against)\b|\b(?:different|differs?)\s+from\b|\bapart\s+from\b|\bto\b|\bfrom\b)\s*",
    re.IGNORECASE,
)
_COMPARE_LEAD = (
    _POLITE + r"(?:compare(?:\s+and\s+contrast)?|contrast|weigh|put)\s*:?\s+",
    r"^.*?\b(?:comparison|differences?|similarities(?:\s+and\s+differences)?)\s+(?:of|between)\s+",
    r"^.*?\bpros\s+and\s+cons\s+of\s+",
    r"^\s*(?:tell\s+me\s+)?(?:how|in\s+what\s+ways?)\s+(?:(?:does|do|is|are)\s+)?",
    r"^\s*what\s+(?:distinguishes|sets)\s+",
    r"^\s*what\s+do\s+",
    r"^\s*which\s+(?:one\s+)?(?:is|performs|works|scales|does)\s+better\s*[,:]?\s*",
    r"^\s*which\s+of\s+",
    r"^\s*is\s+",
)
_COMPARE_TAIL = re.compile(
    r"\s+(?:differ|are\s+different|different|compare|stack\s+up|side\s+by\s+side)\s*$|\s+have\s+in\s+common\b.*$|"
    r"\s*:.*$|\s+(?:in|at)\s+(?:these|the)\s+(?:papers|corpus|conferences?)\b.*$",
    re.IGNORECASE,
)
_NAME = re.compile(r"^[\w.-]*[A-Z0-9][\w.-]*$")


def detect_mode(question: str, explicit: str = "auto") -> str:
    """'ask', 'summarize', 'compare' or 'corpus'; an explicit mode other than 'auto' wins."""
    if explicit != "auto":
        return explicit
    if looks_like_corpus_question(question):  # counts, lists, breakdowns, shares (assistant.corpus_route)
        return "corpus"
    if _COMPARE.search(question) and not _about_one_paper(question):
        return "compare"
    if _SUMMARIZE.search(question):
        return "summarize"
    return "ask"


def _about_one_paper(question: str) -> bool:
    """A question that sets one paper against its baseline ("How does the method differ from standard
    RoPE?") is answered about that paper, not as a comparison of two."""
    return bool(
        _ONE_PAPER_SUBJECT.search(question) or _GENERIC_OTHER.search(question) or _FINDS_ONE.search(question)
    )


def summarize_topic(question: str) -> str:
    """The topic of a summary request: "Summarize the work on X?", "What are the trends in X research?",
    "What is the research on X at these conferences? Summarize it." -> "X"."""
    text = question.strip()
    text = _SUMMARY_TAIL.sub("", text)
    text = _SUMMARY_LEAD.sub("", text, count=1)
    text = _SUMMARY_FILLER.sub("", text)
    text = _SUMMARY_TAIL.sub("", text).strip(" ?.!:,")
    return text or question.strip(" ?.!")


def compare_targets(question: str) -> tuple[list[str], int]:
    """(the named items to compare, or [description]; how many papers a description asks for, else 0)."""
    text = question.strip().rstrip("?.! ")
    head, colon, _ = text.partition(":")
    if colon and len(_SPLIT.split(head)) >= 2 and not re.match(_COMPARE_LEAD[0] + "$", head + " ", re.I):
        text = head  # "A or B: which one ...", "A versus B: which is better"
    for lead in _COMPARE_LEAD:
        text = re.sub(lead, "", text, count=1, flags=re.IGNORECASE)
    text = _COMPARE_TAIL.sub("", text)
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
    return [_leading_name(p) for p in parts if p], 0


def _leading_name(item: str) -> str:
    """A name followed by words about it ("PPO for reasoning", "BSD uses fewer steps") -> the name."""
    words = item.split()
    if len(words) > 1 and _NAME.match(words[0]) and any(w.islower() for w in words[1:]):
        kept = [w for w in words[: next(i for i, w in enumerate(words) if w.islower())]]
        return " ".join(kept)
    return item
