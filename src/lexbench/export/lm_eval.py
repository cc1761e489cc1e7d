"""Any registered benchmark as an lm-evaluation-harness task whose scorer is the benchmark's
own (`lexbench.export.scorer`): lm-eval sends the requests, lexbench gives the verdicts, so
the two agree on the same outputs.

lm-eval's request types and what each lexbench request becomes:

* `generate` -> `generate_until`: the same prompt, greedy, the same token budget and stop
  strings; lm-eval has one generation setting per task, so items that decode differently
  become one task per setting under a group; it has no sampling seed per request and no
  stop-at-first-whole-word criterion (a protocol that needs them is refused in one line);
* `loglikelihood` -> `multiple_choice`: lm-eval gives the summed log-probability of each
  continuation (no token counts, so a length normalisation by tokens cannot be rebuilt;
  by characters, as E-KAR's default, it can);
* `rank` (SCAN, Google, BATS) -> `generate_until` of one greedy token: lm-eval has no top-k
  request, so only the first answer is known. Its `acc` is lexbench's acc@1 (the target's
  first token is the model's most likely next token, matched by the strict prefix rule of
  `lexbench.export.scorer`); MRR@10 and recall@k cannot be expressed in lm-eval.

The YAML is written through PyYAML and holds no paths: `utils.py` reads the rows from
`data/test.parquet` beside it (lm-eval's `custom_dataset`), so the folder works wherever it
is moved, whatever characters its path has.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from lexbench.export.lm_eval_mode import MODE_KEY
from lexbench.export.rows import ExportedSet
from lexbench.export.scorer import MANIFEST
from lexbench.types import Decoding

UTILS = '''"""lexbench's dataset loader and scorer for this task (see lexbench.export.lm_eval)."""

from pathlib import Path

from lexbench.export.lm_eval_mode import lexbench_task_class
from lexbench.export.scorer import ExportScorer

HERE = Path(__file__).resolve().parent
_SCORER = ExportScorer(HERE / "lexbench-manifest.json")
#: The task's class: lm-eval's, refusing to run in the other prompt mode (README.md).
LexbenchTask = lexbench_task_class()


def load_dataset(lexbench_part=None, pretrained=None, tokenizer=None, **_metadata):
    """The exported rows, read from beside this file (lm-eval's custom_dataset, called with
    the task's metadata, which holds the --model_args): those of one decoding setting when
    the task is one part. A local model folder's tokenizer finds rank targets as lexbench's
    transformers backend does."""
    import datasets
    import pyarrow.parquet as pq

    _SCORER.use_model(tokenizer or pretrained)
    rows = pq.read_table(HERE / "data" / "test.parquet").to_pylist()
    if lexbench_part is not None:
        rows = [row for row in rows if row["lexbench_part"] == lexbench_part]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def process_results(doc, results):
    return _SCORER.process(doc, results)
'''

#: lexbench's request kind -> lm-eval's output type.
OUTPUT_TYPES = {
    "generate": "generate_until",
    "rank": "generate_until",
    "loglikelihood": "multiple_choice",
}


def task_name(benchmark: str) -> str:
    return "lexbench_" + "".join(c if c.isalnum() else "_" for c in benchmark)


class _Function(str):
    """A `!function module.name` value in lm-eval's YAML."""


def task_yaml(config: dict[str, Any]) -> str:
    """The YAML text of `config`, written by PyYAML (quoting is its job), `_Function`
    values as lm-eval's `!function` tag."""
    import yaml

    class TaskDumper(yaml.SafeDumper):
        pass

    TaskDumper.add_representer(
        _Function, lambda dumper, value: dumper.represent_scalar("!function", str(value))
    )
    return yaml.dump(config, Dumper=TaskDumper, sort_keys=False, allow_unicode=True)


def single_kind(exported: ExportedSet, tool: str = "lm-eval") -> str:
    """The one request kind every item asks, or a one-line refusal."""
    shapes = {tuple(r.kind for r in asked) for asked in exported.requests}
    if len(shapes) == 1:
        (shape,) = shapes
        if len(shape) == 1 and shape[0] in OUTPUT_TYPES:
            return shape[0]
    found = ", ".join("+".join(shape) or "none" for shape in sorted(shapes))
    raise ValueError(
        f"{exported.benchmark}: {tool} takes one generate, rank or log-likelihood request "
        f"per item; this benchmark asks {found} per item. Export it with --format hf instead"
    )


def _generation_kwargs(benchmark: str, decoding: Decoding) -> dict[str, Any]:
    if not decoding.greedy or decoding.stop_at_word_end:
        raise ValueError(
            f"{benchmark}: lm-eval has no sampled decoding with a seed per request and no "
            f"stop-at-first-whole-word criterion; export the greedy, fixed-budget protocol"
        )
    return {
        "until": list(decoding.stop),
        "max_gen_toks": decoding.max_new_tokens,
        "do_sample": False,
        "temperature": 0.0,
    }


#: A rank request asks for the most likely next token, nothing more.
RANK_GENERATION = {"until": [], "max_gen_toks": 1, "do_sample": False, "temperature": 0.0}


def lm_eval_configs(exported: ExportedSet) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The task YAML bodies and the rows. An lm-eval task has one generation setting, so a
    benchmark whose items decode in several ways (SetLexSem's methods) becomes one task per
    setting (`<name>_part1`, ...; each reads its rows by `lexbench_part`) and a group named
    after the benchmark whose accuracy pools them, weighted by size (the item mean)."""
    kind = single_kind(exported)
    name = task_name(exported.benchmark)
    rows = [dict(row) for row in exported.rows]
    base: dict[str, Any] = {
        # lm-eval's own task class, which refuses the other prompt mode (lm_eval_mode).
        "class": _Function("utils.LexbenchTask"),
        "custom_dataset": _Function("utils.load_dataset"),
        "test_split": "test",
        "output_type": OUTPUT_TYPES[kind],
        "doc_to_text": "prompt",
        "process_results": _Function("utils.process_results"),
        "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
    }
    metadata = {
        "version": 1.0,
        "lexbench_benchmark": exported.benchmark,
        "lexbench_request_kind": kind,
        "lexbench_content_sha256": exported.manifest["content_sha256"],
        MODE_KEY: exported.manifest["prompt_mode"],
    }
    if kind == "loglikelihood":
        for row, asked in zip(rows, exported.requests):
            row["choices"] = list(asked[0].continuations)
        # The continuations carry their own leading space; lm-eval would add another.
        base.update({"doc_to_choice": "choices", "doc_to_target": 0, "target_delimiter": ""})
        return [{"task": name, **base, "metadata": metadata}], rows
    base["doc_to_target"] = "id"
    if kind == "rank":
        return [
            {"task": name, **base, "generation_kwargs": RANK_GENERATION, "metadata": metadata}
        ], rows
    parts: dict[Decoding, int] = {}
    for row, asked in zip(rows, exported.requests):
        row["lexbench_part"] = parts.setdefault(asked[0].decoding, len(parts) + 1)
    if len(parts) == 1:
        (decoding,) = parts
        generation = _generation_kwargs(exported.benchmark, decoding)
        return [{"task": name, **base, "generation_kwargs": generation, "metadata": metadata}], rows
    configs = [
        {
            "task": f"{name}_part{part}",
            **base,
            "generation_kwargs": _generation_kwargs(exported.benchmark, decoding),
            "metadata": {**metadata, "lexbench_part": part},
        }
        for decoding, part in parts.items()
    ]
    group = {
        "group": name,
        "task": [config["task"] for config in configs],
        "aggregate_metric_list": [{"metric": "acc", "aggregation": "mean", "weight_by_size": True}],
        "metadata": {"version": 1.0},
    }
    return [group, *configs], rows


#: What a printed command says in place of the model.
PLACEHOLDER = "MODEL"


def lm_eval_tasks(folder: Path) -> list[str]:
    """The task (or group) names an exported lm-eval folder defines, for `--tasks`."""
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    return [task_name(manifest["benchmark"])]


def lm_eval_argv(folder: Path, model: Path | None, *, chat: bool) -> list[str]:
    model_text = PLACEHOLDER if model is None else str(model)
    argv = [
        "lm_eval",
        "--include_path",
        str(folder),
        "--tasks",
        ",".join(lm_eval_tasks(folder)),
        "--model",
        "hf",
        "--model_args",
        f"pretrained={model_text}",
    ]
    # lexbench sends these prompts in the model's chat format: lm-eval must too.
    return [*argv, "--apply_chat_template"] if chat else argv


def write_lm_eval_task(out_dir: str | Path, exported: ExportedSet) -> Path:
    """Write the task YAML(s), `utils.py`, `data/test.parquet`, the manifest and README.md
    (how to run it, in which prompt mode); returns the folder.
    `lm_eval --include_path DIR --tasks lexbench_NAME` runs it."""
    from lexbench.export.files import write_parquet
    from lexbench.export.lm_eval_mode import readme

    configs, rows = lm_eval_configs(exported)
    out = Path(out_dir)
    write_parquet(rows, out / "data" / "test.parquet")
    for config in configs:
        name = config.get("group") or config["task"]
        (out / f"{name}.yaml").write_text(task_yaml(config), encoding="utf-8")
    (out / "utils.py").write_text(UTILS, encoding="utf-8")
    (out / MANIFEST).write_text(
        json.dumps(exported.manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    # Run from the folder itself (the README moves with it; the printed command is absolute).
    argv = lm_eval_argv(out, None, chat=exported.chat)
    argv[argv.index("--include_path") + 1] = "."
    command = shlex.join(argv)
    (out / "README.md").write_text(
        readme(
            exported.benchmark, task_name(exported.benchmark), exported.chat, command, len(rows)
        ),
        encoding="utf-8",
    )
    return out
