"""A study's answers as run folders, agreement between annotators, and a majority vote.

For each annotator and each step (E-KAR: `hard` and `easy`, as two runs), the items they
answered go through `lexbench.run.evaluate.evaluate` with the model `human:NAME`
(`lexbench.human.backend`): the benchmark object, scorer, tables and run-folder layout are
exactly a model run's, and the item ids are the dataset's own, so `lexbench compare` pairs a
person's run with a model's on the items both answered.

Agreement (per step, on the items every annotator answered): Cohen's kappa for two
annotators, Fleiss' for more, both on the parsed answers (the word, the letter, the set)
and on right/wrong.

The crowd (`human:crowd`, with at least two annotators): on the items every annotator
answered, the parsed answer most annotators gave; a tie goes to the answer of the first
annotator in name order among those tied (deterministic, and noted in the run's config).

Beside each human run folder, `human.jsonl` gives per item the typed answer and the time on
task: `client_seconds` from the page's own clock (restarts if the page is reloaded) and
`server_seconds` from the first time the server showed the step to the answer.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.human.agreement import kappa
from lexbench.human.store import Answer, Study
from lexbench.human.tasks import task_for
from lexbench.parts import NOT_AVAILABLE, is_number, pct, shown

CROWD = "crowd"


@dataclass(frozen=True)
class HumanRun:
    annotator: str
    stage: str
    folder: Path
    answered: int
    correct: int
    scored: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.scored if self.scored else math.nan


@dataclass(frozen=True)
class StudyResults:
    runs: tuple[HumanRun, ...]
    summary: dict[str, Any]
    report: str


def _samples(folder: Path) -> list[dict[str, Any]]:
    from lexbench.run.files import read_jsonl

    return read_jsonl(folder / "samples.jsonl")


def _label(row: Mapping[str, Any]) -> str:
    """A sample's parsed answer as an agreement label ("" for no answer)."""
    answer = row.get("answer")
    return "" if answer is None else str(answer)


def _evaluate(
    study: Study,
    stage: str,
    annotator: str,
    item_ids: Sequence[str],
    items: Mapping[str, Any],
    *,
    model: Any,
    out: Path,
    index: Any,
) -> HumanRun:
    from lexbench.run.evaluate import evaluate

    task = task_for(study.benchmark)
    chosen = [items[i] for i in item_ids]
    benchmark = task.benchmark(chosen, study.spec, stage, index=index, model=model)
    stored = study.prompts(stage)
    for item in chosen:
        prompt = benchmark.requests(item)[0].prompt
        if prompt != stored[task.item_id(item)]:
            raise ValueError(
                f"study {study.directory}: the {study.benchmark} prompt for item "
                f"{task.item_id(item)} ({stage}) is not the one the study stored; "
                f"this lexbench version asks it differently, so the saved answer "
                f"cannot be matched to it"
            )
    evaluation = evaluate(benchmark, model, out_root=out, cache=None, progress=False)
    rows = _samples(evaluation.folder.path)
    scored = [r for r in rows if r.get("correct") is not None]
    return HumanRun(
        annotator,
        stage,
        evaluation.folder.path,
        len(chosen),
        sum(1 for r in scored if r["correct"]),
        len(scored),
    )


def _write_timing(run: HumanRun, answers: Sequence[Answer]) -> None:
    from lexbench.run.files import write_samples

    rows = [
        {
            "id": a.item_id,
            "stage": a.stage,
            "typed": a.typed,
            "output": a.output,
            "client_seconds": None if a.client_ms is None else a.client_ms / 1000,
            "server_seconds": round(a.server_seconds, 3),
            "answered_at": a.answered_at,
        }
        for a in answers
        if a.stage == run.stage
    ]
    write_samples(run.folder / "human.jsonl", rows)


def _crowd_book(
    study: Study,
    stage: str,
    shared: Sequence[str],
    names: Sequence[str],
    samples: Mapping[str, Mapping[str, Mapping[str, Any]]],
) -> dict[str, str]:
    """prompt key -> the output of the majority's parsed answer (ties: first name wins)."""
    by_item = {a.item_id: a for a in study.answers() if a.stage == stage}
    outputs = {(a.annotator, a.item_id): a.output for a in study.answers() if a.stage == stage}
    book = {}
    for item_id in shared:
        labels = [_label(samples[name][item_id]) for name in names]
        votes = Counter(labels)
        best = max(votes.values())
        winner = next(name for name, label in zip(names, labels) if votes[label] == best)
        book[by_item[item_id].prompt_key] = outputs[(winner, item_id)]
    return book


def _timing(answers: Sequence[Answer]) -> dict[str, Any]:
    client = [a.client_ms / 1000 for a in answers if a.client_ms is not None]
    server = [a.server_seconds for a in answers]
    return {
        "median_client_seconds": statistics.median(client) if client else None,
        "median_server_seconds": statistics.median(server) if server else None,
        "total_client_seconds": sum(client) if client else None,
    }


def study_results(
    directory: str | Path,
    *,
    out: str | Path = "runs",
    wordnet: str | None = None,
    crowd: bool = True,
) -> StudyResults:
    """Score every annotator's answers and write their run folders under `out`."""
    from lexbench.human.backend import HumanModel
    from lexbench.models.registry import load_model
    from lexbench.run.files import write_json

    out = Path(out)
    study = Study(directory)
    try:
        task = task_for(study.benchmark)
        items = {item_id: task.from_json(row) for item_id, row in study.items()}
        order = list(items)
        index = task.scoring_index(wordnet)
        answers = study.answers()
        names = sorted({a.annotator for a in answers})
        if not names:
            raise ValueError(f"study {study.directory} has no answers yet")
        runs: list[HumanRun] = []
        summary: dict[str, Any] = {
            "study": str(study.directory),
            "study_id": study.id,
            "benchmark": study.benchmark,
            "items": len(order),
            "annotators": names,
            "stages": {},
        }
        for stage in task.stages:
            answered = {
                name: {a.item_id for a in answers if a.annotator == name and a.stage == stage}
                for name in names
            }
            block: dict[str, Any] = {"annotators": {}}
            samples: dict[str, dict[str, dict[str, Any]]] = {}
            stage_runs = []
            for name in names:
                ids = [i for i in order if i in answered[name]]
                if not ids:
                    continue
                model = load_model(f"human:{name}", {"study": str(study.directory)})
                run = _evaluate(study, stage, name, ids, items, model=model, out=out, index=index)
                mine = [a for a in answers if a.annotator == name]
                _write_timing(run, mine)
                runs.append(run)
                stage_runs.append(run)
                samples[name] = {str(r["id"]): r for r in _samples(run.folder)}
                block["annotators"][name] = {
                    "answered": run.answered,
                    "scored": run.scored,
                    "correct": run.correct,
                    "accuracy": run.accuracy,
                    "run": str(run.folder),
                    **_timing([a for a in mine if a.stage == stage]),
                }
            accuracies = [r.accuracy for r in stage_runs if r.scored]
            # The papers' human baseline is the mean of the annotators' accuracies (E-KAR).
            block["mean_accuracy"] = sum(accuracies) / len(accuracies) if accuracies else None
            voters = sorted(samples)
            shared = [i for i in order if all(i in samples[n] for n in voters)]
            if len(voters) >= 2 and shared:
                block["agreement"] = {
                    "items": len(shared),
                    "answers": kappa(
                        [[_label(samples[n][i]) for i in shared] for n in voters]
                    ).to_dict(),
                    "correct": kappa(
                        [[str(samples[n][i].get("correct")) for i in shared] for n in voters]
                    ).to_dict(),
                }
                if crowd:
                    book = _crowd_book(study, stage, shared, voters, samples)
                    model = HumanModel(
                        CROWD,
                        book,
                        {
                            "study_id": study.id,
                            "study_path": str(study.directory),
                            "annotators": voters,
                            "vote": "majority of parsed answers; a tie goes to the first "
                            "annotator by name among those tied",
                        },
                    )
                    run = _evaluate(
                        study, stage, CROWD, shared, items, model=model, out=out, index=index
                    )
                    runs.append(run)
                    block["crowd"] = {
                        "items": run.answered,
                        "scored": run.scored,
                        "correct": run.correct,
                        "accuracy": run.accuracy,
                        "run": str(run.folder),
                    }
            summary["stages"][stage] = block
        report = report_markdown(summary)
        write_json(study.directory / "results.json", summary)
        (study.directory / "results.md").write_text(report, encoding="utf-8")
        return StudyResults(tuple(runs), summary, report)
    finally:
        study.close()


def _pct(value: Any) -> str:
    """ "41.7%"; "n/a" where nothing was answered (docs/comparing-and-reporting.md)."""
    return f"{pct(value)}%" if is_number(value) else NOT_AVAILABLE


def _num(value: Any, digits: int = 3) -> str:
    """A statistic (a kappa); "n/a" where it is undefined (one label only, no pair)."""
    return shown(value, f".{digits}f")


def report_markdown(summary: Mapping[str, Any]) -> str:
    lines = [
        f"# Human study: {summary['benchmark']} ({summary['items']} items)",
        "",
        f"Study `{summary['study']}` (id {summary['study_id']}); annotators: "
        f"{', '.join(summary['annotators'])}.",
        "",
    ]
    for stage, block in summary["stages"].items():
        title = {"answer": "Answers", "hard": "HARD mode", "easy": "EASY mode"}.get(stage, stage)
        lines += [
            f"## {title}",
            "",
            "| annotator | answered | accuracy | median s/item | run |",
            "|---|---|---|---|---|",
        ]
        for name, row in block["annotators"].items():
            lines.append(
                f"| {name} | {row['answered']} | {_pct(row['accuracy'])} "
                f"({row['correct']}/{row['scored']}) | {_num(row['median_client_seconds'], 1)} "
                f"| `{row['run']}` |"
            )
        if "crowd" in block:
            row = block["crowd"]
            lines.append(
                f"| crowd (majority) | {row['items']} | {_pct(row['accuracy'])} "
                f"({row['correct']}/{row['scored']}) | n/a | `{row['run']}` |"
            )
        lines += ["", f"Mean of the annotators' accuracies: {_pct(block['mean_accuracy'])}."]
        if "agreement" in block:
            agreement = block["agreement"]
            answers, correct = agreement["answers"], agreement["correct"]
            method = "Cohen's" if answers["method"] == "cohen" else "Fleiss'"
            lines.append(
                f"Agreement on the {agreement['items']} items all annotators answered "
                f"({method} kappa): answers {_num(answers['kappa'])} (observed "
                f"{_pct(answers['observed'])}), right/wrong {_num(correct['kappa'])} "
                f"(observed {_pct(correct['observed'])})."
            )
        lines.append("")
    lines.append("Compare with models: `lexbench compare RUN_A RUN_B ...` pairs items by id.")
    return "\n".join(lines) + "\n"
