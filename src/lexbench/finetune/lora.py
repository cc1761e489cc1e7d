"""peft LoRA adapters: their settings, a model wrapped in them for training (the rest of its
weights frozen), and the plain model with them merged back in for saving."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class LoraSettings:
    """peft LoRA adapters (merged into the weights when the model is saved)."""

    r: int = 8
    alpha: int = 16
    dropout: float = 0.05
    target_modules: str = "all-linear"  # or a comma-separated list of module names

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def apply_lora(model: Any, settings: LoraSettings, task_type: str | None) -> Any:
    """Wrap `model` in peft LoRA adapters; the rest of its weights are frozen."""
    try:
        from peft import LoraConfig, get_peft_model
    except ImportError:
        raise ImportError("--lora needs peft: pip install peft") from None
    targets: Any = settings.target_modules
    if targets != "all-linear":
        targets = [name.strip() for name in targets.split(",") if name.strip()]
    config = LoraConfig(
        r=settings.r,
        lora_alpha=settings.alpha,
        lora_dropout=settings.dropout,
        target_modules=targets,
        task_type=task_type,
    )
    return get_peft_model(model, config)


def merge_lora(model: Any) -> Any:
    """The plain model with the adapters merged in (a no-op without peft adapters)."""
    merge = getattr(model, "merge_and_unload", None)
    return merge() if callable(merge) else model
