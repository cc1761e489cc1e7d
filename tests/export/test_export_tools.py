"""Every benchmark exported to lm-evaluation-harness and to inspect_ai gives lexbench's
verdicts on the same outputs, item by item.

Each test exports a small slice through the command line, runs the exported task in the
real tool (lm-eval's task loader, dataset hook, `process_results` and aggregation;
inspect_ai's `eval` with its mock model `mockllm/model`) on scripted outputs, and runs the
same outputs through lexbench's own runner (the scripted model of tests/mock_model.py):
the verdicts and graded values must be equal for every item. A rank request's outputs are
token strings on both sides, matched by the strict prefix rule, as lexbench's
OpenAI-compatible backend matches a server's tokens.
"""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path
from typing import Any

import pytest

from lexbench import api
from lexbench.cli import main
from lexbench.models.openai.targets import strict_prefix_ranks
from lexbench.run.store import read_run
from mock_model import ScriptedModel

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EKAR = FIXTURES / "ekar" / "english"
SAT = FIXTURES / "export" / "sat_mini.jsonl"
SETLEXSEM_SLICE = ["operation=intersection", "m=2"]
#: (benchmark, export arguments, the same slice as `api.run` options)
SLICES = {
    "lambda": (["--per-relation", "4"], {"per_relation": 4}),
    "scan": (["--limit", "12"], {"limit": 12}),
    "google": (["--limit", "1"], {"limit_per_relation": 1}),
    "ekar": (
        ["--data", str(EKAR), "--option", "split=test"],
        {"data": str(EKAR), "split": "test"},
    ),
    "setlexsem": (
        ["--grid", "small", *(f"--select={s}" for s in SETLEXSEM_SLICE)],
        {"grid": "small", "select": SETLEXSEM_SLICE},
    ),
    "sat": (["--data", str(SAT)], {"data": str(SAT)}),
}
RANK_TOKENS = [" the", " a", " same", " like"]


def _pick(key: str, choices: list[Any]) -> Any:
    """A deterministic choice per item (crc32, not hash(): the same across processes)."""
    return choices[zlib.crc32(key.encode()) % len(choices)]


def _rows(folder: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    return pq.read_table(folder / "data" / "test.parquet").to_pylist()


def _outputs(benchmark: str, row: dict[str, Any], position: int) -> Any:
    """The scripted model's answer to one exported row, in the shape its request asks for:
    right for every other item (by position), wrong in varied ways for the rest."""
    item = json.loads(row["item"])
    request = json.loads(row["requests"])[0]
    key = row["id"]
    right = position % 2 == 0
    if request["kind"] == "rank":  # the ranked next tokens, a target among them or not
        target = " " + request["targets"][0]
        tokens = list(RANK_TOKENS)
        at = 0 if right else _pick(key, [1, 2, None])
        if at is not None:
            tokens.insert(at, target if _pick(key + "p", [0, 1]) else target[:4])
        return tokens
    if request["kind"] == "loglikelihood":
        answer = item["answer"] if isinstance(item["answer"], int) else "ABCD".index(item["answer"])
        favoured = answer if right else (answer + 1) % len(request["continuations"])
        return [-1.0 if i == favoured else -4.0 for i in range(len(request["continuations"]))]
    if benchmark == "lambda":
        return " " + item["gold"] if right else _pick(key, [" " + item["query"], " The answer"])
    if benchmark == "ekar":
        return " " + item["answer"] if right else _pick(key, [" none", "E.", " Z) because"])
    answer = "<answer>{" + ", ".join(str(x) for x in item["answer"]) + "}</answer>"
    return answer if right else _pick(key, ["<answer>{0}</answer>", "no idea"])


def _lexbench_verdicts(benchmark: str, outputs: dict[str, Any], tmp_path: Path, **options):
    """The same outputs through lexbench's runner: {item id: (correct, value)}."""

    def reply(request):
        return outputs[request.id]

    def ranked(request):
        return [(i, t, -float(i)) for i, t in enumerate(outputs[request.id])]

    def target_ranks(request, ids):
        return strict_prefix_ranks(outputs[request.id], request.targets, word_start=True)

    model = ScriptedModel(
        reply=lambda r: reply(r) if isinstance(outputs[r.id], str) else "",
        ranked=ranked if benchmark in ("scan", "google") else None,
        target_ranks=target_ranks,
        loglikelihoods=reply
        if benchmark in ("ekar", "sat") and options.get("kinds") != "generate"
        else None,
    )
    options.pop("kinds", None)
    run = api.run(
        benchmark, model, out=tmp_path / "runs", use_cache=False, progress=False, **options
    )
    _, samples, _ = read_run(run.folder.path)
    return {s["id"]: (bool(s["correct"]), round(float(s["value"]), 9)) for s in samples}


def _export(benchmark: str, fmt: str, folder: Path, capsys) -> str:
    arguments, _ = SLICES[benchmark]
    assert main(["export", benchmark, "--format", fmt, *arguments, "-o", str(folder)]) == 0
    return capsys.readouterr().out


# ------------------------------------------------------------------------------ lm-eval


class ScriptedLM:
    """An lm-eval model answering from a table keyed by the document's id."""

    def __new__(cls, outputs: dict[str, Any]):
        from lm_eval.api.model import LM

        class _LM(LM):
            def generate_until(self, requests):
                answers = []
                for request in requests:
                    answer = outputs[request.doc["id"]]
                    answers.append(answer[0] if isinstance(answer, list) else answer)
                return answers

            def loglikelihood(self, requests):
                return [
                    (outputs[r.doc["id"]][r.doc["choices"].index(r.args[1])], False)
                    for r in requests
                ]

            def loglikelihood_rolling(self, requests):
                raise NotImplementedError

            # A chat template (the messages' text, joined), for chat-mode exports.
            def apply_chat_template(self, chat_history, add_generation_prompt=True):
                return "".join(message["content"] for message in chat_history)

            @property
            def tokenizer_name(self):
                return "scripted"

            def chat_template(self, chat_template=False):
                return "scripted"

        return _LM()


@pytest.mark.parametrize("benchmark", sorted(SLICES))
def test_lm_eval_gives_lexbench_verdicts(benchmark, tmp_path, capsys, wordnet_index):
    import lm_eval
    from lm_eval.tasks import TaskManager

    folder = tmp_path / "lm-eval task #1"  # a space and a '#' in the path
    printed = _export(benchmark, "lm-eval", folder, capsys)
    assert f"--include_path '{folder}'" in printed  # shell-quoted
    moved = folder.rename(tmp_path / "moved")  # the YAML holds no path: the folder moves
    rows = _rows(moved)
    outputs = {row["id"]: _outputs(benchmark, row, i) for i, row in enumerate(rows)}
    # lm-eval asks a rank request as one greedy token: the top token is all it sees.
    theirs_outputs = {k: v[0] if benchmark in ("scan", "google") else v for k, v in outputs.items()}
    task = f"lexbench_{benchmark}"
    # As printed: a chat-mode export (SetLexSem) runs with --apply_chat_template.
    chat = json.loads((moved / "lexbench-manifest.json").read_text())["prompt_mode"] == "chat"
    (command,) = [line for line in printed.splitlines() if line.startswith("  lm_eval ")]
    assert command.endswith(" --apply_chat_template") == chat == (benchmark == "setlexsem")
    results = lm_eval.simple_evaluate(
        model=ScriptedLM(theirs_outputs),
        tasks=[task],
        task_manager=TaskManager(include_path=str(moved), include_defaults=False),
        log_samples=True,
        apply_chat_template=chat,
    )
    theirs = {
        s["doc"]["id"]: bool(s["acc"])
        for name, samples in results["samples"].items()
        for s in samples
    }
    _, options = SLICES[benchmark]
    # lexbench on the same outputs (ranking: the one token lm-eval generated)
    same = {k: [v] if benchmark in ("scan", "google") else v for k, v in theirs_outputs.items()}
    ours = _lexbench_verdicts(benchmark, _by_request(rows, same), tmp_path, **options)
    assert theirs == {k: correct for k, (correct, _) in ours.items()}
    assert len(theirs) == len(rows) and 0 < sum(theirs.values()) < len(theirs)
    accuracy = results["results"][task]["acc,none"]
    assert accuracy == pytest.approx(sum(theirs.values()) / len(theirs))


def _by_request(rows: list[dict[str, Any]], by_item: dict[str, Any]) -> dict[str, Any]:
    """Outputs keyed by lexbench's request id (which may differ from the item id)."""
    return {json.loads(r["requests"])[0]["id"]: by_item[r["id"]] for r in rows}


def test_lm_eval_groups_a_benchmark_that_decodes_several_ways(tmp_path, capsys):
    """SetLexSem's small grid decodes in two ways: one task per setting, one group."""
    import yaml

    _export("setlexsem", "lm-eval", tmp_path / "task", capsys)
    names = sorted(p.name for p in (tmp_path / "task").glob("*.yaml"))
    assert names == [
        "lexbench_setlexsem.yaml",
        "lexbench_setlexsem_part1.yaml",
        "lexbench_setlexsem_part2.yaml",
    ]
    group = yaml.safe_load((tmp_path / "task" / "lexbench_setlexsem.yaml").read_text())
    assert group["task"] == ["lexbench_setlexsem_part1", "lexbench_setlexsem_part2"]
    part = (tmp_path / "task" / "lexbench_setlexsem_part1.yaml").read_text()
    assert "custom_dataset: !function" in part and "utils.load_dataset" in part and "/" not in part


def test_a_rank_export_refuses_nothing_but_a_sampled_protocol(tmp_path):
    from lexbench.export.lm_eval import write_lm_eval_task
    from lexbench.export.rows import export_set

    exported = export_set("lambda", {"per_relation": 1, "protocol": "word", "progress": False})
    with pytest.raises(ValueError, match="stop-at-first-whole-word"):
        write_lm_eval_task(tmp_path / "word", exported)


# ------------------------------------------------------------------------------ prompt mode

#: (benchmark, export arguments, the prompt mode they give)
MODES = [
    ("setlexsem", ["--grid", "small", "--select=operation=intersection", "--select=m=2"], "chat"),
    ("lambda", ["--per-relation", "1"], "completion"),
    ("scan", ["--limit", "1"], "completion"),
]


@pytest.mark.parametrize(("benchmark", "arguments", "mode"), MODES)
def test_the_command_and_the_readme_say_whether_the_chat_template_is_needed(
    benchmark, arguments, mode, tmp_path, capsys, wordnet_index
):
    """The printed command carries --apply_chat_template exactly when lexbench sends chat
    prompts, the next line says so, and README.md beside the task says it first; for a
    completion-mode export it says not to follow lm-eval's advice to add it."""
    folder = tmp_path / "task"
    assert main(["export", benchmark, "--format", "lm-eval", *arguments, "-o", str(folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    command = next(i for i, line in enumerate(lines) if line.startswith("  lm_eval "))
    readme = (folder / "README.md").read_text()
    mode_line = readme.split("\n\n")[1]
    if mode == "chat":
        assert lines[command].endswith(" --apply_chat_template")
        assert lines[command + 1].startswith("chat prompts: --apply_chat_template is required")
        assert mode_line.startswith("**Chat prompts: run with `--apply_chat_template`.**")
    else:
        assert "--apply_chat_template" not in lines[command]
        assert lines[command + 1].startswith("completion prompts: run it without")
        assert mode_line.startswith("**Completion prompts: run without `--apply_chat_template`.")
        assert "appears to be an instruct or chat variant" in mode_line
        assert "do not add it" in mode_line
    # The README's command runs from the task folder, so it holds when the folder moves.
    relative = lines[command].strip().replace(str(folder), ".")
    assert f"```bash\n{relative}\n```" in readme


def _lm_eval_modes(folder: Path, task: str, outputs: dict[str, Any], **options: Any) -> Any:
    import lm_eval
    from lm_eval.tasks import TaskManager

    metadata = options.pop("metadata", None)
    return lm_eval.simple_evaluate(
        model=ScriptedLM(outputs),
        tasks=[task],
        task_manager=TaskManager(
            include_path=str(folder), include_defaults=False, metadata=metadata
        ),
        **options,
    )


@pytest.mark.parametrize(("benchmark", "arguments", "mode"), MODES[:2])
def test_lm_eval_refuses_to_run_an_export_in_the_other_prompt_mode(
    benchmark, arguments, mode, tmp_path, capsys, wordnet_index
):
    """A chat-mode export run without --apply_chat_template (which would score near zero
    without a word) and a completion-mode one run with it stop before any request, in one
    line that names the fix; the task runs in its own mode, and in the other one when
    lm-eval's --metadata says so (a model without a chat template, to which lexbench sends
    the plain prompt)."""
    folder = tmp_path / "task"
    assert main(["export", benchmark, "--format", "lm-eval", *arguments, "-o", str(folder)]) == 0
    capsys.readouterr()
    outputs = {row["id"]: "<answer>{}</answer>" for row in _rows(folder)}
    task = f"lexbench_{benchmark}"
    chat = mode == "chat"
    fix = "with --apply_chat_template" if chat else "without --apply_chat_template"
    with pytest.raises(ValueError, match=f"^{task}[_a-z0-9]*: .* run lm_eval {fix} "):
        _lm_eval_modes(folder, task, outputs, apply_chat_template=not chat)
    assert task in _lm_eval_modes(folder, task, outputs, apply_chat_template=chat)["results"]
    other = {"lexbench_prompt_mode": "completion" if chat else "chat"}
    runs = _lm_eval_modes(folder, task, outputs, apply_chat_template=not chat, metadata=other)
    assert task in runs["results"]


# ------------------------------------------------------------------------------ inspect_ai


def _inspect_output(answer: Any) -> Any:
    from inspect_ai.model import (
        ChatCompletionChoice,
        ChatMessageAssistant,
        Logprob,
        Logprobs,
        ModelOutput,
        ModelUsage,
        TopLogprob,
    )

    usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no token counting
    if isinstance(answer, str):
        output = ModelOutput.from_content("mockllm/model", answer)
        output.usage = usage
        return output
    top = [TopLogprob(token=t, logprob=-float(i)) for i, t in enumerate(answer)]
    logprobs = Logprobs(content=[Logprob(token=answer[0], logprob=0.0, top_logprobs=top)])
    message = ChatMessageAssistant(content=answer[0])
    choice = ChatCompletionChoice(message=message, stop_reason="max_tokens", logprobs=logprobs)
    return ModelOutput(model="mockllm/model", choices=[choice], usage=usage)


@pytest.mark.parametrize("benchmark", ["lambda", "scan", "google", "ekar", "setlexsem"])
def test_inspect_gives_lexbench_scores(benchmark, tmp_path, capsys, wordnet_index):
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from lexbench.export.inspect_task import lexbench_task

    folder = tmp_path / "inspect task #1"
    printed = _export(benchmark, "inspect", folder, capsys)
    # inspect takes no absolute task path: the command runs from the task's folder
    assert f"cd '{folder}' && inspect eval task.py --model hf/MODEL" in printed
    samples = [json.loads(line) for line in (folder / "dataset.jsonl").read_text().splitlines()]
    rows = {row["id"]: row for row in _inspect_rows(folder, samples)}
    outputs = {s["id"]: _outputs(benchmark, rows[s["id"]], i) for i, s in enumerate(samples)}
    model = get_model(
        "mockllm/model", custom_outputs=[_inspect_output(outputs[s["id"]]) for s in samples]
    )
    logs = inspect_eval(
        lexbench_task(folder),
        model=model,
        max_samples=1,  # one at a time, in the dataset's order: the outputs are in that order
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert logs[0].status == "success", logs[0].error
    # The viewer's SCORE: MRR@10 (the graded values' mean) for a ranking set, else accuracy.
    from inspect_ai.log import headline_metric

    resolved = headline_metric(logs[0])
    ranking = benchmark in ("scan", "google")
    assert (resolved.score.name, resolved.name) == (
        ("value", "mean") if ranking else ("correct", "accuracy")
    )
    theirs = {}
    for sample in logs[0].samples:
        expected = outputs[sample.id]
        assert sample.output.completion == (expected if isinstance(expected, str) else expected[0])
        value = sample.scores["lexbench_scorer"].value
        theirs[sample.id] = (bool(value["correct"]), round(float(value["value"]), 9))
    _, options = SLICES[benchmark]
    kinds = {"kinds": "generate"} if benchmark == "ekar" else {}
    ours = _lexbench_verdicts(
        benchmark, _by_request(list(rows.values()), outputs), tmp_path, **options, **kinds
    )
    assert theirs == ours
    assert 0 < sum(correct for correct, _ in theirs.values()) < len(theirs)


def _inspect_rows(folder: Path, samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The exported rows as `_outputs` reads them, rebuilt from the inspect folder."""
    from lexbench.export.scorer import ExportScorer

    scorer = ExportScorer(folder / "lexbench-manifest.json")
    rows = []
    for sample in samples:
        request = scorer.request(sample["id"])
        item = scorer.item(sample["id"])
        item_json = item.to_dict() if hasattr(item, "to_dict") else dict(vars(item))
        rows.append(
            {
                "id": sample["id"],
                "item": json.dumps(item_json, default=str),
                "requests": json.dumps([{"id": request.id, **request.cache_key_payload()}]),
            }
        )
    return rows


def test_sat_is_refused_by_inspect_in_one_line(tmp_path, capsys):
    code = main(["export", "sat", "--format", "inspect", "--data", str(SAT), "-o", str(tmp_path)])
    error = capsys.readouterr().err
    assert code == 2 and len(error.strip().splitlines()) == 1, error
    assert "inspect_ai has no log-likelihood request" in error


# ------------------------------------------------------------------------------ datasets


@pytest.mark.parametrize("benchmark", ["scan", "lambda", "setlexsem"])
def test_the_hf_hint_loads_the_split_it_names(benchmark, tmp_path, capsys, wordnet_index):
    import datasets

    printed = _export(benchmark, "hf", tmp_path / "hf set", capsys)
    call = re.search(r"datasets\.load_dataset\((.+)\)\s*$", printed).group(1)
    assert "split='test'" in call
    loaded = eval(f"datasets.load_dataset({call}, cache_dir={str(tmp_path / 'cache')!r})")
    assert isinstance(loaded, datasets.Dataset) and loaded.num_rows > 0


def test_the_hf_export_keeps_the_selected_configurations(tmp_path, capsys, wordnet_index):
    _export("setlexsem", "hf", tmp_path / "hf", capsys)
    rows = _rows(tmp_path / "hf")
    assert rows and {row["operation"] for row in rows} == {"intersection"}


def test_an_export_says_what_it_does_while_it_works(tmp_path, capsys, monkeypatch):
    # Issue 43: no silent wait. An export builds its items (WordNet's index, a grid) before
    # writing; past `ANNOUNCE_AFTER_S` it says what it is doing, and how long it took.
    from lexbench import heartbeat

    monkeypatch.setattr(heartbeat, "ANNOUNCE_AFTER_S", 0.01)
    folder = tmp_path / "lambda-lm-eval"
    argv = ["export", "lambda", "--format", "lm-eval", "--per-relation", "4", "-o", str(folder)]
    assert main(argv) == 0
    said = capsys.readouterr().err.splitlines()
    what = f"lexbench: exporting lambda as lm-eval to {folder}"
    assert said[0].startswith(f"{what}... ("), said
    assert said[-1].startswith(f"{what}: done in "), said
