"""Sampled LAMBDA runs (the paper's robustness check at temperature 0.1 and 0.2): one cached
request per seed, per-sample accuracy, mean and SD across samples."""

import pytest

from lexbench.benchmarks.lambda_.benchmark import LambdaBenchmark, rescore
from lexbench.benchmarks.lambda_.items import LambdaConfig, generate_items
from lexbench.benchmarks.lambda_.prompts import Sampling, decoding_for
from lexbench.run.evaluate import evaluate
from lexbench.run.store import read_run
from mock_model import ScriptedModel


@pytest.fixture(scope="module")
def items(wordnet_index):
    return generate_items(wordnet_index, LambdaConfig(per_relation=4))


def _seeded(items):
    """Right when seed + item number is even: samples differ, and deterministically."""
    by_id = {i.id: i for i in items}

    def reply(request):
        item = by_id[request.id.split("@")[0]]
        right = (request.decoding.seed + int(item.id[-4:])) % 2 == 0
        return f" {item.gold}" if right else f" {item.query}"

    return reply


def test_each_sample_is_its_own_seeded_request(items, wordnet_index, tmp_path, tmp_cache):
    bench = LambdaBenchmark(
        dataset=items, index=wordnet_index, temperature=0.2, sampling_seed=10, samples=3
    )
    requests = bench.requests(items[0])
    assert [r.decoding.seed for r in requests] == [10, 11, 12]
    assert all(r.decoding.temperature == 0.2 and r.decoding.max_new_tokens == 2 for r in requests)
    assert len({r.id for r in requests}) == 3
    model = ScriptedModel(_seeded(items))
    run = evaluate(bench, model, out_root=tmp_path, cache=tmp_cache, progress=False)
    assert len(model.sent) == 36  # 12 items x 3 seeds, all sent
    sampling = run.results["sampling"]
    accuracies = [s["overall"]["accuracy"] for s in sampling["per_sample"]]
    assert [s["seed"] for s in sampling["per_sample"]] == [10, 11, 12]
    assert accuracies == [0.5, 0.5, 0.5]  # even/odd item numbers alternate
    assert sampling["overall"]["mean"] == 0.5 and sampling["overall"]["sd"] == 0.0
    assert sampling["temperature"] == 0.2 and sampling["seeds"] == [10, 11, 12]
    # The main tables are the first sample's.
    assert run.results["overall"]["accuracy"] == accuracies[0]
    assert "## Sampling" in run.report and "| 12 |" in run.report
    config, samples, _ = read_run(run.folder.path)
    assert config["benchmark"]["sampling"]["seeds"] == [10, 11, 12]
    assert [s["seed"] for s in samples[0]["samples"]] == [10, 11, 12]
    # Cached per seed: the same run sends nothing; one more seed sends only that one.
    again = ScriptedModel(_seeded(items))
    evaluate(bench, again, out_root=tmp_path, cache=tmp_cache, progress=False)
    assert again.sent == []
    more = ScriptedModel(_seeded(items))
    evaluate(
        LambdaBenchmark(
            dataset=items, index=wordnet_index, temperature=0.2, sampling_seed=10, samples=4
        ),
        more,
        out_root=tmp_path,
        cache=tmp_cache,
        progress=False,
    )
    assert {r.decoding.seed for r in more.sent} == {13} and len(more.sent) == 12
    # Re-scoring the rows gives the same per-sample verdicts.
    again_scores = rescore(samples, wordnet_index)
    assert [s.details["samples"] for s in again_scores] == [
        [
            {k: v for k, v in x.items() if k in ("seed", "answer", "correct", "error_class")}
            for x in row["samples"]
        ]
        for row in samples
    ]


def test_sd_across_samples(items, wordnet_index, tmp_path):
    by_id = {i.id: i for i in items}

    def reply(request):  # seed 0 always right, seed 1 always wrong
        item = by_id[request.id.split("@")[0]]
        return f" {item.gold}" if request.decoding.seed == 0 else " zzzz"

    bench = LambdaBenchmark(dataset=items, index=wordnet_index, temperature=0.1, samples=2)
    run = evaluate(bench, ScriptedModel(reply), out_root=tmp_path, cache=None, progress=False)
    spread = run.results["sampling"]["overall"]
    assert (spread["mean"], spread["range"]) == (0.5, 1.0)
    assert spread["sd"] == pytest.approx(2**0.5 / 2)


def test_greedy_runs_are_unchanged_and_bad_options_fail(items, wordnet_index):
    greedy = LambdaBenchmark(dataset=items, index=wordnet_index)
    assert "sampling" not in greedy.config()
    request = greedy.requests(items[0])[0]
    assert request.id == items[0].id and request.decoding == decoding_for("paper")
    assert request.decoding.seed is None and request.decoding.greedy
    with pytest.raises(ValueError, match="temperature > 0"):
        Sampling(samples=3)
    with pytest.raises(ValueError, match="temperature > 0"):
        Sampling(top_p=0.9)
    with pytest.raises(ValueError, match="top_p"):
        Sampling(temperature=0.1, top_p=0.0)
    with pytest.raises(ValueError, match="temperature must be"):
        Sampling(temperature=-1)
