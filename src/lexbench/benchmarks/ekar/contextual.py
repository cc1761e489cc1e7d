"""The E-KAR paper's contextual-embedding baseline: untuned BERT/RoBERTa representations
(Table 2, "Pre-trained Language Models", BERT_b / RoBERTa_b / RoBERTa_l, not tuned).

The paper (§5.1): "The averaged token representation is taken as the term representation.
A query or a candidate is estimated by the sum of the representations of each term pair,
which is represented as the embedding vector differences. The candidate with the highest
cosine similarity to the query is chosen as the answer." Here:

* a term is encoded alone ("[CLS] police officer [SEP]"), and its vector is the mean of
  its own tokens' hidden states at `layer` (the last by default), special tokens excluded;
* a tuple's vector is the sum over term pairs i < j of (v_j - v_i), exactly as the static
  baseline (`ekar_embedding`) builds it from word vectors;
* the answer is the candidate whose tuple vector has the highest cosine with the query's.

`ContextualTupleModel` wraps any transformers encoder (`AutoModel`: BERT, RoBERTa,
MiniLM, Chinese BERT ...) as a `Model` answering the same typed `analogy` requests
(`TupleChoiceQuery`) as the word-vector backend, with one cosine per candidate in
`Response.choice_scores`, so it runs through `evaluate` (cache, run folder, report). Run it with
`lexbench run ekar --method contextual --encoder PATH`. torch and transformers are imported
when a model is built, never at package import.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lexbench.models.base import Model
from lexbench.models.weights_identity import folder_sha256
from lexbench.types import Request, Response, TupleChoiceQuery

POOLING = "mean of the term's own token states (special tokens excluded), each term encoded alone"


def tuple_vector(term_vectors: Sequence[np.ndarray]) -> np.ndarray:
    """Sum over i < j of (v_j - v_i): b - a for two terms, as the static baseline."""
    total = np.zeros_like(term_vectors[0], dtype=np.float64)
    for i in range(len(term_vectors)):
        for j in range(i + 1, len(term_vectors)):
            total += term_vectors[j] - term_vectors[i]
    return total


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.dot(a, b) / norm) if norm > 0 else 0.0


def _content_hash(folder: Path) -> str:
    """The content of the encoder's weight, config and tokenizer files: two encoders with
    the same shapes but different weights (two random tiny BERTs) never share cached
    answers (see `lexbench.models.weights_identity`)."""
    return folder_sha256(folder)[:16]


class ContextualTupleModel(Model):
    """Answers `analogy` requests carrying a `TupleChoiceQuery` with cosines of contextual
    tuple vectors: `choice_scores[i]` is the cosine between the query's tuple vector and
    candidate i's.

    >>> model = ContextualTupleModel("path/to/bert-base-uncased")      # doctest: +SKIP
    """

    kinds = frozenset({"analogy"})

    def __init__(
        self,
        encoder: str | Path,
        *,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 32,
        layer: int = -1,
        threads: int | None = None,
    ):
        from lexbench.models.hf_files import load_pretrained
        from lexbench.models.hf_progress import ReadProgress

        folder = Path(encoder).expanduser()
        if not folder.is_dir():
            raise FileNotFoundError(
                f"--encoder {encoder}: no such folder; pass a local transformers encoder "
                f"(a folder with config.json, the weights and the tokenizer, e.g. a saved "
                f"bert-base-uncased or roberta-base)"
            )
        if not (folder / "config.json").is_file():
            raise FileNotFoundError(
                f"--encoder {folder}: no config.json there, so it is not "
                f"a transformers model folder"
            )
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.folder = folder
        self.name = folder.name
        self.batch_size = batch_size
        self.dtype = dtype
        self.tokenizer, self.model, self.device = load_pretrained(
            "AutoModel",  # by name: torch's threads are set up before transformers loads
            str(folder),
            dtype=dtype,
            device=device,
            revision=None,
            threads=threads,
        )
        layers = int(getattr(self.model.config, "num_hidden_layers", 0) or 0)
        if layers and not -(layers + 1) <= layer <= layers:
            raise ValueError(
                f"layer {layer} is outside the encoder's hidden states "
                f"(0 = embeddings .. {layers} = last, or negative from the end)"
            )
        self.layer = layer
        self._content = _content_hash(folder)
        # How far a batch of terms is through the encoder's layers, for the bar.
        self._read = ReadProgress(self.model, lambda: self.on_prefill)

    def fingerprint(self) -> dict[str, Any]:
        config = json.loads((self.folder / "config.json").read_text(encoding="utf-8"))
        return {
            "backend": "contextual-tuple",
            "encoder": self.name,
            "model_type": config.get("model_type"),
            "content": self._content,
            "layer": self.layer,
            "dtype": self.dtype,
            "pooling": POOLING,
            "tuple": "sum of pairwise differences; cosine",
        }

    def term_vectors(self, terms: Sequence[str]) -> dict[str, np.ndarray]:
        """Each distinct term's vector, computed once, in length-sorted batches."""
        import torch

        unique = sorted(set(terms), key=lambda t: (len(t), t))
        out: dict[str, np.ndarray] = {}
        limit = min(int(getattr(self.tokenizer, "model_max_length", 512) or 512), 512)
        for start in range(0, len(unique), self.batch_size):
            batch = unique[start : start + self.batch_size]
            encoded = self.tokenizer(
                batch,
                padding=True,
                truncation=True,
                max_length=limit,
                return_tensors="pt",
                return_special_tokens_mask=True,
            )
            special = encoded.pop("special_tokens_mask")
            encoded = {k: v.to(self.device) for k, v in encoded.items()}
            tokens = int(encoded["attention_mask"].sum())
            with torch.inference_mode(), self._read.reading(tokens):
                output = self.model(**encoded, output_hidden_states=self.layer != -1)
            states = (
                output.last_hidden_state if self.layer == -1 else output.hidden_states[self.layer]
            )
            attended = encoded["attention_mask"].bool().cpu()
            own = attended & ~special.bool()
            # A term the tokenizer turns into special tokens only keeps every attended one.
            empty = own.sum(dim=1) == 0
            own[empty] = attended[empty]
            weights = own.to(states.dtype).to(states.device).unsqueeze(-1)
            means = (states * weights).sum(dim=1) / weights.sum(dim=1)
            for term, vector in zip(batch, means.float().cpu().numpy()):
                out[term] = vector.astype(np.float64)
        return out

    def chunk_size(self) -> int:
        # Small hand-overs, so the runner caches every few seconds of encoding (a killed
        # run keeps them); terms are still shared within a chunk.
        return max(16, 2 * self.batch_size)

    def analogy(self, requests: Sequence[Request]) -> list[Response]:
        queries = []
        for request in requests:
            if not isinstance(request.query, TupleChoiceQuery):
                raise ValueError(
                    f"request {request.id}: the contextual encoder answers tuple "
                    f"choice queries only, not {type(request.query).__name__}"
                )
            queries.append(request.query)
        vectors = self.term_vectors(
            [t for q in queries for terms in (q.query, *q.candidates) for t in terms]
        )
        out = []
        for request, query in zip(requests, queries):
            anchor = tuple_vector([vectors[t] for t in query.query])
            cosines = tuple(
                cosine(anchor, tuple_vector([vectors[t] for t in terms]))
                for terms in query.candidates
            )
            if not all(math.isfinite(c) for c in cosines):
                out.append(
                    Response(
                        request_id=request.id, error=f"non-finite cosine from encoder {self.name}"
                    )
                )
                continue
            out.append(Response(request_id=request.id, choice_scores=cosines))
        return out

    def close(self) -> None:
        self.model = None


def check_encoder_language(model: Model, language: str) -> None:
    """Refuse an encoder whose model card declares languages that exclude the data's (the
    packaged English MiniLM on Chinese E-KAR); the paper used Chinese BERT/RoBERTa there."""
    from lexbench.metrics.similarity import declared_languages

    if not isinstance(model, ContextualTupleModel):
        return
    declared = declared_languages(model.folder)
    if declared is None or language in declared or "multilingual" in declared:
        return
    chinese = " (the paper used hfl/chinese-bert-wwm and hfl/chinese-roberta-wwm-ext)"
    raise ValueError(
        f"the encoder {model.name} is for {', '.join(sorted(declared))} only (its "
        f"model card says so) and the data are {'Chinese' if language == 'zh' else language}: "
        f"pass --encoder DIR with a {'Chinese' if language == 'zh' else language} or "
        f"multilingual encoder{chinese if language == 'zh' else ''}"
    )


#: The backend options an encoder takes (`--model ekar-encoder:PATH`, or `--encoder PATH`).
ENCODER_OPTIONS = ("device", "dtype", "batch_size", "threads", "layer")


def load(name: str, options: dict[str, Any]) -> ContextualTupleModel:
    """The `ekar-encoder:PATH` backend: the untuned encoder at PATH answering E-KAR's
    contextual baseline (on the CPU unless `--device` says otherwise)."""
    unused = sorted(set(options) - set(ENCODER_OPTIONS))
    if unused:
        raise ValueError(f"option(s) {', '.join(unused)} do not apply to --encoder")
    return ContextualTupleModel(name, **{"device": "cpu", **options})
