"""What a training run is asked for (`TrainConfig`: the optimisation settings, the device,
the precision, LoRA or not), each value checked when the config is made, so a bad one is
one line before any model is loaded."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from lexbench.finetune.lora import LoraSettings

DEVICES = ("auto", "cpu", "cuda", "mps")
PRECISIONS = ("fp32", "bf16", "fp16")


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation settings. `eval_every` is "epoch" or a number of optimiser steps;
    checkpoints are saved at every evaluation (what `load_best_model_at_end` needs)."""

    learning_rate: float
    batch_size: int
    epochs: float
    seed: int
    weight_decay: float = 0.0
    warmup_steps: int = 0
    lr_scheduler: str = "linear"
    optimizer: str = "adamw_torch"
    gradient_accumulation: int = 1
    max_steps: int = -1  # > 0 stops after this many steps (overrides epochs)
    eval_every: str | int = "epoch"
    eval_batch_size: int = 32
    logging_steps: int = 10
    save_total_limit: int = 2
    device: str = "auto"
    precision: str = "fp32"
    deterministic: bool = True
    lora: LoraSettings | None = None

    def __post_init__(self) -> None:
        checks = [
            (self.learning_rate > 0, f"learning rate must be positive, got {self.learning_rate}"),
            (self.batch_size >= 1, f"batch size must be at least 1, got {self.batch_size}"),
            (self.epochs > 0 or self.max_steps > 0, "give epochs > 0 or max steps > 0"),
            (self.gradient_accumulation >= 1, "gradient accumulation must be at least 1"),
            (self.logging_steps >= 1, "logging steps must be at least 1"),
            (self.save_total_limit >= 1, "keep at least one checkpoint"),
            (
                self.precision in PRECISIONS,
                f"unknown precision {self.precision!r}; choose from {', '.join(PRECISIONS)}",
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        if self.eval_every != "epoch" and not (
            isinstance(self.eval_every, int) and self.eval_every >= 1
        ):
            raise ValueError(
                f"eval_every must be 'epoch' or a positive number of steps, got {self.eval_every!r}"
            )
        check_device(self.device)

    def hyperparameters(self) -> dict[str, Any]:
        """What the lineage records (LoRA is recorded apart)."""
        out = asdict(self)
        out.pop("lora")
        return out


def check_device(device: str) -> None:
    """`auto`, `cpu`, `cuda` or `mps`; one GPU of several is chosen with CUDA_VISIBLE_DEVICES
    (Trainer places the model itself, and under `accelerate launch` each process its own)."""
    if device.startswith("cuda:"):
        raise ValueError(
            f"--device {device}: choose the GPU with CUDA_VISIBLE_DEVICES="
            f"{device.split(':', 1)[1]} and pass --device cuda (several GPUs: "
            "accelerate launch, see the README, Fine-tuning experiments)"
        )
    if device not in DEVICES:
        raise ValueError(f"unknown device {device!r}; choose from {', '.join(DEVICES)}")
    if device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("--device cuda: torch sees no CUDA GPU on this machine")
