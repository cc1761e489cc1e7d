"""The training stack every experiment shares: transformers' `Trainer` (peft LoRA adapters:
`finetune.lora`; the settings: `finetune.settings`; the checkpoint folder:
`finetune.checkpoints`).

Nothing here is a training loop. `train_with_trainer` builds `TrainingArguments` from a
`TrainConfig` (the paper's values come from each experiment; every one is overridable),
keeps the checkpoint with the best validation score (`load_best_model_at_end`), resumes
from the last checkpoint in `<output>/checkpoints/` when a run was killed, and shows a
progress bar with the running loss.

* Validation: `Trainer`'s own evaluation (eval loss, or `compute_metrics`), or an
  experiment's score of the live model (`validation_score`, e.g. MRR@10 on BATS
  validation), computed in `ScoredTrainer.evaluate` so checkpoint selection, logging and
  callbacks stay `Trainer`'s.
* Determinism: `seed` seeds the model initialisation, the data order and dropout
  (`Trainer`'s `set_seed` / `enable_full_determinism`); a resumed run restores the RNG
  states `Trainer` saved with the checkpoint, so it ends where an uninterrupted run ends.
* Several GPUs or machines: run the same command under `accelerate launch`; `Trainer`
  picks the distributed set-up from the environment accelerate prepares.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from lexbench.finetune.checkpoints import CHECKPOINTS, guard_checkpoints, last_complete_checkpoint
from lexbench.finetune.settings import TrainConfig


@dataclass
class TrainingOutcome:
    """What a finished training run reports (and the lineage records)."""

    best_metric: str
    best_value: float | None
    best_step: int | None
    global_step: int
    resumed_from: str | None
    history: list[dict[str, Any]] = field(default_factory=list)
    # Under `accelerate launch` only the main process writes the output folder.
    main_process: bool = True

    def best_validation(self) -> dict[str, Any]:
        return {"metric": self.best_metric, "value": self.best_value, "step": self.best_step}

    def train_losses(self) -> list[float]:
        return [float(row["loss"]) for row in self.history if "loss" in row]


def _progress_callback_class() -> type:
    from transformers.trainer_callback import ProgressCallback

    class LossProgress(ProgressCallback):
        """The progress bar shows the latest training loss (and validation score) instead
        of printing every log line."""

        def on_log(
            self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any
        ) -> None:
            if not (state.is_world_process_zero and self.training_bar is not None and logs):
                return
            shown = {
                k: f"{v:.4g}"
                for k, v in logs.items()
                if isinstance(v, float)
                and (k == "loss" or k.startswith("eval_"))
                and k not in ("eval_runtime", "eval_samples_per_second", "eval_steps_per_second")
            }
            if shown:
                self.training_bar.set_postfix(shown, refresh=True)
            if any(k.startswith("eval_") for k in shown):
                self.training_bar.write(
                    f"step {state.global_step}: " + ", ".join(f"{k} {v}" for k, v in shown.items())
                )

    return LossProgress


def _evaluate_at_end_class() -> type:
    from transformers import TrainerCallback

    class EvaluateAtEnd(TrainerCallback):
        """Evaluate (and checkpoint) at the last step too, so the best checkpoint is chosen
        among all the training, not only up to the last multiple of `eval_steps`."""

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            if state.global_step >= state.max_steps and state.global_step % args.eval_steps:
                control.should_evaluate = True
                control.should_save = True
            return control

    return EvaluateAtEnd


def _scored_trainer_class() -> type:
    import torch
    from transformers import Trainer

    class ScoredTrainer(Trainer):
        """`Trainer` whose evaluation is an experiment's score of the live model."""

        def __init__(
            self, *args: Any, validation_score: Callable[[Any], Mapping[str, float]], **kwargs: Any
        ):
            super().__init__(*args, **kwargs)
            self.validation_score = validation_score

        def evaluate(
            self, eval_dataset: Any = None, ignore_keys: Any = None, metric_key_prefix: str = "eval"
        ) -> dict[str, float]:
            model = self.model
            if model is None:
                raise RuntimeError("the trainer has no model to evaluate")
            was_training = model.training
            model.eval()
            with torch.no_grad():
                scores = self.validation_score(model)
            if was_training:
                model.train()
            metrics = {f"{metric_key_prefix}_{k}": float(v) for k, v in scores.items()}
            self.log(metrics)
            self.control = self.callback_handler.on_evaluate(
                self.args, self.state, self.control, metrics
            )
            return metrics

    return ScoredTrainer


def steps_per_epoch(examples: int, config: TrainConfig) -> int:
    """Optimiser steps in one epoch (over every process `accelerate launch` started)."""
    world = max(1, int(os.environ.get("WORLD_SIZE", "1")))
    batches = math.ceil(examples / (config.batch_size * world))
    return max(1, batches // config.gradient_accumulation)


def training_arguments(
    config: TrainConfig,
    checkpoint_dir: Path,
    *,
    train_examples: int,
    metric: str,
    greater_is_better: bool,
    progress: bool,
) -> Any:
    """`TrainingArguments` for one run: evaluation and saving on the same schedule, the
    best checkpoint loaded at the end."""
    from transformers import TrainingArguments

    every = (
        steps_per_epoch(train_examples, config)
        if config.eval_every == "epoch"
        else int(config.eval_every)
    )
    kwargs: dict[str, Any] = {
        "output_dir": str(checkpoint_dir),
        "learning_rate": config.learning_rate,
        "per_device_train_batch_size": config.batch_size,
        "per_device_eval_batch_size": config.eval_batch_size,
        "num_train_epochs": config.epochs,
        "max_steps": config.max_steps,
        "weight_decay": config.weight_decay,
        "warmup_steps": config.warmup_steps,
        "lr_scheduler_type": config.lr_scheduler,
        "optim": config.optimizer,
        "gradient_accumulation_steps": config.gradient_accumulation,
        "eval_strategy": "steps",
        "eval_steps": every,
        "save_strategy": "steps",
        "save_steps": every,
        "save_total_limit": config.save_total_limit,
        "load_best_model_at_end": True,
        "metric_for_best_model": metric,
        "greater_is_better": greater_is_better,
        "logging_strategy": "steps",
        "logging_steps": config.logging_steps,
        "seed": config.seed,
        "data_seed": config.seed,
        "full_determinism": config.deterministic,
        "report_to": "none",
        "disable_tqdm": not progress,
        "dataloader_num_workers": 0,
        "use_cpu": config.device == "cpu",
        "bf16": config.precision == "bf16",
        "fp16": config.precision == "fp16",
        "remove_unused_columns": False,
    }
    return TrainingArguments(**kwargs)


def train_with_trainer(
    *,
    model: Any,
    train_dataset: Any,
    eval_dataset: Any,
    collator: Any,
    config: TrainConfig,
    output: Path,
    run_key: Mapping[str, Any],
    metric: str,
    greater_is_better: bool,
    validation_score: Callable[[Any], Mapping[str, float]] | None = None,
    compute_metrics: Callable[[Any], Mapping[str, float]] | None = None,
    tokenizer: Any = None,
    restart: bool = False,
    progress: bool = True,
) -> tuple[Any, TrainingOutcome]:
    """Train with `Trainer` (resuming from the last checkpoint in `<output>/checkpoints/`
    when there is one) and return (the model with the best checkpoint's weights, outcome)."""
    from transformers import Trainer
    from transformers.trainer_callback import ProgressCallback

    from lexbench.models.hf_threads import prepare_torch

    # Some trainers build their model with transformers directly, not through a lexbench
    # backend: training gets the thread count an evaluation gets (hf_threads; a count the
    # user set, e.g. OMP_NUM_THREADS under torchrun, stands).
    prepare_torch()
    checkpoint_dir = Path(output) / CHECKPOINTS
    guard_checkpoints(checkpoint_dir, run_key, restart)
    args = training_arguments(
        config,
        checkpoint_dir,
        train_examples=len(train_dataset),
        metric=metric,
        greater_is_better=greater_is_better,
        progress=progress,
    )
    common: dict[str, Any] = {
        "model": model,
        "args": args,
        "train_dataset": train_dataset,
        "eval_dataset": eval_dataset,
        "data_collator": collator,
        "processing_class": tokenizer,
    }
    if validation_score is not None:
        trainer = _scored_trainer_class()(validation_score=validation_score, **common)
    else:
        # transformers types the callback as returning a dict; any mapping works.
        trainer = Trainer(compute_metrics=cast(Any, compute_metrics), **common)
    if progress:
        trainer.remove_callback(ProgressCallback)
        trainer.add_callback(_progress_callback_class()())
    trainer.add_callback(_evaluate_at_end_class()())
    last = last_complete_checkpoint(checkpoint_dir)
    if last is not None and trainer.is_world_process_zero():
        print(f"lexbench: resuming from {last}", flush=True)
    trainer.train(resume_from_checkpoint=last)
    state = trainer.state
    outcome = TrainingOutcome(
        best_metric=metric,
        best_value=state.best_metric,
        best_step=getattr(state, "best_global_step", None),
        global_step=state.global_step,
        resumed_from=last,
        history=[dict(row) for row in state.log_history],
        main_process=trainer.is_world_process_zero(),
    )
    return trainer.model, outcome
