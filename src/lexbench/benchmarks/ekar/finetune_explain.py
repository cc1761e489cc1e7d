"""E-KAR's explanation generator (§5.2): a language model fine-tuned to write E_Q and E_A.

Input: Appendix A.1's EG prompt, the one the E-KAR explanation benchmark builds
(`ekar_explain.explanation_prompt(..., "paper")`): "query = t1 : t2 </s> (query explanation
= E_Q </s>) candidate = ... </s> generate the explanation of Q|A|B|C|D". HARD mode trains
five targets per problem (E_Q and the four E_A), EASY mode the four E_A with the gold E_Q in
the input. Target: the gold explanation.

* Seq2seq models (BART, T5: the paper's) learn input -> explanation.
* Causal LMs (SmolLM2 offline) learn prompt + "\\n" + explanation + EOS, the loss on the
  explanation only; the saved folder then answers `lexbench run ekar --task explain
  --prompt-format paper --model hf:DIR` (the benchmark keeps the first generated line).

Hyperparameters: transformers' defaults, as the paper (learning rate 5e-5, batch size 8,
3 epochs, seed 42), the checkpoint with the lowest validation loss kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lexbench.benchmarks.ekar.explain_prompts import EXPLANATION_MAX_NEW_TOKENS
from lexbench.finetune.finish import FinetuneResult, TrainedModel, finish
from lexbench.finetune.lineage import weights_sha256
from lexbench.finetune.settings import TrainConfig
from lexbench.finetune.trainer import train_with_trainer

EXPERIMENT = "ekar-explain"
SEPARATOR = "\n"


def paper_config(**overrides: Any) -> TrainConfig:
    base = TrainConfig(
        learning_rate=5e-5,
        batch_size=8,
        epochs=3,
        seed=42,
        optimizer="adamw_torch",
        eval_every="epoch",
    )
    return replace(base, **{k: v for k, v in overrides.items() if v is not None})


def targets_of(mode: str) -> tuple[str, ...]:
    """Which explanations are generated: E_Q (HARD only) then E_A for A-D."""
    if mode not in ("hard", "easy"):
        raise ValueError(f"unknown mode {mode!r}; choose hard or easy")
    return (("Q",) if mode == "hard" else ()) + ("A", "B", "C", "D")


def examples(items: Sequence[Any], mode: str) -> list[tuple[str, str, str, str]]:
    """(item id, target, prompt, gold explanation) for every target of every item."""
    from lexbench.benchmarks.ekar.explain_prompts import explanation_prompt

    out = []
    for item in items:
        if len(item.explanations) != 5:
            raise ValueError(
                f"item {item.id} has no gold explanations to learn from (a blind "
                "split?); use train or validation"
            )
        for target in targets_of(mode):
            index = 0 if target == "Q" else 1 + item.labels.index(target)
            out.append(
                (
                    item.id,
                    target,
                    explanation_prompt(item, target, mode, "paper"),
                    item.explanations[index],
                )
            )
    return out


# ------------------------------------------------------------------------------ models


@dataclass
class Generator:
    """A generator model and its tokenizer; `seq2seq` says which kind."""

    model: Any
    tokenizer: Any
    seq2seq: bool
    fingerprint: dict[str, Any]


def is_seq2seq(path: str) -> bool:
    from transformers import AutoConfig

    return bool(getattr(AutoConfig.from_pretrained(path), "is_encoder_decoder", False))


def load_generator(spec: str, *, for_training: bool) -> Generator:
    """A causal LM through lexbench's hf backend (smollm2-135m, hf:PATH|HUB_ID), or a
    seq2seq model (hf:PATH|HUB_ID whose config is encoder-decoder)."""
    name = spec.split(":", 1)[1] if spec.startswith("hf:") else spec
    path = Path(name).expanduser()
    local = path.is_dir()
    if (
        (local or "/" in name)
        and name not in ("smollm2-135m", "smollm2")
        and is_seq2seq(str(path) if local else name)
    ):
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        source = str(path) if local else name
        model = AutoModelForSeq2SeqLM.from_pretrained(source)
        if not for_training:
            model.eval()
        fingerprint = {
            "backend": "seq2seq",
            "model": str(path.resolve()) if local else name,
            "weights_sha256": weights_sha256(path) if local else None,
        }
        return Generator(model, AutoTokenizer.from_pretrained(source), True, fingerprint)
    from lexbench.models.hf import HFCausalLM
    from lexbench.models.registry import load_model

    backend = load_model(spec, {"device": "cpu"})
    if not isinstance(backend, HFCausalLM):
        backend.close()
        raise ValueError(
            f"an explanation generator is a causal LM (smollm2-135m, hf:...) or a "
            f"seq2seq model (hf:PATH of a BART/T5), not {spec!r}"
        )
    return Generator(backend.model, backend.tokenizer, False, backend.fingerprint())


def causal_row(tokenizer: Any, prompt: str, target: str) -> dict[str, list[int]]:
    head = list(tokenizer(prompt + SEPARATOR, add_special_tokens=True)["input_ids"])
    tail = [*list(tokenizer(target, add_special_tokens=False)["input_ids"]), tokenizer.eos_token_id]
    return {
        "input_ids": head + tail,
        "attention_mask": [1] * (len(head) + len(tail)),
        "labels": [-100] * len(head) + tail,
    }


def seq2seq_row(tokenizer: Any, prompt: str, target: str, max_length: int) -> dict[str, list[int]]:
    encoded = tokenizer(prompt, text_target=target, truncation=True, max_length=max_length)
    return {k: list(v) for k, v in encoded.items()}


def training_rows(
    generator: Generator, rows: Sequence[tuple[str, str, str, str]], max_length: int
) -> list[dict[str, list[int]]]:
    out = []
    for _, _, prompt, target in rows:
        if generator.seq2seq:
            out.append(seq2seq_row(generator.tokenizer, prompt, target, max_length))
        else:
            row = causal_row(generator.tokenizer, prompt, target)
            out.append({k: v[-max_length:] for k, v in row.items()})
    return out


def generate_explanations(
    generator: Generator,
    prompts: Sequence[str],
    *,
    max_new_tokens: int = EXPLANATION_MAX_NEW_TOKENS,
    batch_size: int = 8,
) -> list[str]:
    """Greedy explanations, first non-empty line of each output (as the benchmark keeps)."""
    import torch

    from lexbench.benchmarks.ekar.explain_prompts import first_line

    tokenizer, model = generator.tokenizer, generator.model
    model.eval()
    device = next(model.parameters()).device
    tokenizer.padding_side = "right" if generator.seq2seq else "left"
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    texts = list(prompts) if generator.seq2seq else [p + SEPARATOR for p in prompts]
    out: list[str] = []
    with torch.no_grad():
        for start in range(0, len(texts), batch_size):
            batch = tokenizer(
                texts[start : start + batch_size],
                return_tensors="pt",
                padding=True,
                add_special_tokens=True,
            ).to(device)
            batch.pop("token_type_ids", None)  # BERT-style tokenizers add it; generate refuses it
            generated = model.generate(
                **batch,
                max_new_tokens=max_new_tokens,
                do_sample=False,
                pad_token_id=tokenizer.pad_token_id,
            )
            if not generator.seq2seq:
                generated = generated[:, batch["input_ids"].shape[1] :]
            out += [
                first_line(t) for t in tokenizer.batch_decode(generated, skip_special_tokens=True)
            ]
    return out


# ------------------------------------------------------------------------------ the run


def finetune_ekar_explain(
    model: str,
    *,
    output: str | Path,
    data: str | Path | None = None,
    language: str = "en",
    mode: str = "hard",
    train_split: str = "train",
    eval_split: str = "validation",
    revision: str = "v1.1",
    config: TrainConfig | None = None,
    max_length: int = 512,
    restart: bool = False,
    progress: bool = True,
) -> FinetuneResult:
    """Fine-tune an explanation generator; save it with its tokenizer and lineage."""
    from transformers import DataCollatorForSeq2Seq

    from lexbench.benchmarks.ekar.splits import load_split, training_data

    config = config or paper_config()
    output = Path(output)
    train = load_split(language, train_split, data=data, revision=revision)
    evaluation = load_split(language, eval_split, data=data, revision=revision)
    generator = load_generator(model, for_training=True)
    tokenizer = generator.tokenizer
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "right"
    train_rows = training_rows(generator, examples(train.items, mode), max_length)
    eval_rows = training_rows(generator, examples(evaluation.items, mode), max_length)
    network = generator.model
    if config.lora is not None:
        from lexbench.finetune.lora import apply_lora

        network = apply_lora(
            network, config.lora, "SEQ_2_SEQ_LM" if generator.seq2seq else "CAUSAL_LM"
        )
    data_info = training_data(
        data,
        language,
        revision,
        "examples",
        train=(train_split, train, len(train_rows)),
        validation=(eval_split, evaluation, len(eval_rows)),
    )
    hyper = {
        **config.hyperparameters(),
        "mode": mode,
        "max_length": max_length,
        "prompt": "E-KAR Appendix A.1 (paper format)",
        "seq2seq": generator.seq2seq,
    }
    run_key = {
        "experiment": EXPERIMENT,
        "base": generator.fingerprint,
        "data": data_info,
        "hyperparameters": hyper,
        "lora": config.lora.to_dict() if config.lora else None,
    }
    collator = DataCollatorForSeq2Seq(
        tokenizer,
        model=network if generator.seq2seq else None,
        padding=True,
        label_pad_token_id=-100,
    )
    trained, outcome = train_with_trainer(
        model=network,
        train_dataset=train_rows,
        eval_dataset=eval_rows,
        collator=collator,
        config=config,
        output=output,
        run_key=run_key,
        metric="loss",
        greater_is_better=False,
        tokenizer=tokenizer,
        restart=restart,
        progress=progress,
    )
    record = TrainedModel(
        experiment=EXPERIMENT,
        base_spec=model,
        fingerprint=generator.fingerprint,
        data=data_info,
        hyperparameters=hyper,
        model_kind="seq2seq" if generator.seq2seq else "hf",
        runs_as="hf",
    )
    return finish(trained, tokenizer, outcome, model=record, output=output, config=config)
