"""Masked language models (BERT-style) through transformers: `rank` at the mask position.

A rank request is the same one a causal LM answers: the text before the answer (`prompt`)
and the text after it (`answer_suffix`); the backend puts its own mask token between them
("If a is like b, then c is like [MASK]."; `[MASK]` for BERT, `<mask>` for RoBERTa). A
prompt may instead hold exactly one `[MASK]` placeholder (`MASK_PLACEHOLDER`) itself. One
forward pass per batch (right-padded, with an attention mask) gives the top-k tokens at the
mask with log-probabilities, and each target word's rank by the first token id of
" " + word.

No real BERT ships with lexbench and the machine it was built on is offline, so the tests use
a tiny randomly initialised BERT built on the spot (a BertConfig with a small vocabulary and
a tokenizer from a small vocab file). Point `mlm:` at any local model folder, or at a Hub id
when online (`mlm:bert-base-uncased`, pinned with `--revision`).

torch and transformers are imported inside this module's functions, never at package import.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lexbench.models.base import OnResponse, answer_by_kind
from lexbench.models.hf_files import local_model_path
from lexbench.models.transformers_model import TransformersModel, checked_options
from lexbench.types import RankedToken, Request, Response

MASK_PLACEHOLDER = "[MASK]"


@dataclass(frozen=True)
class MLMOptions:
    dtype: str = "float32"
    device: str = "auto"
    batch_size: int = 32
    revision: str | None = None
    threads: int | None = None


class MaskedLM(TransformersModel):
    """A masked LM answering `rank` requests at its single mask position.

    >>> model = MaskedLM.from_spec("path/to/bert")        # doctest: +SKIP
    """

    backend = "mlm"
    auto_class = "AutoModelForMaskedLM"
    options: MLMOptions
    #: Benchmarks write this where the answer goes (see `lexbench.benchmarks.analogies.sets`).
    mask_placeholder = MASK_PLACEHOLDER

    def __init__(
        self,
        model_path: str,
        *,
        name: str,
        options: MLMOptions = MLMOptions(),
        weights_hash: str | None = None,
        source: str | None = None,
    ):
        super().__init__(
            model_path, name=name, options=options, weights_hash=weights_hash, source=source
        )
        if self.tokenizer.mask_token_id is None:
            raise ValueError(f"{model_path}: the tokenizer has no mask token; is this a masked LM?")

    @classmethod
    def from_spec(cls, spec: str, options: MLMOptions = MLMOptions()) -> MaskedLM:
        """A local folder (saved with save_pretrained) or a Hub id (downloaded when online)."""
        path = local_model_path(spec, "mlm")
        return cls.from_folder(path, options) if path.is_dir() else cls.from_hub(spec, options)

    kinds = frozenset({"rank"})

    def _encode(self, request: Request) -> list[int]:
        count = request.prompt.count(MASK_PLACEHOLDER)
        if count > 1:
            raise ValueError(
                f"request {request.id}: a masked-LM prompt holds at most one "
                f"{MASK_PLACEHOLDER}, found {count}: {request.prompt[:80]!r}"
            )
        prompt = (
            request.prompt
            if count
            else f"{request.prompt} {MASK_PLACEHOLDER}{request.answer_suffix}"
        )
        text = prompt.replace(MASK_PLACEHOLDER, self.tokenizer.mask_token)
        ids = self.tokenizer(text, add_special_tokens=True, truncation=True)["input_ids"]
        if ids.count(self.tokenizer.mask_token_id) != 1:
            raise ValueError(
                f"request {request.id}: the mask did not survive tokenisation "
                "(prompt longer than the model's maximum length?)"
            )
        return ids

    def streams_answers(self) -> bool:
        return True  # each batch is reported, so the runner caches it at once

    def answer_each(
        self, requests: Sequence[Request], on_response: OnResponse | None = None
    ) -> list[Response]:
        return answer_by_kind(self, requests, {"rank": self.rank}, on_response)

    def rank(
        self, requests: Sequence[Request], on_response: OnResponse | None = None
    ) -> list[Response]:
        """Top-k tokens at the mask: one forward pass per batch, longest prompts first;
        each batch's answers go to `on_response(position, response)` once made."""
        torch = self._torch
        encoded = [self._encode(r) for r in requests]
        order = sorted(range(len(requests)), key=lambda i: (-len(encoded[i]), i))
        size = max(1, self.options.batch_size)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        out: list[Response | None] = [None] * len(requests)
        for start in range(0, len(order), size):
            batch = order[start : start + size]
            width = max(len(encoded[i]) for i in batch)
            ids = torch.full((len(batch), width), pad, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            for row, index in enumerate(batch):
                ids[row, : len(encoded[index])] = torch.tensor(encoded[index])
                mask[row, : len(encoded[index])] = 1
            positions = (ids == self.tokenizer.mask_token_id).nonzero()[:, 1]
            with torch.inference_mode(), self._read.reading(int(mask.sum())):
                logits = self.model(
                    input_ids=ids.to(self.device), attention_mask=mask.to(self.device)
                ).logits
                rows = torch.arange(len(batch), device=logits.device)
                at_mask = logits[rows, positions.to(logits.device)].float()
                logprobs = torch.log_softmax(at_mask, dim=-1)
                k = min(max(requests[i].top_k for i in batch), logprobs.shape[-1])
                top = torch.topk(logprobs, k=k, dim=-1)
            for row, index in enumerate(batch):
                keep = requests[index].top_k
                token_ids = top.indices[row, :keep].tolist()
                values = top.values[row, :keep].tolist()
                out[index] = answer = Response(
                    request_id=requests[index].id,
                    ranked=tuple(
                        RankedToken(t, self.tokenizer.decode([t]), v)
                        for t, v in zip(token_ids, values)
                    ),
                    target_ranks=self._first_ids.ranks(token_ids, requests[index].targets),
                )
                if on_response is not None:
                    on_response(index, answer)
        return [r for r in out if r is not None]


def load(name: str, options: dict[str, Any]) -> MaskedLM:
    """Registry entry: `mlm:PATH|HUB_ID` with options dtype, device, batch_size, revision,
    threads."""
    return MaskedLM.from_spec(name, checked_options("mlm", MLMOptions, options))
