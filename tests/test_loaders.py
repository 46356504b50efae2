"""The loaders: every supported format, the real conference lists, and bad input of every kind."""

from __future__ import annotations

import collections
import csv
import gzip
import json
import os
import random
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from vectorstore.errors import CorpusError
from vectorstore.loaders import MAX_ABSTRACT_CHARS, MAX_FIELD_CHARS, LoadIssue, detect_format, read_papers
from vectorstore.paper import Paper

CONFERENCES = ROOT / "corpus" / "conferences"  # the copies the product ships
ICLR_FILE = CONFERENCES / "iclr2026_accepted.jsonl.gz"
ICML_FILE = CONFERENCES / "icml2026_main_conference.jsonl.gz"

A1 = (
    "We propose GraphMix, a method that mixes node features across neighbouring graphs to regularise "
    "message passing networks, and show that it improves accuracy on twelve node classification benchmarks."
)
A2 = (
    "Large language models hallucinate when asked about rare entities. We introduce a retrieval step that "
    "checks every generated claim against a curated knowledge base and rewrites unsupported claims."
)
A3 = (
    "Diffusion models are slow at sampling time. This paper presents a distillation scheme that reduces the "
    "number of denoising steps from one thousand to four while keeping the sample quality of the teacher."
)


def load(path: Path) -> tuple[list[Paper], list[LoadIssue]]:
    issues: list[LoadIssue] = []
    papers = list(read_papers(path, issues))
    return papers, issues


def write_jsonl(path: Path, records: Sequence[object]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------- samples


def test_text_list_header_gives_venue_and_year(sample_files: list[Path]) -> None:
    iclr, iclr_issues = load(sample_files[0])
    icml, icml_issues = load(sample_files[1])
    assert iclr_issues == [] and icml_issues == []
    assert len(iclr) == 19 and len(icml) == 19
    assert {(p.venue, p.year) for p in iclr} == {("ICLR", 2026)}
    assert {(p.venue, p.year) for p in icml} == {("ICML", 2026)}
    assert len({p.paper_id for p in iclr + icml}) == 38
    assert all(p.abstract and not p.title for p in iclr + icml)
    assert all(
        p.source == path.name for ps, path in ((iclr, sample_files[0]), (icml, sample_files[1])) for p in ps
    )


def test_text_list_labels_are_derived_from_the_abstracts(sample_files: list[Path]) -> None:
    iclr, _ = load(sample_files[0])
    icml, _ = load(sample_files[1])
    icml_labels = {p.label: p for p in icml}
    iclr_labels = {p.label: p for p in iclr}
    for name in ("QHFlow2", "SmoothSpike", "EEG-MoCE", "VIPO", "NanoAssemblyGym", "Coh"):
        assert name in icml_labels and name in icml_labels[name].abstract
    for name in ("HELM", "BrainGFM", "Spike-DB", "MindTransformer"):
        assert name in iclr_labels and name in iclr_labels[name].abstract
    # an abstract without an introduced name falls back to its first words
    first = icml[0]
    assert first.label.endswith("…") and first.abstract.startswith(first.label.removesuffix("…"))


def test_text_list_code_links(sample_files: list[Path]) -> None:
    papers = [p for f in sample_files for p in load(f)[0]]
    links = {link for p in papers for link in p.code_links}
    assert "https://github.com/CayleyZ/SmoothSpike" in links
    assert "https://github.com/weixinxu666/BrainGFM" in links
    assert "https://anonymous.4open.science/r/LGA-5454" in links
    assert "https://anonymous.4open.science/r/vipo2025-8FD4" in links
    for p in papers:
        for link in p.code_links:
            assert link in p.abstract and not link.endswith((".", ",", ")"))


# ---------------------------------------------------------------------------------------------- formats


def test_jsonl_with_common_field_names(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "neurips_2025.jsonl",
        [
            {
                "paper_id": "p1",
                "title": "GraphMix: Mixing Graphs",
                "abstract": A1,
                "authors": ["Ada Li", "Bo Chen"],
                "keywords": ["graphs", "regularisation"],
                "decision": "Accept (Oral)",
                "url": "https://x.org/p1",
            },
            {
                "id": "p2",
                "paper_title": "Checking Claims",
                "summary": A2,
                "author": "Cy Dee; Eve Fox",
                "tags": "llm, hallucination",
                "year": "2024",
                "venue": "ACL 2024",
            },
        ],
    )
    (p1, p2), issues = load(path)
    assert issues == []
    assert (p1.paper_id, p1.title, p1.label) == ("p1", "GraphMix: Mixing Graphs", "GraphMix")
    assert p1.authors == ["Ada Li", "Bo Chen"] and p1.keywords == ["graphs", "regularisation"]
    assert p1.status == "Oral" and p1.urls == ["https://x.org/p1"]
    assert (p1.venue, p1.year) == ("NeurIPS", 2025)  # from the file name
    assert (p2.paper_id, p2.title, p2.abstract) == ("p2", "Checking Claims", A2)
    assert p2.authors == ["Cy Dee", "Eve Fox"] and p2.keywords == ["llm", "hallucination"]
    assert (p2.venue, p2.year) == ("ACL", 2024)


def test_json_array_and_wrapped_document(tmp_path: Path) -> None:
    array = tmp_path / "papers.json"
    array.write_text(json.dumps([{"title": "A", "abstract": A1}, {"title": "B", "abstract": A2}], indent=2))
    papers, issues = load(array)
    assert [p.title for p in papers] == ["A", "B"] and issues == []
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"count": 3, "papers": [{"abstract": a} for a in (A1, A2, A3)]}))
    papers, issues = load(wrapped)
    assert [p.abstract for p in papers] == [A1, A2, A3] and issues == []
    assert detect_format(wrapped) == "json"


def test_csv_and_tsv(tmp_path: Path) -> None:
    csv_path = tmp_path / "list.csv"
    with csv_path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["Title", "Abstract", "Authors", "Year"])
        writer.writerow(["GraphMix, revisited", A1, "Ada Li, Bo Chen", "2023"])
        writer.writerow(["Multi\nline title", A2, "", ""])
    papers, issues = load(csv_path)
    assert issues == []
    assert [p.title for p in papers] == ["GraphMix, revisited", "Multi line title"]
    assert papers[0].authors == ["Ada Li", "Bo Chen"] and papers[0].year == 2023
    tsv_path = tmp_path / "list.tsv"
    tsv_path.write_text(f"title\tabstract\nX\t{A1}\nY\t{A3}\n", encoding="utf-8")
    papers, issues = load(tsv_path)
    assert [p.title for p in papers] == ["X", "Y"] and papers[1].abstract == A3 and issues == []
    # a CSV without the .csv extension is recognised by its header
    headerless_name = tmp_path / "export.txt"
    headerless_name.write_text(f'title,abstract\n"Z","{A2}"\n', encoding="utf-8")
    assert detect_format(headerless_name) == "csv"
    assert [p.title for p in load(headerless_name)[0]] == ["Z"]


def test_openreview_v2_export(tmp_path: Path) -> None:
    record = {
        "id": "Xyz123",
        "forum": "Xyz123",
        "content": {
            "title": {"value": "HELM: Hierarchical Memory"},
            "abstract": {"value": A2},
            "authors": {"value": ["Ada Li", "Bo Chen"]},
            "keywords": {"value": ["memory", "llm"]},
            "venue": {"value": "ICLR 2026 Oral"},
            "venueid": {"value": "ICLR.cc/2026/Conference"},
            "primary_area": {"value": "generative models"},
        },
    }
    (paper,), issues = load(write_jsonl(tmp_path / "openreview.jsonl", [record]))
    assert issues == []
    assert paper.paper_id == "Xyz123" and paper.title == "HELM: Hierarchical Memory" and paper.label == "HELM"
    assert (
        paper.abstract == A2
        and paper.authors == ["Ada Li", "Bo Chen"]
        and paper.keywords == ["memory", "llm"]
    )
    assert (paper.venue, paper.year) == ("ICLR", 2026)
    assert paper.extra["primary_area"] == "generative models"


def test_paperlists_style(tmp_path: Path) -> None:
    record = {
        "id": "abc",
        "title": "Checking Claims",
        "abstract": A2,
        "author": "Cy Dee;Eve Fox",
        "keywords": "llm;hallucination",
        "status": "Spotlight",
        "track": "main",
        "site": "https://icml.cc/virtual/2025/poster/1",
    }
    (paper,), issues = load(write_jsonl(tmp_path / "icml2025.jsonl", [record]))
    assert issues == []
    assert paper.authors == ["Cy Dee", "Eve Fox"] and paper.keywords == ["llm", "hallucination"]
    assert paper.status == "Spotlight" and paper.urls == ["https://icml.cc/virtual/2025/poster/1"]
    assert (paper.venue, paper.year) == ("ICML", 2025)


def test_beir_corpus(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "corpus.jsonl",
        [
            {"_id": "d1", "title": "", "text": A1, "metadata": {}},
            {"_id": "d2", "title": "Distillation", "text": A3, "metadata": {}},
        ],
    )
    papers, issues = load(path)
    assert issues == []
    assert [(p.paper_id, p.title, p.abstract) for p in papers] == [("d1", "", A1), ("d2", "Distillation", A3)]


def test_gzip_is_read_directly_with_or_without_extension(tmp_path: Path) -> None:
    records = [{"id": str(i), "abstract": a} for i, a in enumerate((A1, A2, A3))]
    data = gzip.compress("".join(json.dumps(r) + "\n" for r in records).encode())
    with_ext = tmp_path / "corpus.jsonl.gz"
    with_ext.write_bytes(data)
    without_ext = tmp_path / "corpus_download"
    without_ext.write_bytes(data)
    for path in (with_ext, without_ext):
        papers, issues = load(path)
        assert [p.abstract for p in papers] == [A1, A2, A3] and issues == []
    csv_gz = tmp_path / "list.csv.gz"
    csv_gz.write_bytes(gzip.compress(f"title,abstract\nT,{A1}\n".encode()))
    assert [p.title for p in load(csv_gz)[0]] == ["T"]


# ---------------------------------------------------------------------------------------------- the real lists


@pytest.fixture(scope="module")
def conference_papers() -> dict[str, tuple[list[Paper], list[LoadIssue]]]:
    if not ICLR_FILE.exists():
        pytest.skip(f"{CONFERENCES} not available")
    return {"iclr": load(ICLR_FILE), "icml": load(ICML_FILE)}


@pytest.mark.slow
def test_iclr_list_loads_with_its_metadata(conference_papers: dict) -> None:
    papers, issues = conference_papers["iclr"]
    assert issues == [] and len(papers) == 5358
    assert {(p.venue, p.year) for p in papers} == {("ICLR", 2026)}
    statuses = collections.Counter(p.status for p in papers)
    # a conditional acceptance keeps its presentation as the status, so "orals" means the same in every list
    assert statuses == {"Poster": 5120 + 14, "Oral": 223 + 1}
    decisions = collections.Counter(p.extra.get("decision") for p in papers)
    assert decisions == {None: 5343, "ConditionalPoster": 14, "ConditionalOral": 1}
    by_id = {p.paper_id: p for p in papers}
    assert len(by_id) == 5358
    p = by_id["02NbD16OnA"]
    assert p.title.startswith("Seeing Through Deception") and p.label == "Seeing Through Deception"
    assert p.keywords == ["multimodal misinformation detection", "vision-language models", "creator intent"]
    assert p.status == "Poster" and p.authors == []
    assert (
        "https://openreview.net/forum?id=02NbD16OnA" in p.urls
        and "https://openreview.net/pdf?id=02NbD16OnA" in p.urls
    )
    assert p.extra["primary_area"] == "datasets and benchmarks"
    assert by_id["0FJYicpOj0"].status == "Oral"
    assert all(p.title and p.abstract and p.keywords for p in papers)


@pytest.mark.slow
def test_icml_list_loads_with_its_metadata(conference_papers: dict) -> None:
    papers, issues = conference_papers["icml"]
    assert issues == [] and len(papers) == 5932
    assert {(p.venue, p.year) for p in papers} == {("ICML", 2026)}
    assert collections.Counter(p.status for p in papers) == {"Poster": 5764, "Oral": 168}
    by_id = {p.paper_id: p for p in papers}
    adam = by_id["71027"]  # no OpenReview id: the virtual-site id is used
    assert adam.title.startswith("Do We Need Adam?") and adam.status == "Oral"
    assert adam.urls == ["https://icml.cc/virtual/2026/poster/71027"]
    assert adam.authors == [
        "Sagnik Mukherjee",
        "Lifan Yuan",
        "Pavan Jayasinha",
        "Dilek Hakkani-Tür",
        "Hao Peng",
    ]
    assert by_id["z31fdV4WRu"].status == "Poster" and by_id["z31fdV4WRu"].abstract == adam.abstract
    options = by_id["PbHnXll3ln"]  # the OpenReview id wins over the virtual-site id
    assert options.authors[:2] == ["Yiming Fei", "Ziming Wang"] and options.status == "Poster"
    assert "https://openreview.net/forum?id=PbHnXll3ln" in options.urls
    assert "https://openreview.net/pdf?id=PbHnXll3ln" in options.urls
    assert sum(1 for p in papers if p.authors) > 5900
    doubles = collections.Counter(p.content_hash for p in papers)
    assert sum(1 for n in doubles.values() if n > 1) == 69


# ---------------------------------------------------------------------------------------------- bad input


def test_malformed_json_line_is_reported_and_the_rest_read(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        json.dumps({"abstract": A1}) + '\n{"abstract": "unterminated\n' + json.dumps({"abstract": A2}) + "\n",
        encoding="utf-8",
    )
    papers, issues = load(path)
    assert [p.abstract for p in papers] == [A1, A2]
    assert len(issues) == 1 and issues[0].rejected
    assert (
        issues[0].file == str(path) and issues[0].where == "line 2" and "malformed JSON" in issues[0].reason
    )
    assert str(path) in str(issues[0]) and "line 2" in str(issues[0])


def test_record_without_abstract_names_its_row(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text(f"title,abstract\nGood,{A1}\nNo abstract,\nAlso good,{A3}\n", encoding="utf-8")
    papers, issues = load(path)
    assert [p.title for p in papers] == ["Good", "Also good"]
    assert [(i.where, "no abstract" in i.reason) for i in issues] == [("row 3", True)]
    jsonl = write_jsonl(tmp_path / "rows.jsonl", [{"title": "x"}, {"abstract": A2}, ["not", "an", "object"]])
    papers, issues = load(jsonl)
    assert [p.abstract for p in papers] == [A2]
    assert [i.where for i in issues] == ["line 1", "line 3"] and "got list" in issues[1].reason
    # a first record without abstract that holds a list of objects does not make the file a JSON document
    first_bad = write_jsonl(
        tmp_path / "events.jsonl", [{"id": "x", "events": [{"type": "poster"}]}, {"abstract": A1}]
    )
    papers, issues = load(first_bad)
    assert [p.abstract for p in papers] == [A1] and [i.where for i in issues] == ["line 1"]


@pytest.mark.parametrize("content", [b"", b"   \n\n  \t\n"])
def test_empty_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(content)
    with pytest.raises(CorpusError, match="empty") as info:
        load(path)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="no such file"):
        load(tmp_path / "nope.jsonl")


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "random.bin"
    path.write_bytes(random.Random(7).randbytes(50_000))
    with pytest.raises(CorpusError, match="binary") as info:
        load(path)
    assert str(path) in str(info.value)


def test_cp1252_text_is_read_with_a_note(tmp_path: Path) -> None:
    abstract = A1.replace("neighbouring", "neighbouring “café” naïve")
    text = tmp_path / "list.txt"
    text.write_bytes(f"NeurIPS 2025 papers\n\n{abstract}\n\n{A2}\n".encode("cp1252"))
    papers, issues = load(text)
    assert [p.abstract for p in papers] == [abstract, A2]
    assert (papers[0].venue, papers[0].year) == ("NeurIPS", 2025)
    assert [(i.where, i.rejected) for i in issues] == [("line 3", False)] and "Windows-1252" in issues[
        0
    ].reason
    jsonl = tmp_path / "list.jsonl"
    jsonl.write_bytes(
        (
            json.dumps({"abstract": abstract}, ensure_ascii=False)
            + "\n"
            + json.dumps({"abstract": A2})
            + "\n"
        ).encode("cp1252")
    )
    papers, issues = load(jsonl)
    assert [p.abstract for p in papers] == [abstract, A2] and [i.where for i in issues] == ["line 1"]
    table = tmp_path / "list.csv"
    table.write_bytes(f"title,abstract\nCafé naïve,{A3}\n".encode("cp1252"))
    papers, issues = load(table)
    assert papers[0].title == "Café naïve" and [i.where for i in issues] == ["line 2"]


def test_one_megabyte_abstract_is_rejected_with_a_reason(tmp_path: Path) -> None:
    huge = ("word " * 200_000).strip()
    for first in (True, False):  # also as the very first record, which decides the format
        records = [{"id": "big", "abstract": huge}, {"abstract": A1}, {"abstract": A2}]
        if not first:
            records = [records[1], records[0], records[2]]
        papers, issues = load(write_jsonl(tmp_path / f"big{first}.jsonl", records))
        assert [p.abstract for p in papers] == [A1, A2]
        assert len(issues) == 1 and issues[0].where == ("line 1" if first else "line 2")
        assert f"limit is {MAX_ABSTRACT_CHARS:,}" in issues[0].reason


def test_million_character_field_is_truncated_not_fatal(tmp_path: Path) -> None:
    long_title = "T" * 1_000_000
    papers, issues = load(
        write_jsonl(
            tmp_path / "long.jsonl",
            [
                {"title": long_title, "abstract": A1, "notes": long_title, "authors": ["A" * 1_000_000]},
                {"abstract": A2},
            ],
        )
    )
    assert [p.abstract for p in papers] == [A1, A2] and issues == []
    assert (
        papers[0].title == long_title[: len(papers[0].title)] and 0 < len(papers[0].title) <= MAX_FIELD_CHARS
    )
    assert "notes" not in papers[0].extra and all(len(a) <= 200 for a in papers[0].authors)
    table = tmp_path / "long.csv"
    with table.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["title", "abstract"], [long_title, A3], ["short", A1]])
    papers, issues = load(table)
    assert [p.abstract for p in papers] == [A3, A1] and issues == []
    assert papers[0].title.startswith("TTT") and len(papers[0].title) <= MAX_FIELD_CHARS


def test_truncated_gzip_keeps_what_was_read(tmp_path: Path) -> None:
    records = [{"id": str(i), "abstract": f"{A1} Variant number {i}."} for i in range(400)]
    data = gzip.compress("".join(json.dumps(r) + "\n" for r in records).encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    papers, issues = load(path)
    assert 10 < len(papers) < 400
    assert [p.paper_id for p in papers] == [str(i) for i in range(len(papers))]
    assert len(issues) == 1 and "truncated or corrupt" in issues[0].reason and issues[0].file == str(path)
    tiny = tmp_path / "tiny.jsonl.gz"
    tiny.write_bytes(data[:30])
    with pytest.raises(CorpusError, match="cannot be read"):
        load(tiny)


@pytest.mark.parametrize(
    "name, payload",
    [
        ("nested_obj.jsonl", '{"abstract": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        (
            "nested_small.jsonl",
            '{"a": ' + "[" * 3000 + "]" * 3000 + "}",
        ),  # fits in the format sniffing window
    ],
)
def test_deeply_nested_json_line(tmp_path: Path, name: str, payload: str) -> None:
    path = tmp_path / name
    path.write_text(payload + "\n" + json.dumps({"abstract": A1}) + "\n", encoding="utf-8")
    papers, issues = load(path)
    assert [p.abstract for p in papers] == [A1]
    assert [i.where for i in issues] == ["line 1"] and "malformed JSON" in issues[0].reason


def test_deeply_nested_json_document(tmp_path: Path) -> None:
    bare = tmp_path / "bare.json"  # 100k nested lists and nothing else
    bare.write_text("[" * 100_000 + "]" * 100_000)
    papers, issues = load(bare)
    assert papers == [] and [i.where for i in issues] == ["item 1"] and "malformed JSON" in issues[0].reason
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text('{"papers": ' + "[" * 100_000 + "]" * 100_000 + "}")
    papers, issues = load(wrapped)
    assert papers == [] and len(issues) == 1 and "malformed JSON" in issues[0].reason
    path = tmp_path / "nested.json"
    path.write_text(json.dumps([{"abstract": A1}]).rstrip("]") + ", " + "[" * 100_000 + "]" * 100_000 + "]")
    papers, issues = load(path)
    assert [p.abstract for p in papers] == [A1]
    assert [i.where for i in issues] == ["item 2"] and "malformed JSON" in issues[0].reason


def test_csv_formula_fields_stay_plain_text(tmp_path: Path) -> None:
    path = tmp_path / "formulas.csv"
    formula = "=cmd|' /C calc'!A0"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["title", "abstract", "authors"])
        writer.writerow([formula, A1, "@SUM(1+1)"])
        writer.writerow(["+1+2", "-2+3 " + A2, "Ada Li"])
    papers, issues = load(path)
    assert issues == []
    assert papers[0].title == formula and papers[0].authors == ["@SUM(1+1)"]
    assert papers[1].title == "+1+2" and papers[1].abstract == "-2+3 " + A2


def test_utf16_text_with_bom(tmp_path: Path) -> None:
    path = tmp_path / "utf16.txt"
    path.write_bytes(f"ICLR 2025\n\n{A1}\n\n{A2}\n".encode("utf-16"))
    papers, issues = load(path)
    assert [p.abstract for p in papers] == [A1, A2] and issues == []
    broken = tmp_path / "broken16.txt"  # a UTF-16 BOM followed by lone surrogates
    broken.write_bytes(b"\xff\xfe" + b"\x00\xd8a\x00" * 200)
    load(broken)  # must not raise a UnicodeDecodeError


# ---------------------------------------------------------------------------------------------- fuzzing

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def fuzz_one(tmp_path: Path, name: str, data: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    issues: list[LoadIssue] = []
    try:
        papers = list(read_papers(path, issues))
    except CorpusError as exc:
        assert str(path) in str(exc)
        return
    finally:
        os.unlink(path)
    assert all(isinstance(i, LoadIssue) and i.file == str(path) and i.where and i.reason for i in issues)
    assert all(isinstance(p, Paper) and p.abstract and p.paper_id for p in papers)


@FUZZ
@given(
    data=st.binary(max_size=3000), name=st.sampled_from(["f.jsonl", "f.json", "f.csv", "f.tsv", "f.txt", "f"])
)
def test_fuzz_random_bytes(tmp_path: Path, data: bytes, name: str) -> None:
    fuzz_one(tmp_path, name, data)


@FUZZ
@given(data=st.binary(max_size=2000))
def test_fuzz_random_bytes_with_magic_prefixes(tmp_path: Path, data: bytes) -> None:
    for prefix in (b"\x1f\x8b", b"\xff\xfe", b"\xef\xbb\xbf", b"[", b"{", b"title,abstract\n"):
        fuzz_one(tmp_path, "g.jsonl", prefix + data)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=300),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "abstract",
                    "title",
                    "id",
                    "authors",
                    "keywords",
                    "status",
                    "events",
                    "content",
                    "year",
                    "venue",
                    "url",
                    "value",
                    "type",
                    "name",
                    "text",
                    "_id",
                ]
            )
            | st.text(max_size=8),
            inner,
            max_size=6,
        )
    ),
    max_leaves=25,
)


@FUZZ
@given(lines=st.lists(json_values, max_size=8), gz=st.booleans(), array=st.booleans())
def test_fuzz_random_json_records(tmp_path: Path, lines: list[object], gz: bool, array: bool) -> None:
    text = json.dumps(lines) if array else "".join(json.dumps(v) + "\n" for v in lines)
    data = text.encode()
    fuzz_one(tmp_path, "r.json" if array else "r.jsonl", gzip.compress(data) if gz else data)


@FUZZ
@given(rows=st.lists(st.lists(st.text(max_size=200), min_size=1, max_size=4), max_size=6))
def test_fuzz_random_csv(tmp_path: Path, rows: list[list[str]]) -> None:
    lines = ["title,abstract,authors"] + [",".join(json.dumps(c) for c in row) for row in rows]
    fuzz_one(tmp_path, "r.csv", "\n".join(lines).encode("utf-8", "surrogatepass"))


def test_a_decision_holds_for_its_own_venue_only() -> None:
    import dataclasses

    from vectorstore.paper import Paper, merge

    text = "We propose a method for a problem and show that it works on three benchmarks. " * 3
    iclr = Paper(paper_id="a", abstract=text, venue="ICLR", year=2026, status="Poster")
    icml = Paper(paper_id="b", abstract=text, venue="ICML", year=2026, status="Oral")
    assert merge(iclr, icml).status == "Poster"  # stored under ICLR, where it is a poster
    assert (
        merge(dataclasses.replace(icml, status="Poster"), dataclasses.replace(icml, paper_id="c")).status
        == "Oral"
    )
    assert merge(Paper(paper_id="d", abstract=text, venue="ICML", year=2026), icml).status == "Oral"
