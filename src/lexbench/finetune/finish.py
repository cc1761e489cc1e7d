"""The end every fine-tuning run shares: once `Trainer` is done, the main process merges the
LoRA adapters into the weights, saves the model and its tokenizer to the output folder, and
writes `lexbench-lineage.json` beside them; every other process of `accelerate launch`
writes nothing. What differs between the trainers (how a model saves itself, which model
kind runs the folder, what the lineage records of data and settings) comes in as data.

    result = finish(trained, tokenizer, outcome, model=TrainedModel(...), output=output,
                    config=config)
    result.lineage["spec"]          # 'hf:/abs/output': the model spec that runs the folder

torch and transformers are never imported here: the model and tokenizer save themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexbench.finetune.lineage import build_lineage, write_lineage
from lexbench.finetune.lora import merge_lora
from lexbench.finetune.settings import TrainConfig
from lexbench.finetune.trainer import TrainingOutcome


@dataclass(frozen=True)
class FinetuneResult:
    """What a fine-tuning run returns: its output folder, how training went, and the lineage
    written there (empty in a process of `accelerate launch` other than the main one)."""

    output: Path
    outcome: TrainingOutcome
    lineage: dict[str, Any]


def save_pretrained(model: Any, tokenizer: Any, folder: Path) -> None:
    """A transformers model and its tokenizer, as `hf:` and `mlm:` load them back."""
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))


@dataclass(frozen=True)
class TrainedModel:
    """What one experiment's lineage says of the model it trained.

    `base_spec` and `fingerprint`: the model it started from (as given, and as its backend
    identifies it); `data` and `hyperparameters`: what it was trained on and how;
    `model_kind`: the lineage's kind (hf, mlm, ekar-classifier, seq2seq); `runs_as`: the
    model-spec prefix that runs the saved folder (`hf:` for a seq2seq generator too);
    `save(model, tokenizer, folder)`: how the merged model writes itself."""

    experiment: str
    base_spec: str
    fingerprint: Mapping[str, Any]
    data: Mapping[str, Any]
    hyperparameters: Mapping[str, Any]
    model_kind: str
    runs_as: str
    split_seed: int | None = None
    save: Callable[[Any, Any, Path], None] = field(default=save_pretrained)


def finish(
    trained: Any,
    tokenizer: Any,
    outcome: TrainingOutcome,
    *,
    model: TrainedModel,
    output: Path,
    config: TrainConfig,
) -> FinetuneResult:
    """Save the trained model (adapters merged) and its lineage to `output`, on the main
    process only; the result says what was written."""
    if not outcome.main_process:  # another process of `accelerate launch` writes it
        return FinetuneResult(output=output, outcome=outcome, lineage={})
    model.save(merge_lora(trained), tokenizer, output)
    lineage = build_lineage(
        experiment=model.experiment,
        base_model={"spec": model.base_spec, "fingerprint": model.fingerprint},
        data=model.data,
        split_seed=model.split_seed,
        hyperparameters=model.hyperparameters,
        best_validation=outcome.best_validation(),
        history=outcome.history,
        model_kind=model.model_kind,
        lora=config.lora.to_dict() if config.lora else None,
        extra={
            "spec": f"{model.runs_as}:{output.resolve()}",
            "global_step": outcome.global_step,
            "resumed_from": outcome.resumed_from,
        },
    )
    write_lineage(output, lineage)
    return FinetuneResult(output=output, outcome=outcome, lineage=lineage)
