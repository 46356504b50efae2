"""Incremental ingestion into a real Chroma store in a temporary folder.

The "hash" embedder (deterministic, instant) is used wherever the embedding model does not matter; one test
builds the store with the real bundled MiniLM model.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from vectorstore.embedders import get_embedder
from vectorstore.errors import EmbedderMismatchError
from vectorstore.ingest import NEAR_DUPLICATE_THRESHOLD, IngestReport, ingest, near_duplicate_score
from vectorstore.lexical import LexicalIndex
from vectorstore.loaders import read_papers
from vectorstore.paper import Paper
from vectorstore.store import PaperStore, chunk_id


def got(paper: Paper | None) -> Paper:
    """`paper`, which the test expects to be stored."""
    assert paper is not None
    return paper


CONFERENCES = ROOT / "corpus" / "conferences"  # the copies the product ships
CONFERENCE_FILES = [
    CONFERENCES / "iclr2026_accepted.jsonl.gz",
    CONFERENCES / "icml2026_main_conference.jsonl.gz",
]


FRESH_ABSTRACTS = [
    "We present a planner for warehouse robots that avoids collisions with forklifts by predicting their "
    "routes from floor sensors, and halves the number of emergency stops in a year-long deployment.",
    "Coral reefs are surveyed by divers at great cost. We train a detector on underwater video that counts "
    "fish species per frame and matches expert counts on nine reefs in the Red Sea.",
    "Legal contracts hide obligations in long clauses. This paper introduces a parser that extracts every "
    "obligation with its deadline and party, evaluated on two thousand leases annotated by lawyers.",
]


def open_store(path: Path, embedder: str = "hash", **kwargs: object) -> PaperStore:
    return PaperStore(path, get_embedder(embedder), **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def store(store_dir: Path) -> Iterator[PaperStore]:
    opened = open_store(store_dir)
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def samples(sample_files: list[Path]) -> list[Paper]:
    return [p for f in sample_files for p in read_papers(f, [])]


def by_label(papers: list[Paper], label: str) -> Paper:
    return next(p for p in papers if p.label == label)


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def stored_chunk_ids(store: PaperStore, paper_id: str) -> list[str]:
    page = store.chunks.collection.get(where={"paper_id": paper_id}, include=[])
    return sorted(page["ids"], key=lambda cid: int(cid.rsplit("#", 1)[1]))


def assert_consistent(store: PaperStore) -> None:
    assert store.verify() == []
    assert store.chunks.count() == store.catalog.chunk_total()
    assert store.chunks.paper_ids() == {p.paper_id for p in store.catalog.papers()}


# ---------------------------------------------------------------------------------------------- the basics


@pytest.mark.slow
def test_samples_with_the_real_embedder(
    store_dir: Path, sample_files: list[Path], samples: list[Paper]
) -> None:
    store = open_store(store_dir, "minilm")
    report = ingest(store, sample_files)
    assert (report.read, report.new, report.merged, report.rejected) == (38, 38, 0, 0)
    assert report.chunks_embedded == store.chunks.count() == store.catalog.chunk_total() >= 38
    assert store.catalog.count() == 38 and store.catalog.venues() == {"ICLR 2026": 19, "ICML 2026": 19}
    assert_consistent(store)
    for query, label in [
        ("spike saturation makes spiking networks worse than ANNs at language modeling", "SmoothSpike"),
        (
            "compressing numerical relativity simulations of spacetime metrics into neural fields",
            "Einstein Fields",
        ),
        (
            "reinforcement learning environment for atom manipulation with a scanning tunneling microscope",
            "NanoAssemblyGym",
        ),
    ]:
        hits = store.chunks.query(store.embedder.embed_query(query), 5)
        assert got(store.catalog.get(hits[0].paper_id)).label == label, query
        assert hits[0].similarity > hits[-1].similarity
    store.close()

    reopened = open_store(store_dir, "minilm")
    again = ingest(reopened, sample_files)
    assert (again.read, again.new, again.updated, again.unchanged, again.chunks_embedded) == (38, 0, 0, 38, 0)
    assert "nothing changed: no embedding was needed" in again.render()
    assert reopened.catalog.count() == 38
    reopened.close()


@pytest.mark.slow
def test_embedder_mismatch_names_both_and_the_rebuild_command(
    store_dir: Path, sample_files: list[Path]
) -> None:
    store = open_store(store_dir, "hash")
    ingest(store, sample_files[:1])
    store.close()
    with pytest.raises(EmbedderMismatchError) as info:
        open_store(store_dir, "minilm")
    message = str(info.value)
    assert get_embedder("hash").fingerprint in message and get_embedder("minilm").fingerprint in message
    assert "paperchat ingest --rebuild" in message
    assert open_store(store_dir, "hash").catalog.count() == 19  # nothing was touched


def test_report_counts_and_reingest_embeds_nothing(store: PaperStore, sample_files: list[Path]) -> None:
    first = ingest(store, sample_files)
    assert (first.read, first.new, first.updated, first.unchanged, first.merged) == (38, 38, 0, 0, 0)
    assert first.files == [str(f) for f in sample_files] and first.issues == []
    assert first.chunks_embedded == store.chunks.count()
    assert "nothing changed" not in first.render()
    second = ingest(store, sample_files)
    assert (second.read, second.new, second.updated, second.unchanged, second.chunks_embedded) == (
        38,
        0,
        0,
        38,
        0,
    )
    assert "nothing changed: no embedding was needed" in second.render()
    assert json.loads(json.dumps(second.to_dict()))["unchanged"] == 38
    assert_consistent(store)


def test_repeated_list_entries_do_not_make_a_reingest_an_update(
    store: PaperStore, samples: list[Paper], tmp_path: Path
) -> None:
    # the ICLR list has papers whose keywords repeat ("optimization" twice)
    path = write_jsonl(
        tmp_path / "iclr2026.jsonl",
        [
            {
                "openreview_id": "3Vd",
                "title": "Fast PINNs",
                "abstract": samples[2].abstract,
                "keywords": ["optimization", "pde", "optimization"],
                "site": "https://o.net/3Vd",
                "url": "https://o.net/3Vd",
                "authors": ["Ada Li", "Ada Li"],
            }
        ],
    )
    ingest(store, [path])
    assert got(store.get("3Vd")).keywords == ["optimization", "pde"]
    assert got(store.get("3Vd")).urls == [
        "https://o.net/3Vd",
        "https://openreview.net/forum?id=3Vd",
        "https://openreview.net/pdf?id=3Vd",
    ]
    again = ingest(store, [path])
    assert (again.updated, again.unchanged) == (0, 1)


def test_changed_abstract_is_reembedded_and_old_chunks_removed(
    store_dir: Path, samples: list[Paper], tmp_path: Path
) -> None:
    store = open_store(store_dir, chunk_size=300)
    long_abstract = " ".join(p.abstract for p in samples[:3])
    short_abstract = samples[3].abstract[:250].rsplit(" ", 1)[0] + "."
    records = [
        {"id": "keep", "title": "Kept", "abstract": samples[5].abstract},
        {"id": "paper-x", "title": "Paper X", "abstract": long_abstract},
    ]
    ingest(store, [write_jsonl(tmp_path / "v1.jsonl", records)])
    old_chunks = store.catalog.n_chunks("paper-x")
    assert old_chunks >= 5 and stored_chunk_ids(store, "paper-x") == [
        chunk_id("paper-x", i) for i in range(old_chunks)
    ]
    keep_chunks = stored_chunk_ids(store, "keep")

    records[1]["abstract"] = short_abstract
    report = ingest(store, [write_jsonl(tmp_path / "v2.jsonl", records)])
    assert (report.new, report.updated, report.unchanged) == (0, 1, 1)
    new_count = len(store.chunk(got(store.get("paper-x"))))
    assert new_count == 1 and report.chunks_embedded == new_count
    assert store.catalog.n_chunks("paper-x") == new_count
    assert stored_chunk_ids(store, "paper-x") == [chunk_id("paper-x", 0)]
    assert got(store.get("paper-x")).abstract == short_abstract and store.catalog.count() == 2
    assert stored_chunk_ids(store, "keep") == keep_chunks
    assert_consistent(store)

    records[1]["abstract"] = long_abstract + " A new closing sentence about the method."
    report = ingest(store, [write_jsonl(tmp_path / "v3.jsonl", records)])
    assert (
        report.updated == 1
        and store.catalog.n_chunks("paper-x") == len(stored_chunk_ids(store, "paper-x")) > 1
    )
    assert_consistent(store)
    store.close()


def test_title_change_only_reembeds_that_paper(
    store: PaperStore, samples: list[Paper], tmp_path: Path
) -> None:
    records = [
        {"id": f"p{i}", "title": f"Title {i}", "abstract": p.abstract} for i, p in enumerate(samples[:4])
    ]
    ingest(store, [write_jsonl(tmp_path / "a.jsonl", records)])
    records[2]["title"] = "A Better Title"
    report = ingest(store, [write_jsonl(tmp_path / "b.jsonl", records)])
    assert (report.updated, report.unchanged) == (1, 3)
    assert report.chunks_embedded == store.catalog.n_chunks("p2")
    assert got(store.get("p2")).title == "A Better Title"
    assert_consistent(store)


# ---------------------------------------------------------------------------------------------- duplicates


def test_same_paper_twice_in_one_file_and_across_files(
    store: PaperStore, samples: list[Paper], sample_files: list[Path], tmp_path: Path
) -> None:
    one = samples[0]
    twice = tmp_path / "twice.jsonl"
    write_jsonl(
        twice,
        [{"id": "d1", "abstract": one.abstract, "title": "T"}] * 2
        + [{"id": "d2", "abstract": samples[1].abstract}],
    )
    copy = tmp_path / "iclr2026_copy.txt"
    shutil.copy(sample_files[0], copy)
    report = ingest(store, [sample_files[0], twice, copy])
    assert report.read == 19 + 3 + 19
    assert store.catalog.count() == 19
    assert report.new == 19
    hashes = collections.Counter(p.content_hash for p in store.catalog.papers())
    assert max(hashes.values()) == 1
    merged = got(store.get(one.paper_id))
    assert merged.title == "T" and got(store.get("d1")).paper_id == one.paper_id and "d1" in merged.aliases
    assert got(store.get("d2")).paper_id == samples[1].paper_id
    assert_consistent(store)


def test_a_paper_listed_twice_keeps_the_stronger_status_across_reingests(
    store: PaperStore, samples: list[Paper], tmp_path: Path
) -> None:
    abstract = samples[4].abstract
    path = write_jsonl(
        tmp_path / "icml2026.jsonl",
        [
            {"id": "71027", "title": "Paper A", "abstract": abstract, "events": [{"type": "oral-session"}]},
            {
                "id": "z31",
                "title": "Paper A",
                "abstract": abstract,
                "events": [{"type": "poster-session"}],
                "url": "https://openreview.net/forum?id=z31",
            },
        ],
    )
    first = ingest(store, [path])
    assert (first.new, first.merged) == (1, 1)
    for _ in range(2):  # ingesting the same list again changes nothing
        again = ingest(store, [path])
        assert (again.new, again.updated, again.unchanged, again.chunks_embedded) == (0, 0, 2, 0)
        paper = got(store.get("z31"))
        assert paper.paper_id == "71027" and paper.status == "Oral" and paper.aliases == ["z31"]
        assert paper.urls == ["https://openreview.net/forum?id=z31"]
    assert store.catalog.count() == 1


def test_near_duplicate_is_merged_and_counted(
    store: PaperStore, samples: list[Paper], sample_files: list[Path], tmp_path: Path
) -> None:
    original = by_label(samples, "SmoothSpike")
    words = original.abstract.split()
    for i in (5, 17, 40, 41, 90):
        words[i] = words[i].upper() + "x"
    edited = " ".join(words)
    assert edited != original.abstract
    assert NEAR_DUPLICATE_THRESHOLD <= near_duplicate_score(edited, original.abstract) < 1
    path = write_jsonl(
        tmp_path / "rewritten.jsonl",
        [
            {"id": "or-1", "title": "SmoothSpike: Smooth Spikes", "abstract": edited, "authors": ["Ada Li"]},
        ],
    )
    report = ingest(store, [*sample_files, path])
    assert (report.read, report.new, report.merged) == (39, 38, 1)
    assert store.catalog.count() == 38
    stored = got(store.get("or-1"))
    assert stored.paper_id == original.paper_id and stored.abstract == original.abstract
    assert stored.title == "SmoothSpike: Smooth Spikes" and stored.authors == ["Ada Li"]
    assert_consistent(store)


def test_different_papers_are_not_merged(store: PaperStore, samples: list[Paper], tmp_path: Path) -> None:
    # two abstracts on the same topic (both about spiking networks) stay two papers
    spiking = [p for p in samples if "spik" in p.abstract.lower()]
    assert len(spiking) >= 3
    report = ingest(store, [write_jsonl(tmp_path / "s.jsonl", [{"abstract": p.abstract} for p in spiking])])
    assert report.merged == 0 and store.catalog.count() == len(spiking)


def test_metadata_merge_into_a_stored_sample(
    store: PaperStore, samples: list[Paper], sample_files: list[Path], tmp_path: Path
) -> None:
    ingest(store, sample_files)
    sample = by_label(samples, "QHFlow2")
    before = store.catalog.count()
    path = write_jsonl(
        tmp_path / "icml2026.jsonl",
        [
            {
                "id": "QH123",
                "title": "QHFlow2: Scaling Hamiltonian Prediction",
                "abstract": sample.abstract,
                "authors": ["Ada Li", "Bo Chen"],
                "events": [{"type": "poster-session"}],
            }
        ],
    )
    report = ingest(store, [path])
    assert (report.new, report.merged) == (0, 1)
    assert store.catalog.count() == before == 38
    stored = got(store.get(sample.paper_id))
    assert stored.title == "QHFlow2: Scaling Hamiltonian Prediction" and stored.label == "QHFlow2"
    assert stored.authors == ["Ada Li", "Bo Chen"] and stored.status == "Poster"
    assert (stored.venue, stored.year) == ("ICML", 2026) and stored.aliases == ["QH123"]
    assert got(store.get("QH123")).paper_id == sample.paper_id
    assert report.chunks_embedded == store.catalog.n_chunks(sample.paper_id)  # the title is embedded too
    assert_consistent(store)
    again = ingest(store, [*sample_files, path])
    assert (again.new, again.updated, again.chunks_embedded) == (0, 0, 0)
    assert got(store.get(sample.paper_id)).title == "QHFlow2: Scaling Hamiltonian Prediction"


# ---------------------------------------------------------------------------------------------- failures


def test_a_bad_file_among_good_ones_loses_nothing(
    store: PaperStore, sample_files: list[Path], samples: list[Paper], tmp_path: Path
) -> None:
    ingest(store, sample_files)
    before_ids = {p.paper_id for p in store.catalog.papers()}
    before_chunks = store.chunks.count()
    good = write_jsonl(
        tmp_path / "good.jsonl",
        [{"id": f"new-{i}", "title": f"New {i}", "abstract": a} for i, a in enumerate(FRESH_ABSTRACTS)],
    )
    binary = tmp_path / "broken.jsonl"
    binary.write_bytes(os.urandom(4096))
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    half = write_jsonl(tmp_path / "half.jsonl", [{"id": "ok", "abstract": samples[0].abstract}])
    with half.open("a") as f:
        f.write('{"id": "bad", "abstract": \n')
    report = ingest(store, [binary, good, empty, tmp_path / "missing.jsonl", half])
    assert store.catalog.count() == 38 + 3
    assert before_ids < {p.paper_id for p in store.catalog.papers()}
    assert store.chunks.count() > before_chunks
    text = "\n".join(str(i) for i in report.issues)
    for path in (binary, empty, tmp_path / "missing.jsonl", half):
        assert str(path) in text
    assert "line 2" in text and report.rejected == 4
    assert_consistent(store)


# ---------------------------------------------------------------------------------------------- lexical index


def test_lexical_index_is_saved_and_incremental(
    store_dir: Path, sample_files: list[Path], samples: list[Paper], tmp_path: Path
) -> None:
    store = open_store(store_dir)
    ingest(store, sample_files)
    store.close()
    for name in ("bm25.npz", "bm25.json", "seq.json"):
        assert (store_dir / "lexical" / name).is_file()

    reopened = open_store(store_dir)
    assert reopened.sync_lexical() == 0  # loaded from disk, nothing re-added
    ids = {p.paper_id for p in reopened.catalog.papers()}
    assert set(reopened.lexical.rows) == ids and len(reopened.lexical) == 38
    qh = by_label(samples, "QHFlow2")
    assert reopened.lexical.search("QHFlow2", k=3)[0][0] == qh.paper_id
    assert (
        reopened.lexical.search("Einstein Fields relativity metric", k=1)[0][0]
        == by_label(samples, "Einstein Fields").paper_id
    )
    rows_before = dict(reopened.lexical.rows)

    extra = write_jsonl(
        tmp_path / "one.jsonl",
        [
            {
                "id": "zx",
                "title": "Zyxoplanner",
                "abstract": "We present Zyxoplanner, a planner for warehouse robots that avoids collisions with forklifts "
                "by predicting their routes from floor sensors, and halves the number of emergency stops.",
            }
        ],
    )
    ingest(reopened, [extra])
    assert reopened.lexical.search("zyxoplanner", k=1)[0][0] == "zx"
    assert {
        d: reopened.lexical.rows[d] for d in rows_before
    } == rows_before  # old rows untouched, not rebuilt
    reopened.close()

    third = open_store(store_dir)
    assert third.sync_lexical() == 0 and len(third.lexical) == 39
    assert third.lexical.search("zyxoplanner", k=1)[0][0] == "zx"
    assert json.loads((store_dir / "lexical" / "seq.json").read_text())["seq"] == third.catalog.seq
    third.close()


def test_lexical_index_is_rebuilt_from_the_catalog_when_lost(
    store_dir: Path, sample_files: list[Path]
) -> None:
    store = open_store(store_dir)
    ingest(store, sample_files)
    store.close()
    shutil.rmtree(store_dir / "lexical")
    reopened = open_store(store_dir)
    assert len(reopened.lexical) == 38 and reopened.sync_lexical() == 0
    assert LexicalIndex.load(store_dir / "lexical").rows.keys() == reopened.lexical.rows.keys()
    reopened.close()
    (store_dir / "lexical" / "seq.json").unlink()  # an index without its sequence number is not trusted
    again = open_store(store_dir)
    assert len(again.lexical) == 38 and again.sync_lexical() == 0
    again.close()


# ---------------------------------------------------------------------------------------------- the real lists

CLI = [sys.executable, "-m", "assistant.cli"]


def done_papers(store_dir: Path) -> tuple[int, int]:
    """(committed, pending) papers in a store's catalog, read with sqlite3 while another process writes it."""
    try:
        db = sqlite3.connect(f"file:{store_dir / 'catalog.sqlite'}?mode=ro", uri=True, timeout=5)
        try:
            done = db.execute("SELECT COUNT(*) FROM papers WHERE record != ''").fetchone()[0]
            pending = db.execute("SELECT COUNT(*) FROM papers WHERE state = 'pending'").fetchone()[0]
            return int(done), int(pending)
        finally:
            db.close()
    except sqlite3.Error:
        return 0, 0


def cli_ingest(store_dir: Path, files: list[Path], **kwargs: object) -> subprocess.Popen:
    args = [*CLI, "ingest", "--store", str(store_dir), "--embedder", "hash", "--json", *map(str, files)]
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    return subprocess.Popen(
        args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs
    )  # type: ignore[call-overload]


def finish(process: subprocess.Popen, timeout: float = 900) -> IngestReport:
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, err[-3000:]
    data = json.loads(out)
    return IngestReport(
        **{k: v for k, v in data.items() if k in IngestReport.__dataclass_fields__ and k != "issues"}
    )


@pytest.fixture(scope="module")
def clean_conference_store(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Path, subprocess.Popen]]:
    """A clean ingest of both conference lists, started in the background as soon as a test asks for it."""
    if not CONFERENCE_FILES[0].exists():
        pytest.skip(f"{CONFERENCES} not available")
    path = tmp_path_factory.mktemp("clean") / "store"
    process = cli_ingest(path, CONFERENCE_FILES)
    yield path, process
    if process.poll() is None:
        process.kill()
        process.wait()


def clean_store(fixture: tuple[Path, subprocess.Popen]) -> Path:
    path, process = fixture
    if process.returncode is None:
        report = finish(process)
        assert report.read == 5358 + 5932
    return path


@pytest.mark.slow
def test_kill_9_during_ingest_then_resume(tmp_path: Path, clean_conference_store: tuple) -> None:
    store_dir = tmp_path / "killed"
    victim = cli_ingest(store_dir, CONFERENCE_FILES, start_new_session=True)
    deadline = time.monotonic() + 600  # a bound on the wait, not a timing assertion
    while True:
        done, pending = done_papers(store_dir)
        if (done > 600 and pending) or done > 3000:  # prefer to strike while a batch is half-written
            break
        assert victim.poll() is None, "the ingest ended before it could be killed"
        assert time.monotonic() < deadline, "the ingest made no progress"
        time.sleep(0.02)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    assert victim.returncode == -signal.SIGKILL
    done_at_kill, pending_at_kill = done_papers(store_dir)
    assert 600 < done_at_kill < 11_000

    resumed = finish(cli_ingest(store_dir, CONFERENCE_FILES))
    assert resumed.resumed == pending_at_kill
    assert resumed.read == 5358 + 5932 and resumed.new > 0
    assert resumed.updated == 0  # what was committed before the kill is read again as unchanged
    assert resumed.unchanged >= done_at_kill

    clean_path = clean_store(clean_conference_store)
    killed, clean = open_store(store_dir), open_store(clean_path)
    try:
        assert killed.verify() == [] and clean.verify() == []
        assert killed.catalog.count() == clean.catalog.count()
        assert killed.chunks.count() == clean.chunks.count() == clean.catalog.chunk_total()
        killed_papers = {p.paper_id: p for p in killed.catalog.papers()}
        clean_papers = {p.paper_id: p for p in clean.catalog.papers()}
        assert killed_papers.keys() == clean_papers.keys()
        assert set(killed.chunks.chunk_ids()) == set(clean.chunks.chunk_ids())
        differing = [
            pid for pid in clean_papers if killed_papers[pid].to_json() != clean_papers[pid].to_json()
        ]
        assert differing == []
        assert set(killed.lexical.rows) == set(clean_papers) and killed.sync_lexical() == 0
    finally:
        killed.close()
        clean.close()


@pytest.mark.slow
def test_samples_and_both_conference_lists(
    tmp_path: Path, clean_conference_store: tuple, sample_files: list[Path], samples: list[Paper]
) -> None:
    conference = [p for f in CONFERENCE_FILES for p in read_papers(f, [])]
    store_dir = tmp_path / "all"
    shutil.copytree(clean_store(clean_conference_store), store_dir)
    store = open_store(store_dir)
    conference_count = store.catalog.count()

    # the conference lists alone: ICML lists 69 papers twice (as oral and as poster); one paper is in both lists
    hashes = collections.defaultdict(list)
    for p in conference:
        hashes[p.content_hash].append(p)
    assert conference_count == len(hashes)
    doubles = [group for group in hashes.values() if sum(p.venue == "ICML" for p in group) > 1]
    assert len(doubles) == 69
    assert sum(1 for group in hashes.values() if {p.venue for p in group} == {"ICLR", "ICML"}) == 1
    for group in doubles:
        assert {p.status for p in group if p.venue == "ICML"} == {"Oral", "Poster"}
        found = {store.catalog.resolve(p.paper_id) for p in group}
        assert len(found) == 1 and None not in found
        paper = store.get(str(found.pop()))
        assert paper is not None and len(paper.aliases) == len(group) - 1
        # the stronger decision of the venue it is stored under: ICML's oral, or ICLR's own for the paper in both
        decisions = {p.status for p in group if p.venue == paper.venue}
        assert paper.status == ("Oral" if "Oral" in decisions else decisions.pop()), paper.venue

    report = ingest(store, sample_files)
    verbatim = [s for s in samples if s.content_hash in hashes]
    assert len(verbatim) == 27
    rewritten = [
        s
        for s in samples
        if s.content_hash not in hashes
        and any(
            near_duplicate_score(s.abstract, p.abstract) >= NEAR_DUPLICATE_THRESHOLD
            for p in conference
            if p.venue == s.venue
        )
    ]
    expected_total = len(hashes) + len(samples) - len(verbatim) - len(rewritten)
    assert report.merged == len(verbatim) + len(rewritten) and report.new == 38 - report.merged
    assert store.catalog.count() == expected_total
    for sample in verbatim:
        stored = store.get(sample.paper_id)
        assert stored is not None and stored.paper_id != sample.paper_id  # an alias of the conference record
        assert stored.title and stored.abstract == sample.abstract
    stored_hashes = collections.Counter(p.content_hash for p in store.catalog.papers())
    assert len(stored_hashes) == expected_total  # no abstract is stored twice
    assert store.catalog.venues() == {"ICLR 2026": 5358, "ICML 2026": expected_total - 5358}
    assert store.verify() == []
    store.close()
