"""Building E-KAR for a model: question answering (log-likelihood, generation, the static-vector
or the contextual-embedding baseline, chosen from what the model answers unless named) or
explanation generation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexbench.models.base import Model


def build_ekar(model: Model, *, task: str = "qa", method: str | None = None, **options: Any) -> Any:
    """E-KAR question answering (`task="qa"`: log-likelihood, generation or the embedding
    baseline, chosen from what the model answers unless named) or explanation generation
    (`task="explain"`)."""
    if task == "explain":
        from lexbench.benchmarks.ekar.explain import load_explanation_benchmark

        if not model.supports("generate"):
            raise ValueError(
                f"explanation generation needs a text-generating model; "
                f"{model.name} does not generate"
            )
        return load_explanation_benchmark(**options)
    if task != "qa":
        raise ValueError(f"unknown E-KAR task {task!r}; choose qa or explain")
    from lexbench.benchmarks.ekar.benchmark import load_benchmark
    from lexbench.benchmarks.ekar.embedding import check_coverage, resolve_model

    method = qa_method(model, method)
    if method != "contextual":
        resolve_model(model, method)  # checks that the model can answer this method
    else:
        from lexbench.benchmarks.ekar.contextual import check_encoder_language

        check_encoder_language(model, str(options.get("language", "en")))
    benchmark = load_benchmark(method=method, **options)
    check_coverage(model, benchmark.items())
    return benchmark


def qa_method(model: Model, method: str | None) -> str:
    """The question-answering method a model runs: the one named, or what the model
    answers (word vectors: the embedding baseline; a model that scores continuations:
    log-likelihood; one that only writes text: generation)."""
    if method is not None:
        return method
    if model.supports("analogy"):
        return "embedding"
    return "loglikelihood" if model.supports("loglikelihood") else "generate"


def cannot_honour(options: Mapping[str, Any], model: Model) -> dict[str, str]:
    """Chat prompts wrap generated text: explanations and the generation method take them;
    the log-likelihood and embedding methods score, and have no text to wrap."""
    from lexbench.contract import CHAT

    if options.get("task", "qa") == "explain":
        return {}
    method = qa_method(model, options.get("method"))
    if method == "generate":
        return {}
    return {CHAT: f"E-KAR's {method} method scores the choices and generates no text"}
