"""Building E-KAR for a model: question answering (log-likelihood, generation, the static-vector
or the contextual-embedding baseline, chosen from what the model answers unless named) or
explanation generation."""

from __future__ import annotations

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

    if method is None:
        method = (
            "embedding"
            if model.supports("analogy")
            else "loglikelihood"
            if model.supports("loglikelihood")
            else "generate"
        )
    if method != "contextual":
        resolve_model(model, method)  # checks that the model can answer this method
    benchmark = load_benchmark(method=method, **options)
    check_coverage(model, benchmark.items())
    return benchmark
