"""E-KAR's fine-tuned QA model: a pretrained encoder reads the query and one candidate as
one sequence; the averaged hidden states go through an MLP to one score per candidate, and
a softmax over the candidates picks the answer (E-KAR §5.1).

Saved as a folder: the encoder and its tokenizer (`save_pretrained`), the head
(`choice_head.safetensors`) and `ekar-classifier.json` (sizes and how inputs were built).
`lexbench.benchmarks.ekar.classifier` runs such a folder as a model kind.

This module imports torch at import time; import it only where torch is wanted.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from lexbench.finetune.lora import merge_lora

HEAD_FILE = "choice_head.safetensors"
CONFIG_FILE = "ekar-classifier.json"
INPUT_FORMATS = ("request", "explanations")


@dataclass(frozen=True)
class ChoiceSettings:
    """What a saved classifier needs to rebuild itself and its inputs.

    `input_format`: "request" -- (the E-KAR benchmark's loglikelihood context, a candidate
    continuation), what `lexbench run ekar` sends; "explanations" -- Appendix A.1's Acc(Δ)
    input ("t1 : t2 </s> explanation: E"), for the QA model of the Acc(Δ) metric."""

    hidden_size: int
    dropout: float = 0.1
    max_length: int = 256
    input_format: str = "request"
    language: str = "en"
    mode: str = "hard"

    def __post_init__(self) -> None:
        if self.input_format not in INPUT_FORMATS:
            raise ValueError(
                f"unknown input format {self.input_format!r}; choose from "
                f"{', '.join(INPUT_FORMATS)}"
            )


class ChoiceModel(nn.Module):
    """encoder -> mean of hidden states over real tokens -> MLP -> one score per choice."""

    #: A transformers encoder (a PreTrainedModel: it saves itself with save_pretrained).
    encoder: Any

    def __init__(self, encoder: nn.Module, settings: ChoiceSettings):
        super().__init__()
        self.encoder = encoder
        self.settings = settings
        size = settings.hidden_size
        self.head = nn.Sequential(
            nn.Dropout(settings.dropout),
            nn.Linear(size, size),
            nn.Tanh(),
            nn.Dropout(settings.dropout),
            nn.Linear(size, 1),
        )

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
    ) -> dict[str, torch.Tensor]:
        batch, choices, length = input_ids.shape
        kwargs: dict[str, Any] = {
            "input_ids": input_ids.reshape(-1, length),
            "attention_mask": attention_mask.reshape(-1, length),
        }
        if token_type_ids is not None:
            kwargs["token_type_ids"] = token_type_ids.reshape(-1, length)
        hidden = self.encoder(**kwargs).last_hidden_state
        mask = kwargs["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
        logits = self.head(pooled).reshape(batch, choices)
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = nn.functional.cross_entropy(logits, labels)
        return out

    def merge_and_unload(self) -> ChoiceModel:
        """The classifier with its encoder's LoRA adapters merged into the weights (the
        head has none): what `finetune.lora.merge_lora` asks of a peft model, so the
        classifier ends its training like any other model."""
        self.encoder = merge_lora(self.encoder)
        return self


def encode_choices(
    tokenizer: Any, firsts: Sequence[str], seconds: Sequence[str], max_length: int
) -> dict[str, list[list[int]]]:
    """One item's choices as text pairs ([CLS] first [SEP] second [SEP] for BERT), each cut
    to `max_length` tokens (the longer text first)."""
    encoded = tokenizer(list(firsts), list(seconds), truncation=True, max_length=max_length)
    return {key: [list(row) for row in encoded[key]] for key in encoded}


def new_choice_model(
    encoder_path: str, settings_overrides: dict[str, Any]
) -> tuple[ChoiceModel, Any]:
    """A fresh classifier on a pretrained encoder (a folder or a Hub id); (model, tokenizer)."""
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(encoder_path)
    encoder = AutoModel.from_pretrained(encoder_path)
    settings = ChoiceSettings(hidden_size=int(encoder.config.hidden_size), **settings_overrides)
    return ChoiceModel(encoder, settings), tokenizer


def save_choice_model(model: ChoiceModel, tokenizer: Any, folder: str | Path) -> None:
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model.encoder.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    save_file(
        {k: v.detach().cpu().contiguous() for k, v in model.head.state_dict().items()},
        str(folder / HEAD_FILE),
    )
    (folder / CONFIG_FILE).write_text(
        json.dumps(asdict(model.settings), indent=2) + "\n", encoding="utf-8"
    )


def load_choice_model(folder: str | Path, device: str = "cpu") -> tuple[ChoiceModel, Any]:
    """A saved classifier in eval mode on `device`; (model, tokenizer)."""
    from safetensors.torch import load_file
    from transformers import AutoModel, AutoTokenizer

    folder = Path(folder)
    config_path = folder / CONFIG_FILE
    if not config_path.is_file() or not (folder / HEAD_FILE).is_file():
        raise FileNotFoundError(
            f"{folder} is not an E-KAR classifier folder (needs {CONFIG_FILE} "
            f"and {HEAD_FILE}; make one with lexbench finetune ekar-qa)"
        )
    try:
        settings = ChoiceSettings(**json.loads(config_path.read_text(encoding="utf-8")))
    except (TypeError, json.JSONDecodeError) as error:
        raise ValueError(f"{config_path}: not a valid classifier config ({error})") from None
    model = ChoiceModel(AutoModel.from_pretrained(str(folder)), settings)
    model.head.load_state_dict(load_file(str(folder / HEAD_FILE)))
    model.to(device).eval()
    return model, AutoTokenizer.from_pretrained(str(folder))


def score_choices(
    model: ChoiceModel,
    tokenizer: Any,
    groups: Sequence[tuple[Sequence[str], Sequence[str]]],
    *,
    batch_size: int = 16,
) -> list[list[float]]:
    """Log-softmax scores over the choices of each group (firsts, seconds), batched by
    number of choices (groups may differ in it)."""
    device = next(model.parameters()).device
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    out: list[list[float] | None] = [None] * len(groups)
    by_count: dict[int, list[int]] = {}
    for index, (firsts, _) in enumerate(groups):
        by_count.setdefault(len(firsts), []).append(index)
    with torch.no_grad():
        for positions in by_count.values():
            for start in range(0, len(positions), batch_size):
                chunk = positions[start : start + batch_size]
                encoded = [
                    encode_choices(tokenizer, *groups[i], model.settings.max_length) for i in chunk
                ]
                width = max(len(row) for e in encoded for row in e["input_ids"])
                tensors = {}
                for key in encoded[0]:
                    fill = pad if key == "input_ids" else 0
                    tensors[key] = torch.tensor(
                        [[row + [fill] * (width - len(row)) for row in e[key]] for e in encoded],
                        device=device,
                    )
                scores = torch.log_softmax(model(**tensors)["logits"].float(), dim=-1).tolist()
                for index, row in zip(chunk, scores):
                    out[index] = row
    return [row for row in out if row is not None]
