"""`ekar-classifier:DIR`: an E-KAR multiple-choice classifier made by
`lexbench finetune ekar-qa`, run as a model.

It answers the E-KAR benchmark's `loglikelihood` requests (the query context in `prompt`,
one continuation per candidate) with the classifier's log-softmax over the candidates in
place of log-probabilities, so `lexbench run ekar --model ekar-classifier:DIR` scores it
like any other model. Each continuation counts as one token, so the `sum` and `per_token`
normalisations both give the classifier's own choice; run it with `--normalisation sum`
(`per_char` divides by candidate length, which means nothing for a classifier).

The folder's `lexbench-lineage.json` goes into the run's config (`describe`). A classifier
trained on Appendix A.1's explanation inputs (the Acc(Δ) QA model) still answers requests,
but as the paper's "None" condition: without the explanations it was trained to read.

torch and transformers are imported inside this module's functions only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.models.base import Model, OnResponse, answer_by_kind
from lexbench.models.weights_identity import folder_sha256
from lexbench.types import Request, Response


@dataclass(frozen=True)
class ClassifierOptions:
    device: str = "auto"
    batch_size: int = 16


class EkarClassifier(Model):
    """A fine-tuned E-KAR classifier answering loglikelihood requests."""

    kinds = frozenset({"loglikelihood"})

    def __init__(self, folder: str | Path, options: ClassifierOptions = ClassifierOptions()):
        import torch

        from lexbench.finetune.choice_model import load_choice_model

        self.folder = Path(folder).expanduser()
        if not self.folder.is_dir():
            raise FileNotFoundError(f"no E-KAR classifier folder at {self.folder}")
        self.options = options
        device = options.device
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        self.network, self.tokenizer = load_choice_model(self.folder, device)
        self.name = self.folder.name
        # Every weight, config and tokenizer file's content, so two fine-tunes written to
        # the same folder never share cached answers (remembered: no rehash next time).
        self._weights = folder_sha256(self.folder)

    def fingerprint(self) -> dict[str, Any]:
        return {
            "backend": "ekar-classifier",
            "model": str(self.folder.resolve()),
            "weights_sha256": self._weights,
            "input_format": self.network.settings.input_format,
            "mode": self.network.settings.mode,
        }

    def describe(self) -> dict[str, Any]:
        from lexbench.models.lineage import describe_lineage

        described = {
            **super().describe(),
            "device": self.device,
            "batch_size": self.options.batch_size,
            "settings": json.loads(json.dumps(self.network.settings.__dict__)),
        }
        lineage = describe_lineage(self.folder)
        return {**described, "lineage": lineage} if lineage else described

    def streams_answers(self) -> bool:
        return True  # each batch is reported, so the runner caches it at once

    def answer_each(
        self, requests: Sequence[Request], on_response: OnResponse | None = None
    ) -> list[Response]:
        return answer_by_kind(self, requests, {"loglikelihood": self.loglikelihood}, on_response)

    def loglikelihood(
        self, requests: Sequence[Request], on_response: OnResponse | None = None
    ) -> list[Response]:
        from lexbench.finetune.choice_model import score_choices

        for request in requests:
            if len(request.continuations) < 2:
                raise ValueError(
                    f"request {request.id}: a classifier chooses among two or more "
                    f"continuations, got {len(request.continuations)}"
                )
        size = max(1, self.options.batch_size)
        out: list[Response] = []
        # One batch of requests at a time, each reported once scored (and so cached).
        for start in range(0, len(requests), size):
            batch = requests[start : start + size]
            groups = [([r.prompt] * len(r.continuations), list(r.continuations)) for r in batch]
            scores = score_choices(self.network, self.tokenizer, groups, batch_size=size)
            for request, score in zip(batch, scores):
                answer = Response(
                    request_id=request.id,
                    loglikelihoods=tuple(score),
                    continuation_tokens=(1,) * len(score),
                )
                if on_response is not None:
                    on_response(len(out), answer)
                out.append(answer)
        return out

    def close(self) -> None:
        self.network = None  # type: ignore[assignment]


def load(name: str, options: dict[str, Any]) -> EkarClassifier:
    """Registry entry: `ekar-classifier:DIR` with options device, batch_size."""
    known = set(ClassifierOptions.__dataclass_fields__)
    unknown = sorted(k for k in options if k not in known)
    if unknown:
        raise ValueError(
            f"option(s) {', '.join(unknown)} do not apply to the ekar-classifier "
            f"backend; it takes: {', '.join(sorted(known))}"
        )
    return EkarClassifier(name, ClassifierOptions(**options))
