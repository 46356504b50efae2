"""Plain-English corpus questions read into a `Criterion`, by rules: "How many ICML 2026 orals are about
diffusion?" -> venue ICML 2026, status Oral, topic "diffusion", show a count.

Each filter is found by its own pattern and blanked out of the question (same length, so positions stay
comparable); what is left after "about", "on", "mentioning" … (or before "papers") is the topic. The text
form of a criterion (`venue: …; show: …`) is read exactly. `corpus_route.criterion_for` replays a conversation:
a follow-up ("how many of those are orals?", "show them") narrows the criterion of the turn before it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from assistant.corpus_query import FIELDS, Criterion, is_criterion_text, narrow, parse_criterion_text

__all__ = ["parse_question", "parse_parts", "narrowed", "is_follow_up", "OTHER_VENUES"]

OTHER_VENUES = (
    "ICLR ICML NeurIPS NIPS CVPR ICCV ECCV ACL EMNLP NAACL EACL COLING AAAI IJCAI KDD COLT AISTATS UAI CoRL COLM TMLR "
    "JMLR SIGIR WWW ICRA IROS MICCAI WACV BMVC ICASSP Interspeech LoG ALT WSDM RecSys MLSys"
).split()
_BLANK = "¦"
_I = re.IGNORECASE

_STATUS = re.compile(
    r"\b(orals?|spotlights?|posters?)\b(?:\s+(?:papers?|presentations?|talks?|sessions?))?", _I
)
_GROUP_WORDS = {
    "area": r"(?:primary[\s-]+|research[\s-]+|subject[\s-]+)?areas?",
    "keyword": r"keywords?|tags?|topics?",
    "author": r"authors?|researchers?",
    "venue": r"venues?|conferences?",
    "status": r"status(?:es)?|decisions?|presentation[\s-]+types?",
}
_GROUP_FORMS = (
    r"\b(?:(?:grouped|broken\s+down|split|sorted|ranked|bucketed)\s+)?(?:by|per|across|for\s+each|in\s+each|"
    r"of\s+each|over)\s+(?:the\s+|their\s+|its\s+)?(?:{w})\b(?!\s+(?-i:[A-Z]))",
    r"\b(?:which|what)\s+(?:(?:are|is|were)\s+the\s+)?(?:(?:\d+|top|ten|five|most|least|common|frequent|"
    r"popular|prolific|biggest|largest|main)\s+){{0,3}}(?:{w})\b",
    r"\b(?:most|least)\s+(?:common|frequent|popular|used|prolific|represented|productive|active)\s+(?:{w})\b",
    r"\btop[\s-]*(?:\d{{1,3}}\s+)?(?:{w})\b",
    r"\b(?:{w})\s+(?:with|having|have|has|had)\s+the\s+(?:most|fewest|largest|highest|biggest)\b",
)
_GROUPS = [
    (kind, re.compile(form.format(w=words), _I))
    for form in _GROUP_FORMS
    for kind, words in _GROUP_WORDS.items()
]
_WHO_MOST = re.compile(r"\bwho\s+(?:has|have|had|wrote|authored|published|got)\b", _I)
_TOP = re.compile(r"\btop[\s-]*(\d{1,3})\b|\b(\d{1,3})\s+most\b", _I)
_SHARE = re.compile(
    r"\b(?:(?:a|the)\s+)?(?:(?:bigger|larger|greater|smaller|higher|lower)\s+)?"
    r"(share|fraction|proportion|percentage|percent|ratio)(?:\s+of\b)?",
    _I,
)
_SHARE_END = re.compile(
    r"\b(?:are|is|were|was|that|which|about|on|than|have|has|do|does|go|goes)\b|[?,;]", _I
)
_NAME = (
    r"[A-Z][\w'’.-]*(?:\s+(?:(?:van|von|de|der|den|da|di|du|la|le|del|dos|bin|al)\s+)*[A-Z][\w'’.-]*){0,4}"
)
_NAMES = rf"{_NAME}(?:\s*(?:,|\band\b|&)\s*{_NAME})*"
_AUTHORS = [
    re.compile(rf"\b(?:co-?)?(?:authored|written|published|presented)\s+by\s+(?P<n>{_NAMES})"),
    re.compile(rf"\bby\s+(?:the\s+)?(?:authors?\s+)?(?P<n>{_NAMES})"),
    re.compile(rf"\b(?:with|having|including)\s+(?P<n>{_NAMES})\s+as\s+(?:an?\s+)?(?:co-?)?authors?\b"),
    re.compile(rf"\b[Aa]uthors?\s*[:=]?\s+(?P<n>{_NAMES})"),
    re.compile(
        rf"(?P<n>{_NAME})['’]s?\s+(?:(?:\S+\s+){{0,3}}?)(?:papers|orals|posters|works|publications)\b"
    ),
    re.compile(rf"\b(?:papers|orals|posters|works)\s+(?:of|from)\s+(?P<n>{_NAMES})"),
]
_AREA_END = r"(?=\s*(?:[?;.!]|{b}|$|\b(?:are|is|were|have|has|had|and\s+how|that|which|at|in|from)\b))"
_AREAS = [
    re.compile(
        r"\b(?:in|from|under|of|within|with)\s+(?:the\s+)?(?:primary\s+)?(?:research\s+)?areas?\s*"
        r"(?::|of|called|named)?\s+[\"“]?(?P<a>[^\"”?;¦]+?)[\"”]?" + _AREA_END.format(b=_BLANK),
        _I,
    ),
    re.compile(
        r"\b(?:in|from|under|within)\s+(?:the\s+)?[\"“]?(?P<a>[\w ,&()'-]+?)[\"”]?\s+(?:primary\s+)?area\b",
        _I,
    ),
    re.compile(r"\bprimary[\s-]+area\s*(?:is|=|:)?\s*[\"“](?P<a>[^\"”]+)[\"”]", _I),
]
_KEYWORDS = [
    re.compile(
        r"\b(?:with|having|have|has|tagged(?:\s+with)?|under|carrying)\s+(?:the\s+)?keywords?\s*[:=]?\s+[\"“']?"
        r"(?P<k>[^\"”'?;,¦]+?)[\"”']?(?=\s*(?:[?;.,!]|¦|$|\b(?:are|is|were|and|at|in|from)\b))",
        _I,
    ),
    re.compile(r"\btagged\s+(?:as\s+)?[\"“](?P<k>[^\"”]+)[\"”]", _I),
    re.compile(r"\bkeywords?\s+[\"“](?P<k>[^\"”]+)[\"”]", _I),
]
_FIELDS = re.compile(
    r"\b(?:in|within)\s+(?:the(?:ir)?\s+|its\s+)?(titles?|abstracts?|keywords)"
    r"(?:\s*(?:,|or|and|/)\s*(?:the(?:ir)?\s+|its\s+)?(titles?|abstracts?|keywords))?\b",
    _I,
)
_QUOTED = re.compile(r"[\"“”]([^\"“”]{2,80})[\"“”]|(?<![\w'])'([^']{2,80})'(?!\w)")
_THIS_YEAR = re.compile(r"\b(?:this|that|last|the same)\s+year\b", _I)
_LIST = re.compile(
    r"^\s*(?:please\s+|now\s+|and\s+|ok,?\s+|so\s+|(?:can|could|would)\s+you\s+)*(?:list|show|name|display|"
    r"enumerate|print|give\s+me|all|every)\b|"
    r"^\s*(?:the\s+)?(?:papers|orals|posters|spotlights)\s+(?:by|of|from|at|in|on|about|with)\b|"
    r"\bwhich\s+(?:\S+\s+){0,5}?(?:papers|orals|posters|spotlights|works|ones)\b|"
    r"\bwhat\s+(?:are\s+)?(?:the\s+)?(?:\S+\s+){0,4}?(?:papers|orals|posters|ones)\b|"
    r"\bwhich\s+of\s+(?:them|those|these)\b",
    _I,
)
_COUNT = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\b|\bhow\s+much\b", _I)
_STRONG = re.compile(
    r"(?<![\w-])(?:about|on|regarding|concerning|related\s+to|relating\s+to|dealing\s+with|focused\s+on|"
    r"focusing\s+on|devoted\s+to|centered\s+on|in\s+the\s+(?:field|domain|topic|area)\s+of|"
    r"(?:that|which|and)\s+(?:\w+ly\s+)?(?:mention|study|studies|use|uses|address|addresses|propose|"
    r"proposes|tackle|tackles|involve|involves|apply|applies|consider|considers|discuss|discusses|"
    r"investigate|investigates|explore|explores|target|targets|concern|concerns|focus\s+on|focuses\s+on|"
    r"deal\s+with|deals\s+with|name|names|contain|contains|evaluate|evaluates|introduce|introduces|"
    r"leverage|leverages)|mentioning|mention|mentions|studying|study|using|use|involving|addressing|"
    r"applying|tackling|exploring|investigating|targeting|proposing|containing|leveraging|"
    r"with\s+the\s+(?:word|phrase|term)|with|have|has)\s+(?P<t>[^¦?!;]+)",
    _I,
)
_BIGGER = re.compile(
    r"^\s*(?:is|are|was|were|do|does)\s+(?P<t>[^¦]+?)\s*(?:¦|\b(?:(?:a|an|the)\s+)?"
    r"(?:bigger|larger|greater|smaller|higher|lower|more|less)\b)",
    _I,
)
_BEFORE_NOUN = re.compile(
    r"(?P<t>[^¦?!;,]*?)\s+(?:papers?|works?|submissions?|articles?|publications?)(?![\w-])", _I
)
_WEAK = re.compile(r"(?<![\w-])(?:in|for)\s+(?P<t>[^¦?!;]+)", _I)
_CUT = re.compile(
    r"(?<![\w-])(?:are|is|were|was|be|have|has|had|do|does|did|at|from|that|which|who|whose|by|per|than|"
    r"among|accepted|published|presented|appear|appeared|and\s+how|and\s+which|in\s+total|overall|"
    r"respectively|there|vs\.?|versus|compared)(?![\w-])|[¦?!;:.]",
    _I,
)
_FILLER = set(
    "how many much what which who list show me give name display enumerate print find get the a an all any "
    "some of number count total more fewer less most least are is there do does did have has accepted main "
    "conference conferences track papers paper works work share fraction percentage proportion percent "
    "these those them they and or in at from for by to with each every both venue venues ones one "
    "respectively overall please now only just also so ok then were was about on than also its their "
    "topic topics subject field research articles submissions publications year".split()
)
_TRAILING = re.compile(
    r"(?:\s+(?:papers?|works?|research|topics?|articles?|submissions?|ones|publications?|in|at|of|from|for|on|"
    r"to|with|and|or|the|a|an|area|field|overall|total|there|respectively))+$",
    _I,
)
_LEADING = re.compile(
    r"^(?:(?:the|a|an|any|some|all|those|these|them|of|topic|subject|(?:the\s+)?(?:topic|subject|field)\s+of)\s+)+",
    _I,
)
_ALIASES = [
    ("reinforcement learning", "RL"),
    ("large language model", "LLM"),
    ("graph neural network", "GNN"),
    ("vision-language model", "VLM"),
    ("vision transformer", "ViT"),
    ("retrieval-augmented generation", "RAG"),
    ("mixture of experts", "MoE"),
    ("chain of thought", "CoT"),
    ("low-rank adaptation", "LoRA"),
    ("generative adversarial network", "GAN"),
    ("variational autoencoder", "VAE"),
    ("neural radiance field", "NeRF"),
    ("in-context learning", "ICL"),
]
_FOLLOW = re.compile(
    r"(?<![\w-])(?:those|these|them|they|the\s+same|of\s+which|among\s+them|the\s+ones|that\s+list|"
    r"this\s+list|the\s+list)(?![\w-])|^\s*(?:and|also|what\s+about|how\s+about|now|only|just|same\s+for|"
    r"then|but)\b",
    _I,
)
_SWITCH = re.compile(
    r"^\s*(?:and\s+)?(?:what|how)\s+about\b|\binstead\b|^\s*same\s+for\b|^\s*and\s+(?:at|in|for)\b", _I
)
_FOLLOW_ASKS = re.compile(
    r"^\s*(?:(?:and|also|now|then|ok|so|but)[\s,]+)*(?:(?:please\s+)?(?:show|list|give|display|print|name|"
    r"enumerate)\b|how\s+many\b|which\s+of\b|what\s+(?:about|of)\b|how\s+about\b|only\b|just\b|"
    r"(?:of|among)\s+(?:them|those|these)\b|break\s+(?:them|those|these|it)\s+down|(?:at|in|for)\s+\w+\s*\??$|"
    r"(?:by|per)\s+(?:area|venue|status|keyword|author|decision|conference)s?\b|what\s+share\b|"
    r"what\s+(?:fraction|percentage|proportion)\b|same\s+for\b)",
    _I,
)


@dataclasses.dataclass
class _Reading:
    """A question being read: its text with the parts already taken blanked out, and what they said."""

    text: str
    said: set[str] = dataclasses.field(default_factory=set)
    spans: dict[str, list[tuple[int, int]]] = dataclasses.field(default_factory=dict)

    def take(self, kind: str, start: int, end: int) -> None:
        self.text = self.text[:start] + _BLANK * (end - start) + self.text[end:]
        self.spans.setdefault(kind, []).append((start, end))
        self.said.add(kind)


def parse_question(question: str, venues: Sequence[str] = ()) -> Criterion:
    """The criterion `question` states; `venues` are the store's venue names ("ICLR 2026")."""
    return parse_parts(question, venues)[0]


def parse_parts(question: str, venues: Sequence[str] = ()) -> tuple[Criterion, frozenset[str]]:
    """(the criterion `question` states, the names of the parts it stated: venue, status, author, area,
    keyword, topic, fields, group, show, top)."""
    if is_criterion_text(question):
        criterion = parse_criterion_text(question)
        return criterion, frozenset(
            {"venue", "status", "area", "keyword", "author", "topic", "group", "show"}
        )
    reading = _Reading(" ".join(question.replace("’", "'").split()))
    found_venues = _venues(reading, venues)
    statuses = _statuses(reading)
    group = _group(reading)
    if len({v.split()[0] for v in found_venues}) > 1 and not group:
        group = "venue"
    if len(statuses) > 1 and not group:
        group = "status"
    share = _SHARE.search(reading.text)
    share_span = _share_base(reading.text, share) if share else None
    if share:
        reading.take("show", share.start(), share.end())
    authors = _authors(reading)
    areas = _found(reading, "area", _AREAS, "a")
    keywords = _found(reading, "keyword", _KEYWORDS, "k")
    fields = _fields(reading)
    top = _TOP.search(question)
    topics = _topics(reading)
    show = _show(question, share is not None, group)
    if show != "count" or _COUNT.search(question):
        reading.said.add("show")
    if top:
        reading.said.add("top")
    criterion = Criterion(
        venues=tuple(found_venues),
        status=statuses[0] if len(statuses) == 1 else "",
        areas=tuple(areas),
        keywords=tuple(keywords),
        authors=tuple(authors),
        topics=tuple(topics),
        fields=fields,
        group=group,
        show=show,
        top=min(100, max(1, int(top.group(1) or top.group(2)))) if top else 10,
        share_of=_share_of(reading, share_span) if share else (),
    )
    return criterion, frozenset(reading.said)


# ---------------------------------------------------------------------------------------------- the parts


def _venues(reading: _Reading, known: Sequence[str]) -> list[str]:
    names = {v.rsplit(" ", 1)[0] if v.rsplit(" ", 1)[-1].isdigit() else v for v in known if v}
    spelled = {n.lower(): n for n in [*OTHER_VENUES, *sorted(names)]}
    alternatives = "|".join(re.escape(n) for n in sorted(spelled, key=len, reverse=True))
    pattern = re.compile(rf"\b({alternatives})(?:[\s'-]*((?:19|20)\d\d|'\d\d))?\b", _I)
    found: list[str] = []
    for match in list(pattern.finditer(reading.text)):
        name = spelled[match.group(1).lower()]
        year = (match.group(2) or "").lstrip("'")
        year = "20" + year if len(year) == 2 else year
        found.append(f"{name} {year}".strip())
        reading.take("venue", match.start(), match.end())
    for match in list(_THIS_YEAR.finditer(reading.text)):
        reading.take("year", match.start(), match.end())
    return list(dict.fromkeys(found))


def _statuses(reading: _Reading) -> list[str]:
    found = []
    for match in list(_STATUS.finditer(reading.text)):
        found.append(match.group(1).lower().rstrip("s").capitalize())
        reading.take("status", match.start(), match.end())
    return list(dict.fromkeys(found))


def _group(reading: _Reading) -> str:
    for kind, pattern in _GROUPS:
        match = pattern.search(reading.text)
        if match:
            reading.take("group", match.start(), match.end())
            return kind
    match = _WHO_MOST.search(reading.text)
    if match:
        reading.take("group", match.start(), match.end())
        return "author"
    return ""


def _share_base(text: str, share: re.Match[str]) -> tuple[int, int]:
    """The span naming the denominator: "share of <ICML orals> are about …"."""
    end = _SHARE_END.search(text, share.end())
    return share.end(), end.start() if end else len(text)


def _share_of(reading: _Reading, span: tuple[int, int] | None) -> tuple[str, ...]:
    if span is None:
        return ()
    kinds = [
        kind
        for kind in ("venue", "status", "area", "keyword", "author", "topic")
        if any(span[0] <= s < span[1] for s, _ in reading.spans.get(kind, []))
    ]
    stated = [k for k in ("venue", "status", "area", "keyword", "author", "topic") if k in reading.said]
    while kinds and set(kinds) >= set(stated):  # a share must measure something: drop the narrowest part
        kinds.remove(next(k for k in ("topic", "author", "keyword", "area", "status", "venue") if k in kinds))
    return tuple(kinds)


def _authors(reading: _Reading) -> list[str]:
    names: list[str] = []
    for pattern in _AUTHORS:
        for match in list(pattern.finditer(reading.text)):
            found = [n for n in _split_names(match.group("n")) if _is_name(n)]
            if found:
                names += found
                reading.take("author", match.start("n"), match.end("n"))
    return list(dict.fromkeys(names))


def _split_names(text: str) -> list[str]:
    return [n.strip(" .,'") for n in re.split(r"\s*(?:,|\band\b|&)\s*", text) if n.strip(" .,'")]


def _is_name(name: str) -> bool:
    words = name.split()
    return not all(w.isupper() or w.lower() in _FILLER for w in words) and name.lower() not in _FILLER


def _found(reading: _Reading, kind: str, patterns: list[re.Pattern[str]], group: str) -> list[str]:
    values: list[str] = []
    for pattern in patterns:
        for match in list(pattern.finditer(reading.text)):
            value = match.group(group).strip(" \"'“”")
            if value and value.lower() not in _FILLER:
                values += [v for v in re.split(r"\s+or\s+|\s*\|\s*", value) if v.strip()]
                reading.take(kind, match.start(), match.end())
    return list(dict.fromkeys(values))


def _fields(reading: _Reading) -> tuple[str, ...]:
    match = _FIELDS.search(reading.text)
    if not match:
        return FIELDS
    reading.take("fields", match.start(), match.end())
    named = {g.lower().rstrip("s") for g in match.groups() if g}
    return tuple(f for f in FIELDS if f.rstrip("s") in named)


def _show(question: str, share: bool, group: str) -> str:
    if share:
        return "share"
    if group:
        return "groups"
    if _COUNT.search(question):
        return "count"
    return "list" if _LIST.search(question) else "count"


# ---------------------------------------------------------------------------------------------- the topic


def _topics(reading: _Reading) -> list[tuple[str, ...]]:
    quoted = [(m.group(1) or m.group(2)).strip() for m in _QUOTED.finditer(reading.text)]
    if quoted:
        for match in list(_QUOTED.finditer(reading.text)):
            reading.take("topic", match.start(), match.end())
        return [_with_aliases([q]) for q in dict.fromkeys(quoted)]
    for pattern in (_BIGGER, _STRONG, _BEFORE_NOUN, _WEAK):
        for match in pattern.finditer(reading.text):
            text = match.group("t")
            # the words right before "papers": "are there more <diffusion> papers"
            if pattern is _BEFORE_NOUN:
                cuts = list(_CUT.finditer(text))
                text = text[cuts[-1].end() :] if cuts else text
            topic = _clean_topic(text)
            if topic:
                reading.take("topic", match.start("t"), match.start("t") + len(match.group("t")))
                return _split_topic(topic)
    return []


def _clean_topic(text: str) -> str:
    cut = _CUT.search(text)
    text = text[: cut.start()] if cut else text
    text = text.strip(" ,.\"'“”()")
    for _ in range(3):
        text = _LEADING.sub("", _TRAILING.sub("", text)).strip(" ,.\"'“”()")
    words = [w for w in re.findall(r"[\w+/-]+", text.lower())]
    if not words or all(w in _FILLER or w.isdigit() for w in words):
        return ""
    while text.split() and text.split()[0].lower() in _FILLER:  # "how many diffusion" -> "diffusion"
        text = text.split(" ", 1)[1] if " " in text else ""
    return text.strip()


def _split_topic(topic: str) -> list[tuple[str, ...]]:
    groups = [g for g in re.split(r"\s+(?:and|&)\s+|\s+as\s+well\s+as\s+", topic) if g.strip()]
    out = []
    for group in groups:
        phrases = [p.strip() for p in re.split(r"\s*(?:,|\bor\b|/)\s*", group) if p.strip()]
        phrases = [p for p in phrases if p.lower() not in _FILLER]
        if phrases:
            out.append(_with_aliases(phrases))
    return out


def _with_aliases(phrases: list[str]) -> tuple[str, ...]:
    """The phrases and their common spelled-out or short forms ("RL" <-> "reinforcement learning")."""
    out = list(phrases)
    for phrase in phrases:
        key = _singular(phrase.lower().replace("-", " "))
        for long, short in _ALIASES:
            long_key = _singular(long.replace("-", " "))
            if key == long_key:
                out.append(short)
            elif key == short.lower():
                out.append(long)
            elif re.search(rf"(?<!\w){re.escape(short.lower())}s?(?!\w)", phrase.lower()):
                out.append(re.sub(rf"(?<!\w){re.escape(short)}s?(?!\w)", long, phrase, count=1, flags=_I))
    seen: dict[str, str] = {}
    for phrase in out:
        seen.setdefault(_singular(phrase.lower().replace("-", " ")), phrase)
    return tuple(seen.values())


def _singular(text: str) -> str:
    return text[:-1] if text.endswith("s") and not text.endswith("ss") and len(text) > 3 else text


# ---------------------------------------------------------------------------------------------- follow-ups


def is_follow_up(question: str) -> bool:
    """Whether `question` reads as narrowing or showing an earlier corpus answer ("show them", "and how many
    of those are orals?", "what about ICLR?")."""
    return bool(_FOLLOW.search(question) and _FOLLOW_ASKS.search(question)) or bool(_SWITCH.search(question))


def narrowed(previous: Criterion, question: str, venues: Sequence[str]) -> Criterion:
    stated, said = parse_parts(question, venues)
    return narrow(previous, stated, said, switch=bool(_SWITCH.search(question)))
