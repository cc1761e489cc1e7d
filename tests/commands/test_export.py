"""Exports: a Hugging Face parquet dataset with its card, and an lm-evaluation-harness task."""

import json
from pathlib import Path

import pytest

from lexbench.benchmarks.lambda_.export import write_lambda_hf_dataset, write_lm_eval_lambda_task
from lexbench.benchmarks.lambda_.items import LambdaConfig, dumps_items, generate_items, manifest

EKAR = Path(__file__).resolve().parents[1] / "fixtures" / "ekar" / "english"


@pytest.fixture(scope="module")
def exported_items(wordnet_index):
    config = LambdaConfig(per_relation=4)
    items = generate_items(wordnet_index, config)
    return items, manifest(items, config, wordnet_index, dumps_items(items))


def test_hf_dataset_loads_with_datasets(exported_items, tmp_path):
    import datasets  # installed by `make test` (the `harness` extra)

    items, meta = exported_items
    out = write_lambda_hf_dataset(tmp_path / "lambda-hf", items, meta)
    loaded = datasets.load_dataset(
        "parquet",
        data_files=str(out / "data" / "test.parquet"),
        cache_dir=str(tmp_path / "hf-cache"),
    )["train"]
    assert loaded.num_rows == 12
    assert loaded[0]["id"] == items[0].id
    assert loaded[0]["candidates"] == list(items[0].candidates)
    assert loaded[0]["prompt"].endswith(
        f"{items[0].query} : ?\nAnswer with exactly one word that "
        "completes the last line. Do not explain.\n"
    )
    card = (out / "README.md").read_text()
    assert card.startswith("---\nconfigs:")
    assert meta["content_sha256"] in card and '"wordnet_version": "3.0"' in card
    # The folder itself loads too, through the card's YAML header.
    # (a private cache_dir: `datasets` reuses cached folders by name, across test sessions)
    assert (
        datasets.load_dataset(str(out), cache_dir=str(tmp_path / "hf-cache"))["test"].num_rows == 12
    )


def test_lm_eval_task_files(wordnet_index, tmp_path):
    """The task runs LAMBDA as lexbench does (greedy, 2 new tokens, the same prompt), its YAML
    holds no path, and its utils.py scores through lexbench's scorer (membership in R(E))."""
    import importlib.util

    import pyarrow.parquet as pq

    out = write_lm_eval_lambda_task(tmp_path / "task", {"per_relation": 4})
    yaml = (out / "lexbench_lambda.yaml").read_text()
    assert "max_gen_toks: 2" in yaml and "output_type: generate_until" in yaml
    assert str(tmp_path) not in yaml
    spec = importlib.util.spec_from_file_location("lexbench_lambda_utils", out / "utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    row = pq.read_table(out / "data" / "test.parquet").to_pylist()[0]
    item = json.loads(row["item"])
    assert utils.process_results(row, [" " + item["gold"].capitalize() + "."]) == {"acc": 1.0}
    assert utils.process_results(row, [" " + item["query"]]) == {"acc": 0.0}
    with pytest.raises(ValueError, match="stop-at-first-whole-word"):
        write_lm_eval_lambda_task(tmp_path / "word", {"per_relation": 1, "protocol": "word"})


@pytest.mark.slow
def test_exported_task_runs_in_lm_eval_with_lexbench_accuracy(
    exported_items, smollm2, wordnet_index, tmp_path
):
    import lm_eval  # installed by `make test` (the `harness` extra)
    from lm_eval.tasks import TaskManager

    from lexbench.benchmarks.lambda_.benchmark import LambdaBenchmark
    from lexbench.export.tool_runs import transformers_folder
    from lexbench.run.evaluate import evaluate
    from lexbench.run.store import read_run

    items, _ = exported_items
    out = write_lm_eval_lambda_task(
        tmp_path / "task", {"per_relation": 4, "prompt_style": "completion"}
    )
    folder = transformers_folder("smollm2-135m")
    harness = lm_eval.simple_evaluate(
        model="hf",
        model_args=f"pretrained={folder},dtype=float32",
        tasks=["lexbench_lambda"],
        task_manager=TaskManager(include_path=str(out), include_defaults=False),
        batch_size=16,
        device="cpu",
        log_samples=True,
    )
    theirs = {s["doc"]["id"]: s["resps"][0][0] for s in harness["samples"]["lexbench_lambda"]}

    run = evaluate(
        LambdaBenchmark(dataset=items, index=wordnet_index, prompt_style="completion"),
        smollm2,
        out_root=tmp_path / "runs",
        cache=None,
        progress=False,
    )
    _, samples, _ = read_run(run.folder.path)
    ours = {s["id"]: s["output"] for s in samples}
    assert ours == theirs, json.dumps(
        {k: (ours[k], theirs[k]) for k in ours if ours[k] != theirs[k]}
    )
    assert harness["results"]["lexbench_lambda"]["acc,none"] == pytest.approx(
        run.results["overall"]["accuracy"]
    )


def test_setlexsem_export_loads_with_datasets(tmp_path):
    import datasets

    from lexbench.benchmarks.setlexsem.benchmark import read_items, write_items
    from lexbench.benchmarks.setlexsem.export import write_setlexsem_hf_dataset

    meta = write_items(tmp_path / "items.jsonl", "small")
    items = read_items(tmp_path / "items.jsonl")
    out = write_setlexsem_hf_dataset(tmp_path / "setlexsem-hf", items, meta)
    loaded = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "hf-cache"))["test"]
    assert loaded.num_rows == len(items) == meta["prompts"]
    # numbers and words share the member columns as strings; token_type tells them apart
    numbers = next(i for i, item in enumerate(items) if item.token_type == "numbers")
    assert loaded[numbers]["set_a"] == [str(m) for m in items[numbers].set_a]
    assert {loaded[i]["token_type"] for i in range(loaded.num_rows)} >= {"numbers", "words"}
    assert meta["content_sha256"] in (out / "README.md").read_text()


@pytest.mark.parametrize("benchmark", ["ekar", "scan"])
def test_an_unknown_export_option_is_one_line(benchmark, tmp_path, capsys):
    from lexbench.cli import main

    data = ["--data", str(EKAR)] if benchmark == "ekar" else []
    argv = [
        "export",
        benchmark,
        "--format",
        "hf",
        *data,
        "--option",
        "nosuch=1",
        "-o",
        str(tmp_path),
    ]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert len(error.strip().splitlines()) == 1 and "unknown option: 'nosuch'" in error, error


def test_an_export_path_is_printed_without_its_escape_sequences(tmp_path, capsys):
    from lexbench.cli import main

    out = tmp_path / "scan\x1b]0;title\x07\x1b[2J"
    assert main(["export", "scan", "--format", "lm-eval", "--limit", "1", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "\x07" not in printed
    assert "\\x1b]0;title" in printed  # shown as text


def test_include_takes_several_paths_at_once(tmp_path):
    from lexbench.cli import pop_includes

    first, second = tmp_path / "a.py", tmp_path / "b,c.py"
    second.write_text("")
    paths, rest = pop_includes(["--include", f"{first},{tmp_path / 'd.py'}", "export", "x"])
    assert paths == [str(first), str(tmp_path / "d.py")] and rest == ["export", "x"]
    assert pop_includes([f"--include={second}"])[0] == [str(second)]  # a path with a comma


@pytest.mark.slow
def test_verify_reports_every_item_with_the_real_model(tmp_path, capsys, user_cache_root):
    """`--verify` runs inspect's own command line on the export and lexbench on the same
    items (the packaged SmolLM2): every Google item of one relation agrees."""
    from lexbench.cli import main

    out = tmp_path / "google inspect"
    argv = ["export", "google", "--format", "inspect", "--limit", "1", "-o", str(out)]
    assert main([*argv, "--verify", "smollm2-135m"]) == 0
    printed = capsys.readouterr().out
    assert "google in inspect_ai: 14/14 items give lexbench's verdict (all equal)" in printed


@pytest.mark.slow
def test_verify_fails_when_the_tool_completes_nothing(tmp_path, capsys):
    """inspect exits 0 when every sample failed; the verification fails (exit 1 from the
    command line: a RuntimeError)."""
    from lexbench.cli import main
    from lexbench.export.verify import verify

    out = tmp_path / "task"
    argv = ["export", "google", "--format", "inspect", "--limit", "1", "-o", str(out)]
    assert main(argv) == 0
    (out / "model-args.yaml").write_text("do_sample: true\n")  # the task refuses to sample
    with pytest.raises(RuntimeError, match=r"status .error..*do_sample"):
        verify("inspect", out, "smollm2-135m")
