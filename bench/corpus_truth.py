"""The true answers of the corpus-mode benchmark (issue 22), computed from the raw conference lists with plain
json and regular expressions: no project code, so the benchmark checks the product against an independent
count.

    python bench/corpus_truth.py            # writes bench/corpus_questions.jsonl
    python bench/corpus_truth.py --check    # fails if the file is not what the raw files give

Each question below comes with what it means, spelled out: venues, decision, the phrases any of which a paper
must name (whole words, any case, a plural allowed) in its title, abstract or keywords, a primary area, a
keyword, an author, and what is asked (count, list, groups, share). The papers are merged as the store merges
them: ICML's rows with one abstract are one paper (an oral when any row has an oral session); an abstract in
both lists is one ICLR paper with ICLR's decision. ICLR's list has no authors and ICML's no primary areas or
keywords: a question on a field no list in scope has is answered "unknown" (count null).
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LISTS = ROOT / "corpus" / "conferences"
OUT = Path(__file__).resolve().parent / "corpus_questions.jsonl"
RL = ("reinforcement learning", "RL")
LLM = ("large language models", "LLM")

# question, then what it means: v venues, s decision, t phrase groups (all groups, any phrase of each),
# f fields, a area, k keyword, au author, show, g group, of (share denominator kinds), top
QUESTIONS: list[dict[str, Any]] = [
    {
        "q": "How many ICML 2026 orals are about diffusion?",
        "v": ["ICML 2026"],
        "s": "Oral",
        "t": [("diffusion",)],
    },
    {
        "q": "How many ICLR 2026 orals are about diffusion?",
        "v": ["ICLR 2026"],
        "s": "Oral",
        "t": [("diffusion",)],
    },
    {"q": "How many papers mention graph neural networks?", "t": [("graph neural networks", "GNN")]},
    {"q": "How many orals does ICLR 2026 have?", "v": ["ICLR 2026"], "s": "Oral"},
    {"q": "How many ICML 2026 papers are there?", "v": ["ICML 2026"]},
    {
        "q": "Count the ICLR papers about federated learning",
        "v": ["ICLR 2026"],
        "t": [("federated learning",)],
    },
    {"q": "Number of ICML 2026 papers on protein design", "v": ["ICML 2026"], "t": [("protein design",)]},
    {"q": "How many papers are about mixture of experts?", "t": [("mixture of experts", "MoE")]},
    {
        "q": "How many ICML posters are about federated learning?",
        "v": ["ICML 2026"],
        "s": "Poster",
        "t": [("federated learning",)],
    },
    {
        "q": 'How many papers mention "flow matching" in their titles?',
        "t": [("flow matching",)],
        "f": ["title"],
    },
    {
        "q": "How many ICLR 2026 papers are in the primary area of optimization?",
        "v": ["ICLR 2026"],
        "a": "optimization",
    },
    {
        "q": "How many ICLR 2026 papers are in the primary area of reinforcement learning?",
        "v": ["ICLR 2026"],
        "a": "reinforcement learning",
    },
    {"q": "How many ICLR 2026 papers have the keyword 'LoRA'?", "v": ["ICLR 2026"], "k": "LoRA"},
    {"q": "How many ICML 2026 papers are by Sergey Levine?", "v": ["ICML 2026"], "au": "Sergey Levine"},
    {
        "q": "How many ICML 2026 papers are about sparse autoencoders?",
        "v": ["ICML 2026"],
        "t": [("sparse autoencoders",)],
    },
    {
        "q": "List the ICML 2026 papers by Yoshua Bengio",
        "v": ["ICML 2026"],
        "au": "Yoshua Bengio",
        "show": "list",
    },
    {
        "q": "List the ICML 2026 papers by Chelsea Finn",
        "v": ["ICML 2026"],
        "au": "Chelsea Finn",
        "show": "list",
    },
    {
        "q": "List all ICLR 2026 orals on reinforcement learning",
        "v": ["ICLR 2026"],
        "s": "Oral",
        "t": [RL],
        "show": "list",
    },
    {
        "q": "List the ICML 2026 orals about diffusion",
        "v": ["ICML 2026"],
        "s": "Oral",
        "t": [("diffusion",)],
        "show": "list",
    },
    {
        "q": "Which ICLR 2026 orals mention world models?",
        "v": ["ICLR 2026"],
        "s": "Oral",
        "t": [("world models",)],
        "show": "list",
    },
    {
        "q": "Show me all ICML 2026 orals about large language models",
        "v": ["ICML 2026"],
        "s": "Oral",
        "t": [LLM],
        "show": "list",
    },
    {
        "q": "Which primary areas have the most ICLR 2026 orals?",
        "v": ["ICLR 2026"],
        "s": "Oral",
        "show": "groups",
        "g": "area",
    },
    {
        "q": "Breakdown of the ICLR 2026 papers by primary area",
        "v": ["ICLR 2026"],
        "show": "groups",
        "g": "area",
    },
    {
        "q": "How many papers about diffusion per venue?",
        "t": [("diffusion",)],
        "show": "groups",
        "g": "venue",
    },
    {
        "q": "ICML 2026 papers about reinforcement learning by status",
        "v": ["ICML 2026"],
        "t": [RL],
        "show": "groups",
        "g": "status",
    },
    {
        "q": "What are the 10 most common keywords of the ICLR 2026 papers on LLM agents?",
        "v": ["ICLR 2026"],
        "t": [("LLM agents", "large language model agents")],
        "show": "groups",
        "g": "keyword",
    },
    {"q": "Top 10 keywords at ICLR 2026", "v": ["ICLR 2026"], "show": "groups", "g": "keyword"},
    {"q": "Who has the most papers at ICML 2026?", "v": ["ICML 2026"], "show": "groups", "g": "author"},
    {
        "q": "What share of ICML orals are about diffusion?",
        "v": ["ICML 2026"],
        "s": "Oral",
        "t": [("diffusion",)],
        "show": "share",
        "of": ["venue", "status"],
    },
    {
        "q": "What fraction of ICLR 2026 papers mention transformers?",
        "v": ["ICLR 2026"],
        "t": [("transformers",)],
        "show": "share",
        "of": ["venue"],
    },
    {"q": "What percentage of the papers are orals?", "s": "Oral", "show": "share", "of": []},
    {
        "q": "Is reinforcement learning a bigger share of ICML than of ICLR this year?",
        "v": ["ICML 2026", "ICLR 2026"],
        "t": [RL],
        "show": "share",
        "g": "venue",
        "of": ["venue"],
    },
    {
        "q": "Is diffusion a bigger share of ICLR than of ICML?",
        "v": ["ICLR 2026", "ICML 2026"],
        "t": [("diffusion",)],
        "show": "share",
        "g": "venue",
        "of": ["venue"],
    },
    {"q": "How many ICLR 2026 spotlights are there?", "v": ["ICLR 2026"], "s": "Spotlight"},
    {
        "q": "How many ICLR 2026 papers are about knowledge distillation?",
        "v": ["ICLR 2026"],
        "t": [("knowledge distillation",)],
    },
    {
        "q": "Count the ICML 2026 orals mentioning benchmarks",
        "v": ["ICML 2026"],
        "s": "Oral",
        "t": [("benchmarks",)],
    },
    {
        "q": "List the ICLR 2026 orals in the primary area of causal reasoning",
        "v": ["ICLR 2026"],
        "s": "Oral",
        "a": "causal reasoning",
        "show": "list",
    },
    {
        "q": "Which venue has more papers on quantization?",
        "t": [("quantization",)],
        "show": "groups",
        "g": "venue",
    },
    {
        "q": "What proportion of ICML 2026 papers are about robustness?",
        "v": ["ICML 2026"],
        "t": [("robustness",)],
        "show": "share",
        "of": ["venue"],
    },
    {"q": "How many ICLR 2026 papers are by Yoshua Bengio?", "v": ["ICLR 2026"], "au": "Yoshua Bengio"},
    {
        "q": "How many ICML 2026 papers are in the primary area of reinforcement learning?",
        "v": ["ICML 2026"],
        "a": "reinforcement learning",
    },
]


def read(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def key(text: str) -> str:
    return " ".join(text.split())


def title_key(title: str) -> str:
    """Titles compared as the store keeps them: NFKC, any dash as "-", single spaces."""
    return " ".join(re.sub(r"[\u2010-\u2015\u2212]", "-", unicodedata.normalize("NFKC", title)).split())


def papers() -> list[dict[str, Any]]:
    iclr = read(LISTS / "iclr2026_accepted.jsonl.gz")
    icml = read(LISTS / "icml2026_main_conference.jsonl.gz")
    out = [
        {
            "venue": "ICLR 2026",
            "status": "Oral" if r["status"].endswith("Oral") else "Poster",
            "title": r["title"],
            "abstract": r["abstract"],
            "keywords": list(r.get("keywords") or []),
            "area": r.get("primary_area") or "",
            "authors": [],
        }
        for r in iclr
    ]
    seen = {key(r["abstract"]) for r in iclr}
    groups: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for row in icml:
        groups[key(row["abstract"])].append(row)
    for abstract, group in groups.items():
        if abstract in seen:
            continue
        oral = any(e["type"] == "oral-session" for row in group for e in row["events"])
        first = group[0]
        out.append(
            {
                "venue": "ICML 2026",
                "status": "Oral" if oral else "Poster",
                "title": first["title"],
                "abstract": first["abstract"],
                "keywords": [],
                "area": "",
                "authors": list(first["authors"]),
            }
        )
    return out


def names_in(text: str, phrase: str) -> bool:
    """Whether `text` names `phrase` as whole words, any case, "-" or space between words, singular or plural."""
    words = phrase.split()
    last = words[-1]
    if len(last) > 3 and last.endswith("s") and not last.endswith("ss"):  # "networks" names "network" too
        words[-1] = last[:-1]
    pattern = r"(?<!\w)" + r"[\s-]+".join(map(re.escape, words)) + r"(?:s|es)?(?!\w)"
    return re.search(pattern, text, re.IGNORECASE) is not None


def names(paper: dict[str, Any], phrase: str, fields: list[str]) -> bool:
    texts = {"title": [paper["title"]], "abstract": [paper["abstract"]], "keywords": paper["keywords"]}
    return any(names_in(t, phrase) for f in fields for t in texts[f])


def person(name: str) -> str:
    plain = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return " ".join(plain.replace(".", " ").lower().split())


def keyword_name(keyword: str) -> str:
    text = " ".join(keyword.lower().replace("-", " ").split())
    return text[:-1] if len(text) > 3 and text.endswith("s") and not text.endswith("ss") else text


FIELD_OF = {"a": "area", "k": "keywords", "au": "authors"}


def lacks(venue: str, field: str, everything: list[dict[str, Any]]) -> bool:
    """A venue's list lacks a field when fewer than half its papers have it."""
    mine = [p for p in everything if p["venue"] == venue]
    return sum(bool(p[field]) for p in mine) < len(mine) / 2


def selects(spec: dict[str, Any], paper: dict[str, Any], parts: set[str]) -> bool:
    fields = spec.get("f", ["title", "abstract", "keywords"])
    checks = {
        "venue": lambda: not spec.get("v") or paper["venue"] in spec["v"],
        "status": lambda: not spec.get("s") or paper["status"] == spec["s"],
        "topic": lambda: all(any(names(paper, p, fields) for p in group) for group in spec.get("t", [])),
        "area": lambda: not spec.get("a") or paper["area"] == spec["a"],
        "keyword": lambda: not spec.get("k") or any(names_in(k, spec["k"]) for k in paper["keywords"]),
        "author": lambda: not spec.get("au") or person(spec["au"]) in {person(a) for a in paper["authors"]},
    }
    return all(checks[name]() for name in parts)


def truth(spec: dict[str, Any], everything: list[dict[str, Any]]) -> dict[str, Any]:
    show = spec.get("show", "count")
    scope = sorted({p["venue"] for p in everything if not spec.get("v") or p["venue"] in spec["v"]})
    group = spec.get("g", "")
    needed = [FIELD_OF[k] for k in ("a", "k", "au") if spec.get(k)]
    needed += {"area": ["area"], "keyword": ["keywords"], "author": ["authors"]}.get(group, [])
    for field in needed:
        scope = [v for v in scope if not lacks(v, field, everything)]
    row: dict[str, Any] = {"question": spec["q"], "show": show, "group": group}
    if not scope:
        return {**row, "count": None}
    in_scope = [p for p in everything if p["venue"] in scope]
    all_parts = {"venue", "status", "topic", "area", "keyword", "author"}
    chosen = [p for p in in_scope if selects(spec, p, all_parts)]
    row["count"] = len(chosen)
    if show == "list":
        row["titles"] = sorted(title_key(p["title"]) for p in chosen)
    if show == "share":
        base = [p for p in in_scope if selects(spec, p, set(spec.get("of", [])))]
        row["total"] = len(base)
    if group:
        row["groups"] = _groups(group, chosen, spec, in_scope)
    return row


def _groups(
    group: str, chosen: list[dict[str, Any]], spec: dict[str, Any], in_scope: list[dict[str, Any]]
) -> Any:
    if group in ("venue", "status", "area"):
        field = {"venue": "venue", "status": "status", "area": "area"}[group]
        counts = collections.Counter(p[field] for p in chosen)
        if spec.get("show") == "share":
            base = [p for p in in_scope if selects(spec, p, set(spec.get("of", [])))]
            totals = collections.Counter(p[field] for p in base)
            return {name: [counts.get(name, 0), totals[name]] for name in totals}
        return dict(counts)
    if group == "keyword":
        counts = collections.Counter(k for p in chosen for k in {keyword_name(k) for k in p["keywords"]})
    else:
        counts = collections.Counter(a for p in chosen for a in {person(a) for a in p["authors"]})
    top = counts.most_common(spec.get("top", 10))
    return [[name, n] for name, n in top]


def build() -> list[dict[str, Any]]:
    everything = papers()
    return [{"id": f"c{i:02d}", **truth(spec, everything)} for i, spec in enumerate(QUESTIONS, 1)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="fail if the file differs from the raw files")
    args = parser.parse_args(argv)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in build())
    if args.check:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print("corpus_questions.jsonl matches the raw files" if same else "corpus_questions.jsonl is stale")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({text.count(chr(10))} questions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
