"""SCAN's "training set effects": fine-tune a causal or masked LM on BATS in the analogy
template, keep the checkpoint with the best BATS-validation MRR@10.

Paper (Czinczoll et al. 2022, §5): BATS split 70/15/15 so each word pair is in one split
(`bats_split.paper_split`), AdamW, learning rate 5e-5, batch size 16, 4 epochs, the version
with the best validation score kept. Details the paper leaves open follow its code
(taczin/SCAN_analogies): a training example is the template "If a is like b, then c is
like d." cut at d with d's *first token* as the answer (what SCAN scores); the loss covers
every token of that sequence (`loss_on="sequence"`; `"answer"` scores the answer token
only); AdamW's default weight decay, a constant learning rate; validation every 1,000
steps (and at the end). Differences are listed in the README, Fine-tuning experiments.

Causal LM: `prompt_ids + [first token of " d"]`, labels the same ids (`Trainer` shifts).
Masked LM: "If a is like b, then c is like [MASK]." with the mask labelled by d's first
token (and, with `sequence`, every other token by itself, as the paper's code does).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from lexbench.benchmarks.analogies.sets import Analogy, sentence
from lexbench.benchmarks.scan.bats_split import (
    PAPER_SPLIT_SEED,
    BatsSplit,
    locate_bats_data,
    paper_split,
    read_relations,
)
from lexbench.finetune.finish import FinetuneResult, TrainedModel, finish
from lexbench.finetune.lineage import json_sha256, path_sha256
from lexbench.finetune.settings import TrainConfig
from lexbench.finetune.trainer import train_with_trainer

EXPERIMENT = "scan-bats"
LOSS_TARGETS = ("sequence", "answer")
TOP_K = 10
_SLOT = "\u0000"


def paper_config(**overrides: Any) -> TrainConfig:
    """The SCAN paper's settings, with overrides. What the paper leaves open follows its
    code: `torch.optim.AdamW` with its default weight decay (0.01), a constant learning
    rate, validation every 1,000 batches."""
    base = TrainConfig(
        learning_rate=5e-5,
        batch_size=16,
        epochs=4,
        seed=PAPER_SPLIT_SEED,
        optimizer="adamw_torch",
        weight_decay=0.01,
        lr_scheduler="constant",
        eval_every=1000,
    )
    return replace(base, **{k: v for k, v in overrides.items() if v is not None})


def template_parts(a: str, b: str, c: str) -> tuple[str, str]:
    """("If a is like b, then c is like", ".") from the shared SCAN template, so training
    and evaluation can never drift apart."""
    whole = sentence(a, b, c, _SLOT)
    prompt, suffix = whole.split(" " + _SLOT, 1)
    return prompt, suffix


# ------------------------------------------------------------------------------ examples


def _first_id(tokenizer: Any, word: str) -> int:
    from lexbench.models.targets import first_token_id

    return first_token_id(tokenizer, word)


def causal_example(tokenizer: Any, item: Analogy, loss_on: str) -> dict[str, list[int]]:
    """Token ids of the prompt (as the hf backend encodes it) plus d's first token."""
    prompt, _ = template_parts(item.a, item.b, item.c)
    ids = [
        *list(tokenizer(prompt, add_special_tokens=True)["input_ids"]),
        _first_id(tokenizer, item.d),
    ]
    labels = list(ids) if loss_on == "sequence" else [-100] * (len(ids) - 1) + [ids[-1]]
    return {"input_ids": ids, "attention_mask": [1] * len(ids), "labels": labels}


def masked_prompt(tokenizer: Any, item: Analogy) -> str:
    prompt, suffix = template_parts(item.a, item.b, item.c)
    return f"{prompt} {tokenizer.mask_token}{suffix}"


def masked_example(tokenizer: Any, item: Analogy, loss_on: str) -> dict[str, list[int]]:
    """The masked template with the mask labelled by d's first token."""
    ids = list(tokenizer(masked_prompt(tokenizer, item), add_special_tokens=True)["input_ids"])
    if ids.count(tokenizer.mask_token_id) != 1:
        raise ValueError(f"{item.id}: the mask did not survive tokenisation")
    position = ids.index(tokenizer.mask_token_id)
    labels = list(ids) if loss_on == "sequence" else [-100] * len(ids)
    labels[position] = _first_id(tokenizer, item.d)
    return {"input_ids": ids, "attention_mask": [1] * len(ids), "labels": labels}


class ListDataset:
    """A list of tokenised examples as a map-style dataset (`Trainer` takes any)."""

    def __init__(self, rows: Sequence[Mapping[str, Any]]):
        self.rows = list(rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> Mapping[str, Any]:
        return self.rows[index]


# ------------------------------------------------------------------------------ validation


def rank_first_tokens(
    model: Any, tokenizer: Any, items: Sequence[Analogy], regime: str, *, batch_size: int = 32
) -> list[float]:
    """Reciprocal rank (top 10, 0 beyond) of each item's first accepted answer, computed on
    the live torch model exactly as the hf/mlm backends rank: the last prompt position
    (causal) or the mask (masked), answers matched by the first token id of " " + word."""
    import torch

    device = next(model.parameters()).device
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    out: list[float] = []
    for start in range(0, len(items), batch_size):
        batch = items[start : start + batch_size]
        if regime == "causal":
            encoded = [
                list(
                    tokenizer(template_parts(i.a, i.b, i.c)[0], add_special_tokens=True)[
                        "input_ids"
                    ]
                )
                for i in batch
            ]
            positions = [len(e) - 1 for e in encoded]
        else:
            encoded = [
                list(tokenizer(masked_prompt(tokenizer, i), add_special_tokens=True)["input_ids"])
                for i in batch
            ]
            positions = [e.index(tokenizer.mask_token_id) for e in encoded]
        width = max(len(e) for e in encoded)
        ids = torch.full((len(batch), width), pad, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for row, sequence in enumerate(encoded):
            ids[row, : len(sequence)] = torch.tensor(sequence)
            mask[row, : len(sequence)] = 1
        logits = model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits
        picked = logits[
            torch.arange(len(batch), device=logits.device),
            torch.tensor(positions, device=logits.device),
        ]
        top = torch.topk(picked.float(), k=TOP_K, dim=-1).indices.tolist()
        for item, ranked in zip(batch, top):
            wanted = {_first_id(tokenizer, word) for word in item.accepted}
            rank = next((r for r, token in enumerate(ranked, 1) if token in wanted), None)
            out.append(1.0 / rank if rank else 0.0)
    return out


def validation_scorer(
    tokenizer: Any, items: Sequence[Analogy], regime: str, batch_size: int
) -> Any:
    def score(model: Any) -> dict[str, float]:
        ranks = rank_first_tokens(model, tokenizer, items, regime, batch_size=batch_size)
        return {
            "mrr": sum(ranks) / len(ranks),
            "acc_at_1": sum(r == 1.0 for r in ranks) / len(ranks),
        }

    return score


def limit_items(items: Sequence[Analogy], limit: int | None, seed: int) -> list[Analogy]:
    """At most `limit` items, drawn with a seeded RNG from the id-sorted list (all if None)."""
    if limit is None or limit >= len(items):
        return list(items)
    ordered = sorted(items, key=lambda i: i.id)
    chosen = {i.id for i in random.Random(f"limit:{seed}").sample(ordered, limit)}
    return [i for i in items if i.id in chosen]


# ------------------------------------------------------------------------------ the run


def load_base(spec: str) -> tuple[Any, str]:
    """The base model through lexbench's own backends (so its fingerprint is the one runs
    record), on the CPU until `Trainer` places it; returns (backend, regime)."""
    from lexbench.models.hf import HFCausalLM
    from lexbench.models.mlm import MaskedLM
    from lexbench.models.registry import load_model

    backend = load_model(spec, {"device": "cpu"})
    if isinstance(backend, HFCausalLM):
        return backend, "causal"
    if isinstance(backend, MaskedLM):
        return backend, "masked"
    backend.close()
    raise ValueError(
        f"scan-bats fine-tunes transformers language models: give a causal LM "
        f"(smollm2-135m, hf:PATH|HUB_ID) or a masked LM (mlm:PATH|HUB_ID), not {spec!r}"
    )


def finetune_scan_bats(
    model: str,
    *,
    data: str | Path | None = None,
    output: str | Path,
    config: TrainConfig | None = None,
    split_seed: int = PAPER_SPLIT_SEED,
    loss_on: str = "sequence",
    validation_limit: int | None = None,
    train_limit: int | None = None,
    restart: bool = False,
    progress: bool = True,
) -> FinetuneResult:
    """Fine-tune `model` on the BATS training split; write the best-validation model, its
    tokenizer and `lexbench-lineage.json` to `output` (a folder `hf:`/`mlm:` can run)."""
    if loss_on not in LOSS_TARGETS:
        raise ValueError(f"unknown loss target {loss_on!r}; choose from {', '.join(LOSS_TARGETS)}")
    config = config or paper_config()
    output = Path(output)
    source = locate_bats_data(data)
    split: BatsSplit = paper_split(read_relations(source), split_seed)
    train_items = limit_items(split.analogies["train"], train_limit, config.seed)
    validation_items = limit_items(split.analogies["validation"], validation_limit, config.seed)
    if not train_items or not validation_items:
        raise ValueError(
            f"{source}: the split leaves no training or no validation analogies "
            f"({split.counts()}); a relation needs about 12 pairs or more"
        )
    backend, regime = load_base(model)
    tokenizer, network = backend.tokenizer, backend.model
    fingerprint = backend.fingerprint()
    tokenizer.padding_side = "right"
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    build = causal_example if regime == "causal" else masked_example
    train_rows = ListDataset([build(tokenizer, item, loss_on) for item in train_items])
    validation_rows = ListDataset([build(tokenizer, item, loss_on) for item in validation_items])
    if config.lora is not None:
        from lexbench.finetune.lora import apply_lora

        network = apply_lora(network, config.lora, "CAUSAL_LM" if regime == "causal" else None)
    from transformers import DataCollatorForSeq2Seq

    data_info = {
        "source": str(source),
        "sha256": path_sha256(source),
        "split_sha256": json_sha256(split.to_dict()),
        "split": "paper (70/15/15 by pair)",
        "counts": split.counts(),
        "train_items": len(train_items),
        "validation_items": len(validation_items),
        "train_limit": train_limit,
        "validation_limit": validation_limit,
    }
    hyper = {
        **config.hyperparameters(),
        "loss_on": loss_on,
        "regime": regime,
        "template": sentence("A", "B", "C", "D"),
        "answer": "first token of ' ' + d",
    }
    run_key = {
        "experiment": EXPERIMENT,
        "base": fingerprint,
        "data": data_info["split_sha256"],
        "train_items": len(train_items),
        "hyperparameters": hyper,
        "lora": config.lora.to_dict() if config.lora else None,
    }
    trained, outcome = train_with_trainer(
        model=network,
        train_dataset=train_rows,
        eval_dataset=validation_rows,
        collator=DataCollatorForSeq2Seq(tokenizer, padding=True, label_pad_token_id=-100),
        config=config,
        output=output,
        run_key=run_key,
        metric="mrr",
        greater_is_better=True,
        validation_score=validation_scorer(
            tokenizer, validation_items, regime, config.eval_batch_size
        ),
        tokenizer=tokenizer,
        restart=restart,
        progress=progress,
    )
    kind = "hf" if regime == "causal" else "mlm"
    record = TrainedModel(
        experiment=EXPERIMENT,
        base_spec=model,
        fingerprint=fingerprint,
        data=data_info,
        split_seed=split_seed,
        hyperparameters=hyper,
        model_kind=kind,
        runs_as=kind,
    )
    result = finish(trained, tokenizer, outcome, model=record, output=output, config=config)
    backend.close()
    return result
