"""E-KAR with the real SmolLM2-135M on a few fixture items: both QA methods, both modes,
both languages, explanation generation, and resuming from the response cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexbench.benchmarks.ekar.benchmark import load_benchmark
from lexbench.benchmarks.ekar.explain import load_explanation_benchmark
from lexbench.run.evaluate import evaluate

pytestmark = pytest.mark.slow
FIXTURES = Path(__file__).parents[1] / "fixtures" / "ekar"


def strata(folder: str) -> int:
    """How many items `--limit 1` keeps: one per meta-relation of the query."""
    language = "zh" if folder == "chinese" else "en"
    items = load_benchmark(language=language, data=FIXTURES / folder).items()
    return len({item.query_meta_relations[0] for item in items})


def samples_of(evaluation):
    return [json.loads(line) for line in evaluation.folder.samples_path.read_text().splitlines()]


@pytest.mark.parametrize(
    "language, folder, mode", [("en", "english", "hard"), ("zh", "chinese", "easy")]
)
def test_loglikelihood_qa(smollm2, tmp_path, tmp_cache, language, folder, mode):
    benchmark = load_benchmark(language=language, mode=mode, data=FIXTURES / folder, limit=1)
    evaluation = evaluate(benchmark, smollm2, out_root=tmp_path, cache=tmp_cache, progress=False)
    assert evaluation.results["overall"]["n"] == strata(folder)
    for row in samples_of(evaluation):
        for norm, values in row["scores"].items():
            assert len(values) == 4 and all(v < 0 for v in values)
            best = max(range(4), key=lambda i: (values[i], -i))
            assert row["answers"][norm] == "ABCD"[best]
        assert row["answer"] == row["answers"]["per_char"]
        assert row["correct"] == (row["answer"] == row["gold"])
    # Rerunning resumes from the cache: nothing is sent again, the numbers are identical.
    again = evaluate(benchmark, smollm2, out_root=tmp_path, cache=tmp_cache, progress=False)
    assert again.stats.sent == 0 and again.stats.cached == strata(folder)
    assert samples_of(again) == samples_of(evaluation)


def test_generate_qa_both_modes(smollm2, tmp_path):
    for mode in ("hard", "easy"):
        benchmark = load_benchmark(mode=mode, method="generate", data=FIXTURES / "english", limit=1)
        evaluation = evaluate(benchmark, smollm2, out_root=tmp_path, progress=False)
        results = evaluation.results
        assert results["overall"]["n"] == strata("english")
        assert results["unparsed"] + results["accuracy_when_parsed"]["n"] == strata("english")
        for row in samples_of(evaluation):
            assert isinstance(row["output"], str)
            assert (row["answer"] is None) == (row["error_class"] == "unparsed")


def test_explanation_generation(smollm2, tmp_path):
    # Short explanations keep this test quick on a shared CPU; the default is 64 tokens.
    # Chinese: the packaged English MiniLM is refused for similarity, so none is computed.
    benchmark = load_explanation_benchmark(
        data=FIXTURES / "chinese", language="zh", limit=1, max_new_tokens=8, use_similarity=False
    )
    evaluation = evaluate(benchmark, smollm2, out_root=tmp_path, progress=False)
    tables = evaluation.results["explanations"]
    assert evaluation.results["config"]["decoding"]["max_new_tokens"] == 8
    requests = benchmark.requests(benchmark.items()[0])
    assert all(r.decoding.max_new_tokens == 8 for r in requests)
    assert all(r.prompt.count("candidate = ") == 4 for r in requests)  # the paper's input
    n = strata("chinese")
    assert tables["E_Q"]["rouge2_f1"]["n"] == n and tables["E_A"]["rouge2_f1"]["n"] == 4 * n
    assert "similarity" not in tables["E_A"]
    assert 0.0 <= tables["E_A"]["rouge2_f1"]["estimate"] <= 1.0
    assert set(evaluation.results["skipped_metrics"]) == {"bleurt", "moverscore"}
