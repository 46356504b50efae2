"""Read paper lists into `Paper` records, streaming, whatever their format.

The format is picked from the content (gzip magic, NUL bytes, first character, header row) and the file
name, never from one hard-wired schema. Records that cannot be used are reported as `LoadIssue`s naming the
file and line or row; the good records around them are still yielded.
"""

from __future__ import annotations

import csv
import dataclasses
import gzip
import io
import json
import logging
import re
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from vectorstore.errors import CorpusError
from vectorstore.paper import Paper, content_hash, normalize_text

__all__ = ["LoadIssue", "read_papers", "count_papers", "record_to_paper", "detect_format", "venue_from_text"]

log = logging.getLogger(__name__)

MAX_RECORD_BYTES = 4_000_000
MAX_ABSTRACT_CHARS = 20_000
MAX_FIELD_CHARS = 2_000
_SNIFF_BYTES = 8192


@dataclasses.dataclass(frozen=True)
class LoadIssue:
    """A record that was rejected (or read with a caveat), with where it is."""

    file: str
    where: str
    reason: str
    rejected: bool = True

    def __str__(self) -> str:
        return f"{self.file}, {self.where}: {self.reason}"


_VENUE_NAMES = [
    "ICLR",
    "ICML",
    "NeurIPS",
    "NIPS",
    "CVPR",
    "ICCV",
    "ECCV",
    "ACL",
    "EMNLP",
    "NAACL",
    "AAAI",
    "IJCAI",
    "COLM",
    "KDD",
    "AISTATS",
    "UAI",
    "CoRL",
    "TMLR",
    "COLT",
    "WWW",
    "SIGIR",
    "CHI",
    "MICCAI",
    "ICRA",
    "IROS",
    "RSS",
    "ISMB",
]
_VENUE = re.compile(
    r"(?<![A-Za-z])(" + "|".join(_VENUE_NAMES) + r")[\s_'’-]*((?:19|20)\d\d)(?!\d)", re.IGNORECASE
)
_CANONICAL = {name.lower(): name for name in _VENUE_NAMES}


def venue_from_text(text: str) -> tuple[str, int | None]:
    """('ICLR', 2026) from 'ICLR 2026 论文列表' or 'iclr2026_accepted.jsonl.gz'; ('', None) if none."""
    match = _VENUE.search(text)
    if not match:
        return "", None
    return _CANONICAL.get(match.group(1).lower(), match.group(1).upper()), int(match.group(2))


# ---------------------------------------------------------------------------------------------- opening


def _open_binary(path: Path) -> IO[bytes]:
    raw = path.open("rb")
    magic = raw.read(2)
    raw.seek(0)
    if magic == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw)  # type: ignore[return-value]
    return raw


def detect_format(path: Path) -> str:
    """'jsonl', 'json', 'csv', 'tsv' or 'text'. Raises `CorpusError` for empty or binary files."""
    if not path.is_file():
        raise CorpusError(f"{path}: no such file")
    try:
        with _open_binary(path) as handle:
            head = handle.read(_SNIFF_BYTES)
    except (OSError, EOFError, zlib.error) as exc:
        raise CorpusError(f"{path}: cannot be read ({exc})") from exc
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "text-utf16"
    if not head.strip():
        raise CorpusError(f"{path}: the file is empty")
    if b"\x00" in head or _binary_share(head) > 0.1:
        raise CorpusError(f"{path}: this is a binary file, not a paper list (JSON Lines, JSON, CSV or text)")
    name = path.name.lower().removesuffix(".gz")
    first = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if first == b"[":
        return "json"
    if first == b"{":
        return _first_line_format(path)
    if name.endswith(".tsv"):
        return "tsv"
    if name.endswith(".csv") or _looks_like_csv_header(head):
        return "csv"
    return "text"


def _first_line_format(path: Path) -> str:
    """'jsonl' if the first line (read whole, up to MAX_RECORD_BYTES) is one record, else 'json'."""
    try:
        with _open_binary(path) as handle:
            line = b""
            while not line.strip():
                line = handle.readline(MAX_RECORD_BYTES)
                if not line:
                    break
            more = b"\n"
            while more and not more.strip():
                more = handle.readline(_SNIFF_BYTES)
    except (OSError, EOFError, zlib.error) as exc:
        raise CorpusError(f"{path}: cannot be read ({exc})") from exc
    if len(line) >= MAX_RECORD_BYTES and not line.endswith(b"\n"):
        return "jsonl"  # a first record too long to check: the JSON Lines reader reports it and goes on
    try:
        value = json.loads(line.lstrip(b"\xef\xbb\xbf").decode("utf-8", errors="replace"))
    except RecursionError:
        return "jsonl"
    except ValueError:
        return "json"
    if (
        not more
        and isinstance(value, dict)
        and _first(_flatten(value), _ABSTRACT_KEYS) is None
        and any(isinstance(v, list) and v and isinstance(v[0], dict) for v in value.values())
    ):
        return "json"  # a whole document on one line: {"papers": [...]}
    return "jsonl"


def _binary_share(head: bytes) -> float:
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 13))
    return controls / max(len(head), 1)


def _looks_like_csv_header(head: bytes) -> bool:
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace").lower()
    fields = [f.strip(' "') for f in first.split(",")]
    return len(fields) >= 2 and any(f in _ABSTRACT_KEYS for f in fields)


def _decode(raw: bytes, file: str, where: str, issues: list[LoadIssue]) -> str:
    try:
        return raw.decode("utf-8-sig" if raw.startswith(b"\xef\xbb\xbf") else "utf-8")
    except UnicodeDecodeError:
        issues.append(LoadIssue(file, where, "not valid UTF-8; read as Windows-1252", rejected=False))
        return raw.decode("cp1252", errors="replace")


def _lines(handle: IO[bytes], file: str, issues: list[LoadIssue]) -> Iterator[tuple[int, bytes]]:
    """Numbered lines, each at most MAX_RECORD_BYTES; longer ones are reported and skipped."""
    number = 0
    while True:
        line = handle.readline(MAX_RECORD_BYTES + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_RECORD_BYTES and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = handle.readline(MAX_RECORD_BYTES)
            issues.append(LoadIssue(file, f"line {number}", f"record longer than {MAX_RECORD_BYTES:,} bytes"))
            continue
        yield number, line


# ---------------------------------------------------------------------------------------------- mapping

_ID_KEYS = ("openreview_id", "paper_id", "_id", "id", "forum", "doc_id", "docid", "uid", "icml_virtual_id")
_TITLE_KEYS = ("title", "paper_title", "name")
_ABSTRACT_KEYS = ("abstract", "text", "summary", "abstract_text", "paper_abstract", "tldr")
_AUTHOR_KEYS = ("authors", "author", "authors_list", "author_names", "authorids")
_KEYWORD_KEYS = ("keywords", "tags", "topics", "subject_areas", "primary_area")
_STATUS_KEYS = ("status", "decision", "presentation", "track", "session_type", "type")
_VENUE_KEYS = ("venue", "conference", "conf", "venueid", "booktitle", "journal")
_CONDITIONAL = re.compile(r"^conditional\s*", re.IGNORECASE)
_URL_KEYS = ("url", "site", "pdf_link", "pdf", "link", "paper_url", "forum_url", "openreview_url", "html_url")


def _unwrap(value: Any) -> Any:
    """OpenReview v2 wraps every content field as {"value": ...}."""
    if (
        isinstance(value, dict)
        and set(value) <= {"value", "readers", "writers", "nonreaders"}
        and "value" in value
    ):
        return value["value"]
    return value


def _flatten(record: dict[str, Any]) -> dict[str, Any]:
    flat = {str(k).strip().lower(): _unwrap(v) for k, v in record.items()}
    content = flat.get("content")
    if isinstance(content, dict):
        for key, value in content.items():
            flat.setdefault(str(key).lower(), _unwrap(value))
    return flat


def _first(flat: dict[str, Any], keys: Iterable[str]) -> Any:
    for key in keys:
        value = flat.get(key)
        if value not in (None, "", [], {}):
            return value
    return None


def _text(value: Any, limit: int = MAX_FIELD_CHARS) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        value = " ".join(str(v) for v in value)
    return normalize_text(str(value))[:limit]


def _names(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        parts = re.split(r"\s*;\s*|\s*,\s*|\s+and\s+", value) if value.strip() else []
    elif isinstance(value, list):
        parts = [v.get("name", "") if isinstance(v, dict) else str(v) for v in value]
    else:
        parts = [str(value)]
    return [_text(p, 200) for p in parts if p and str(p).strip()][:200]


def _status(flat: dict[str, Any]) -> str:
    events = flat.get("events")
    if isinstance(events, list) and events:
        types = " ".join(str(e.get("type", "")) for e in events if isinstance(e, dict)).lower()
        if "oral" in types:
            return "Oral"
        if "spotlight" in types:
            return "Spotlight"
        if "poster" in types:
            return "Poster"
    status = _text(_first(flat, _STATUS_KEYS), 100)
    # "ICLR 2026 ConditionalPoster" -> "ConditionalPoster"; "Accept (Oral)" -> "Oral"
    status = _VENUE.sub("", status).strip()
    match = re.search(r"\(([^)]+)\)", status)
    status = (match.group(1) if match else status).strip()
    # "ConditionalOral" is an oral, accepted on a condition: the same word "Oral" in every list
    return _CONDITIONAL.sub("", status).strip() or status


def _decision(flat: dict[str, Any]) -> str:
    """The list's own decision when it says more than the status does (ICLR's 'ConditionalPoster')."""
    raw = _VENUE.sub("", _text(_first(flat, _STATUS_KEYS), 100)).strip()
    return raw if _CONDITIONAL.match(raw) else ""


def _derived_urls(flat: dict[str, Any], venue: str, year: int | None) -> list[str]:
    """Links a conference site gives that the list leaves implicit: the OpenReview forum and PDF of an
    OpenReview id, the ICML virtual-site page of an ICML virtual id."""
    urls = []
    forum_id = _text(flat.get("openreview_id"), 100)
    if forum_id and re.fullmatch(r"[\w-]+", forum_id):
        urls += [f"https://openreview.net/forum?id={forum_id}", f"https://openreview.net/pdf?id={forum_id}"]
    virtual_id = _text(flat.get("icml_virtual_id"), 40)
    if venue == "ICML" and year and virtual_id.isdigit():
        urls.append(f"https://icml.cc/virtual/{year}/poster/{virtual_id}")
    return urls


def record_to_paper(
    record: dict[str, Any], default_venue: str = "", default_year: int | None = None, source: str = ""
) -> Paper:
    """Map one JSON/CSV record with common field names to a `Paper`. Raises ValueError if unusable."""
    flat = _flatten(record)
    abstract_value = _first(flat, _ABSTRACT_KEYS)
    abstract = normalize_text(str(abstract_value)) if abstract_value is not None else ""
    if not abstract:
        raise ValueError("no abstract (looked for: " + ", ".join(_ABSTRACT_KEYS[:4]) + ")")
    if len(abstract) > MAX_ABSTRACT_CHARS:
        raise ValueError(f"abstract is {len(abstract):,} characters; the limit is {MAX_ABSTRACT_CHARS:,}")
    venue_text = _text(_first(flat, _VENUE_KEYS), 200)
    venue, year = venue_from_text(venue_text) if venue_text else ("", None)
    venue = venue or venue_text[:60] or default_venue
    year_value = flat.get("year")
    if isinstance(year_value, (int, str)) and str(year_value).strip().isdigit():
        year = int(str(year_value).strip())
    year = year or default_year
    raw_id = _first(flat, _ID_KEYS)
    paper_id = _text(raw_id, 200) if raw_id is not None else ""
    urls = [_text(flat[k], 500) for k in _URL_KEYS if isinstance(flat.get(k), str) and flat[k].strip()]
    urls += _derived_urls(flat, venue, year)
    known = {
        *_ID_KEYS,
        *_TITLE_KEYS,
        *_ABSTRACT_KEYS,
        *_AUTHOR_KEYS,
        *_KEYWORD_KEYS,
        *_STATUS_KEYS,
        *_VENUE_KEYS,
        *_URL_KEYS,
        "content",
        "events",
        "year",
    }
    extra = {
        k: v
        for k, v in flat.items()
        if k not in known and isinstance(v, (str, int, float, bool)) and len(str(v)) < 500
    }
    keywords = _names(flat.get("keywords") or flat.get("tags") or flat.get("topics"))
    area = _text(flat.get("primary_area"), 200)
    if area:
        extra["primary_area"] = area
    if decision := _decision(flat):
        extra["decision"] = decision
    return Paper(
        paper_id=paper_id or "h:" + content_hash(abstract)[:16],
        abstract=abstract,
        title=_text(_first(flat, _TITLE_KEYS), 500),
        venue=venue,
        year=year,
        authors=_names(_first(flat, _AUTHOR_KEYS)),
        keywords=keywords,
        status=_status(flat),
        urls=urls,
        source=source,
        extra=extra,
    )


# ---------------------------------------------------------------------------------------------- readers


def read_papers(path: str | Path, issues: list[LoadIssue]) -> Iterator[Paper]:
    """Stream the papers of one file; problems are appended to `issues`. Raises `CorpusError` if unreadable."""
    path = Path(path)
    fmt = detect_format(path)
    venue, year = venue_from_text(path.name)
    name = str(path)
    readers = {
        "jsonl": _read_jsonl,
        "json": _read_json,
        "csv": _read_csv,
        "tsv": _read_csv,
        "text": _read_text,
        "text-utf16": _read_text,
    }
    try:
        with _open_binary(path) as handle:
            yield from readers[fmt](handle, name, issues, venue, year, fmt)
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        issues.append(LoadIssue(name, "end of file", f"compressed stream is truncated or corrupt ({exc})"))
    except OSError as exc:
        issues.append(LoadIssue(name, "reading", f"read failed ({exc})"))


def count_papers(path: str | Path) -> int:
    """How many papers `path` yields (0 for a file that cannot be read): for progress bars."""
    try:
        return sum(1 for _ in read_papers(path, []))
    except CorpusError:
        return 0


def _make(
    record: Any, name: str, where: str, issues: list[LoadIssue], venue: str, year: int | None
) -> Paper | None:
    if not isinstance(record, dict):
        issues.append(
            LoadIssue(name, where, f"expected an object with an abstract, got {type(record).__name__}")
        )
        return None
    try:
        return record_to_paper(record, venue, year, source=Path(name).name)
    except (ValueError, TypeError) as exc:
        issues.append(LoadIssue(name, where, str(exc)))
        return None


def _read_jsonl(
    handle: IO[bytes], name: str, issues: list[LoadIssue], venue: str, year: int | None, fmt: str
) -> Iterator[Paper]:
    for number, raw in _lines(handle, name, issues):
        if not raw.strip():
            continue
        where = f"line {number}"
        try:
            record = json.loads(_decode(raw, name, where, issues))
        except (ValueError, RecursionError) as exc:
            issues.append(LoadIssue(name, where, f"malformed JSON ({str(exc)[:120]})"))
            continue
        paper = _make(record, name, where, issues, venue, year)
        if paper:
            yield paper


def _read_json(
    handle: IO[bytes], name: str, issues: list[LoadIssue], venue: str, year: int | None, fmt: str
) -> Iterator[Paper]:
    """A JSON array (streamed element by element) or an object holding one ({"papers": [...]})."""
    text = io.TextIOWrapper(handle, encoding="utf-8-sig", errors="replace")
    decoder = json.JSONDecoder()
    buffer = text.read(1 << 16).lstrip()
    if buffer.startswith("{"):
        rest = buffer + text.read(MAX_RECORD_BYTES * 10)
        try:
            document = json.loads(rest)
        except (ValueError, RecursionError) as exc:
            raise_issue = LoadIssue(name, "document", f"malformed JSON ({str(exc)[:120]})")
            issues.append(raise_issue)
            return
        items = next((v for v in document.values() if isinstance(v, list)), [document])
        for index, item in enumerate(items, 1):
            paper = _make(item, name, f"item {index}", issues, venue, year)
            if paper:
                yield paper
        return
    buffer = buffer[1:]
    index = 0
    while True:
        buffer = buffer.lstrip(" \t\r\n,")
        if buffer.startswith("]"):
            return
        if len(buffer) < MAX_RECORD_BYTES:
            more = text.read(1 << 16)
            if more:
                buffer += more
                continue
        if not buffer:
            issues.append(
                LoadIssue(name, f"item {index + 1}", "the JSON array is not closed (truncated file?)")
            )
            return
        index += 1
        try:
            item, end = decoder.raw_decode(buffer)
        except (ValueError, RecursionError) as exc:
            issues.append(
                LoadIssue(name, f"item {index}", f"malformed JSON ({str(exc)[:120]}); rest skipped")
            )
            return
        buffer = buffer[end:]
        paper = _make(item, name, f"item {index}", issues, venue, year)
        if paper:
            yield paper


def _read_csv(
    handle: IO[bytes], name: str, issues: list[LoadIssue], venue: str, year: int | None, fmt: str
) -> Iterator[Paper]:
    csv.field_size_limit(MAX_RECORD_BYTES)
    text = (_decode(raw, name, f"line {n}", issues) for n, raw in _lines(handle, name, issues))
    reader = csv.DictReader(text, delimiter="\t" if fmt == "tsv" else ",")
    try:
        for row in reader:
            where = f"row {reader.line_num}"
            if None in row:
                row.pop(None)
            paper = _make(row, name, where, issues, venue, year)
            if paper:
                yield paper
    except csv.Error as exc:
        issues.append(LoadIssue(name, f"row {reader.line_num}", f"malformed CSV ({exc}); rest skipped"))


def _paragraphs(handle: IO[bytes], name: str, issues: list[LoadIssue], fmt: str) -> Iterator[tuple[int, str]]:
    if fmt == "text-utf16":
        lines: Iterable[tuple[int, str]] = enumerate(
            io.TextIOWrapper(handle, encoding="utf-16", errors="replace"), 1
        )
    else:
        lines = ((n, _decode(raw, name, f"line {n}", issues)) for n, raw in _lines(handle, name, issues))
    start, block = 0, list[str]()
    for number, line in lines:
        if line.strip():
            if not block:
                start = number
            block.append(line.strip())
            if sum(map(len, block)) > MAX_RECORD_BYTES:
                issues.append(LoadIssue(name, f"line {start}", "paragraph too long; skipped"))
                block = []
        elif block:
            yield start, " ".join(block)
            block = []
    if block:
        yield start, " ".join(block)


def _is_header(paragraph: str) -> bool:
    return len(paragraph) < 150 and not paragraph.rstrip().endswith(".") and len(paragraph.split()) <= 12


def _read_text(
    handle: IO[bytes], name: str, issues: list[LoadIssue], venue: str, year: int | None, fmt: str
) -> Iterator[Paper]:
    """The sample format: a header line naming the venue, then one abstract per blank-line paragraph."""
    first = True
    for line, paragraph in _paragraphs(handle, name, issues, fmt):
        if first and _is_header(paragraph):
            venue, year = venue_from_text(paragraph) if venue_from_text(paragraph)[0] else (venue, year)
            first = False
            continue
        first = False
        if len(paragraph) < 100 or len(paragraph.split()) < 15:
            issues.append(LoadIssue(name, f"line {line}", "paragraph too short to be an abstract"))
            continue
        paper = _make({"abstract": paragraph}, name, f"line {line}", issues, venue, year)
        if paper:
            yield paper
