"""Any registered benchmark as an inspect_ai task: a dataset (`dataset.jsonl`, one sample
per item with lexbench's prompt as its input), a solver that asks the model as lexbench
would, and a scorer that calls the benchmark's own scorer (`lexbench.export.scorer`), so
inspect_ai and lexbench give the same verdicts on the same outputs.

    lexbench export scan --format inspect -o scan-inspect
    inspect eval scan-inspect/task.py --model hf/HuggingFaceTB/SmolLM2-135M-Instruct

What each lexbench request becomes (inspect_ai speaks to models in chat messages: the
prompt is the user message, as in lexbench's chat runs):

* `generate`: one generation with the item's own decoding (token budget, temperature,
  top-p, top-k, stop strings, seed), set per sample, so a benchmark whose items decode
  differently (SetLexSem's grids) is one task;
* `rank` (SCAN, Google, BATS): one generated token with its top-k log-probabilities
  (`logprobs`, `top_logprobs`), the target words found among those tokens by the strict
  prefix rule; MRR@10, acc@1 and recall@k as lexbench reports them. A provider that gives
  no log-probabilities leaves only the generated token (rank 1 or absent);
* `loglikelihood`: inspect_ai has no log-likelihood request, so the benchmark is built for a
  model that only generates: E-KAR asks for a letter; SAT, which has no generation
  protocol, is refused.

Each sample's score has `correct` (lexbench's verdict; an item lexbench cannot score counts
as wrong) and `value` (its graded score: the reciprocal rank for ranking sets), reported
as accuracy with its standard error and the mean value.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lexbench.export.rows import ExportedSet
from lexbench.export.scorer import MANIFEST, ExportScorer, TokenizerTargets, rank_response
from lexbench.types import Request, Response

#: What an inspect_ai model answers: text, and the top log-probabilities of a token.
INSPECT_KINDS = ("generate", "rank")
DATASET = "dataset.jsonl"
#: inspect_ai's `--model-config` file for its `hf/` provider, written beside the task.
MODEL_ARGS = "model-args.yaml"
#: The exported task's scorer (its scores: `correct`, accuracy; `value`, the graded mean).
SCORER_NAME = "lexbench_scorer"
#: A chat template that sends the user message as it is: lexbench's completion prompt. The
#: hf provider always goes through a chat template (`use_chat_template=false` would send
#: "user: PROMPT\n"), so a completion run needs this one.
VERBATIM_TEMPLATE = "{% for message in messages %}{{ message['content'] }}{% endfor %}"


def model_args(chat: bool) -> dict[str, Any]:
    """The hf provider's model arguments that make it ask as lexbench does: greedy where the
    request is (the provider samples unless `do_sample` is false, and transformers refuses
    a temperature of 0 when sampling), and the raw prompt unless lexbench sends chat."""
    args: dict[str, Any] = {"do_sample": False}
    if not chat:
        args["chat_template"] = VERBATIM_TEMPLATE
    return args


def provider_mismatch(api: Any, generate_config: dict[str, Any], chat: bool) -> str | None:
    """Why inspect_ai's hf provider `api` would not ask as lexbench does (None when it
    would): the task stops on the first sample rather than score a different request."""
    if type(api).__name__ != "HuggingFaceAPI":
        return None
    fix = f"run with --model-config {MODEL_ARGS} (written beside task.py)"
    greedy = not generate_config.get("temperature")
    if greedy and getattr(api, "do_sample", True):
        return f"inspect's hf provider samples unless do_sample is false; {fix}"
    if not chat and getattr(api, "chat_template", None) != VERBATIM_TEMPLATE:
        return (
            "lexbench sends this benchmark as a completion and inspect's hf provider would "
            f"wrap it in the model's chat template; {fix}"
        )
    return None


TASK_FILE = '''"""{benchmark} as an inspect_ai task, scored by lexbench's own scorer (written by
`lexbench export {benchmark} --format inspect`; see lexbench.export.inspect_task).

    inspect eval task.py --model hf/MODEL
"""

from pathlib import Path

from inspect_ai import task

from lexbench.export.inspect_task import lexbench_task


@task
def {name}():
    return lexbench_task(Path(__file__).resolve().parent)
'''


def generate_config(request: Request) -> dict[str, Any]:
    """inspect_ai's GenerateConfig arguments for one lexbench request."""
    if request.kind == "rank":
        return {
            "max_tokens": 1,
            "temperature": 0.0,
            "logprobs": True,
            "top_logprobs": request.top_k,
        }
    decoding = request.decoding
    config: dict[str, Any] = {"max_tokens": decoding.max_new_tokens}
    if decoding.greedy:
        config["temperature"] = 0.0
    else:
        config.update(temperature=decoding.temperature, top_p=decoding.top_p)
        if decoding.top_k:
            config["top_k"] = decoding.top_k
    if decoding.seed is not None:
        config["seed"] = decoding.seed
    if decoding.stop:
        config["stop_seqs"] = list(decoding.stop)
    if decoding.stop_at_word_end:
        raise ValueError(
            "inspect_ai has no stop-at-first-whole-word criterion; export the fixed-budget protocol"
        )
    return config


def _sample(row: dict[str, Any], request: Request) -> dict[str, Any]:
    if request.chat and request.messages:
        prompt: Any = [{"role": role, "content": text} for role, text in request.messages]
    else:
        prompt = request.prompt
    return {
        "id": row["id"],
        "input": prompt,
        "target": "",
        "metadata": {
            "lexbench_kind": request.kind,
            "lexbench_chat": request.chat,
            "generate_config": generate_config(request),
        },
    }


def write_inspect_task(out_dir: str | Path, exported: ExportedSet) -> Path:
    """Write `task.py`, `dataset.jsonl` and the manifest; returns the folder."""
    from lexbench.export.lm_eval import single_kind, task_name

    kind = single_kind(exported, "inspect_ai")
    if kind not in INSPECT_KINDS:
        raise ValueError(
            f"{exported.benchmark}: inspect_ai has no log-likelihood request and this "
            f"benchmark has no generation protocol; export it with --format lm-eval or hf"
        )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(_sample(row, asked[0]), ensure_ascii=False, sort_keys=True)
        for row, asked in zip(exported.rows, exported.requests)
    ]
    (out / DATASET).write_text("\n".join(lines) + "\n", encoding="utf-8")
    name = task_name(exported.benchmark)
    (out / "task.py").write_text(
        TASK_FILE.format(benchmark=exported.benchmark, name=name), encoding="utf-8"
    )
    (out / MANIFEST).write_text(
        json.dumps(exported.manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    import yaml

    (out / MODEL_ARGS).write_text(
        yaml.safe_dump(model_args(any(asked[0].chat for asked in exported.requests))),
        encoding="utf-8",
    )
    return out


def response_from_output(
    request: Request, output: Any, targets: TokenizerTargets | None = None
) -> Response:
    """A lexbench `Response` from an inspect_ai `ModelOutput` (rank targets found by
    `targets`, the model's tokenizer, else by the strict prefix rule)."""
    if output.error:
        return Response(request_id=request.id, error=str(output.error))
    if request.kind != "rank":
        return Response(request_id=request.id, text=output.completion)
    choice = output.choices[0] if output.choices else None
    content = choice.logprobs.content if choice is not None and choice.logprobs else []
    if content and content[0].top_logprobs:
        top = content[0].top_logprobs
        return rank_response(
            request, [t.token for t in top], [t.logprob for t in top], targets=targets
        )
    return rank_response(request, [output.completion] if output.completion else [], targets=targets)


def lexbench_task(folder: str | Path) -> Any:
    """The inspect_ai `Task` of an exported folder."""
    from inspect_ai import Task
    from inspect_ai.dataset import json_dataset
    from inspect_ai.log import HeadlineMetric

    folder = Path(folder)
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    dataset = json_dataset(str(folder / DATASET))
    # A ranking set's headline is MRR@10, the mean graded value (the viewer's SCORE column),
    # as lexbench reports it; accuracy (the first metric) elsewhere.
    ranks = any(
        sample.metadata and sample.metadata.get("lexbench_kind") == "rank" for sample in dataset
    )
    return Task(
        name=f"lexbench_{manifest['benchmark']}",
        dataset=dataset,
        solver=lexbench_solver(),
        scorer=lexbench_scorer(str(folder / MANIFEST)),
        metadata={"lexbench_content_sha256": manifest["content_sha256"]},
        headline_metric=HeadlineMetric(scorer=SCORER_NAME, score="value", metric="mean")
        if ranks
        else None,
    )


def lexbench_solver() -> Any:
    """Ask the model with each sample's own generation settings (refused in one line where
    inspect's hf provider would ask otherwise: sampling, or a chat template lexbench does
    not use)."""
    from inspect_ai.model import get_model
    from inspect_ai.solver import Generate, TaskState, solver

    @solver(name="lexbench_generate")
    def make() -> Any:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            config = state.metadata["generate_config"]
            chat = bool(state.metadata.get("lexbench_chat"))
            mismatch = provider_mismatch(get_model().api, config, chat)
            if mismatch:
                raise RuntimeError(mismatch)
            return await generate(state, **config)

        return solve

    return make()


def lexbench_scorer(manifest_path: str) -> Any:
    """The benchmark's own scorer on inspect_ai's outputs."""
    from inspect_ai.scorer import Score, Target, accuracy, mean, scorer, stderr
    from inspect_ai.solver import TaskState

    @scorer(
        name=SCORER_NAME,
        metrics={"correct": [accuracy(), stderr()], "value": [mean()]},
    )
    def make() -> Any:
        lexbench = ExportScorer(manifest_path)

        async def score(state: TaskState, target: Target) -> Score:
            item_id = str(state.sample_id)
            request = lexbench.request(item_id)
            provider, _, name = str(state.model).partition("/")
            lexbench.use_model(name if provider == "hf" else None)
            response = response_from_output(request, state.output, lexbench.targets)
            verdict = lexbench.score(item_id, response)
            return Score(
                value={"correct": 1.0 if verdict.correct else 0.0, "value": verdict.value},
                answer=verdict.answer,
                metadata={
                    "lexbench_correct": verdict.correct,
                    "error_class": verdict.error_class,
                    "target_rule": "tokenizer" if lexbench.targets else "strict prefix",
                    "details": json.loads(json.dumps(verdict.details, default=str)),
                },
            )

        return score

    return make()
