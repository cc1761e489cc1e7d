"""Run folders as the report and compare commands see them.

`load_runs` reads each run folder once (config.json, samples.jsonl, results.json, report.md
and the PNGs under figures/) and gives every run a short label: the model name plus the
settings that differ from the benchmark's defaults, as the benchmark declares them
(`BenchmarkSpec.label_settings`): `smollm2-135m (prompt=completion, limit=5)`. A run at
every default is its model's name alone, or `smollm2-135m (defaults)` beside other runs of
the same model; runs that still share a label are told apart by the settings that differ
between them.

A path may be a run folder or a directory holding run folders (such as `runs/`): those are
found recursively, in sorted order, so `lexbench report runs/lambda -o out` works.

Items of two runs are the same item when their id and their question agree: `item_key` is
the id plus a hash of the fields that make up the question (per benchmark,
`QUESTION_FIELDS`), so runs generated with different seeds, whose ids coincide but whose
questions do not, are never paired. `dataset_hashes` gives the dataset hashes a run's
config records, for telling runs of different data apart.

Text read for display has any lone surrogate (a model may emit one) replaced by the
visible escape `\udcff`, so pages and terminals can always be written.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from lexbench.contract import LabelSetting
from lexbench.parts import LoadedRun
from lexbench.run.store import RunFolder, read_run
from lexbench.types import content_hash

REQUIRED_SAMPLE_FIELDS = ("id", "correct", "value")

# For a benchmark that names no question fields: the prompt, when samples carry one.
FALLBACK_QUESTION_FIELDS = ("prompt",)


def question_fields(benchmark: str) -> tuple[str, ...]:
    """The sample fields that make up an item's question (what the model is asked and what
    it is scored against), as the benchmark declares them (`BenchmarkSpec.question_fields`);
    settings that vary between conditions worth comparing (shots, prompt style, decoding)
    are not among them."""
    from lexbench import plugins

    spec = plugins.spec_for_run(benchmark)
    fields = spec.question_fields.get(benchmark) if spec is not None else None
    return tuple(fields) if fields else FALLBACK_QUESTION_FIELDS


def item_key(benchmark: str, row: Mapping[str, Any]) -> str:
    """`id#hash-of-the-question`: equal only for the same item asked the same question."""
    question = {name: row.get(name) for name in question_fields(benchmark)}
    return f"{row['id']}#{content_hash(question, 16)}"


def dataset_hashes(config: Mapping[str, Any]) -> dict[str, str]:
    """Every `...sha256` value the benchmark config records (dataset or data file)."""
    found: dict[str, str] = {}

    def walk(value: Any, prefix: str) -> None:
        if isinstance(value, Mapping):
            for key in sorted(value):
                walk(value[key], f"{prefix}{key}.")
        elif prefix.rstrip(".").endswith("sha256") and isinstance(value, str):
            found[prefix.rstrip(".")] = value

    walk(config.get("benchmark", {}), "")
    return found


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def displayable(value: Any) -> Any:
    """`value` with lone surrogates in its strings written as visible `\udcff` escapes."""
    if isinstance(value, str):
        if _LONE_SURROGATE.search(value) is None:
            return value
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", value)
    if isinstance(value, list):
        return [displayable(v) for v in value]
    if isinstance(value, dict):
        return {displayable(k): displayable(v) for k, v in value.items()}
    return value


def failed_requests(run: LoadedRun) -> tuple[int, int]:
    """(failed, sent-or-cached requests) as the runner counted them in results.json
    (`run.failed`, `run.requests`); (0, 0) for a run folder that does not say."""
    counts = run.results.get("run")
    if not isinstance(counts, Mapping):
        return 0, 0
    return int(counts.get("failed") or 0), int(counts.get("requests") or 0)


def failure_flag(run: LoadedRun) -> str:
    """ "every request failed (40 of 40)" for a run whose every request failed (its scores
    are the failures', not the model's), "3 of 40 requests failed" for some; "" for none.
    Reports, the leaderboard and compare show it beside the run."""
    failed, requests = failed_requests(run)
    if not failed:
        return ""
    if failed >= requests:
        return f"every request failed ({failed} of {requests})"
    return f"{failed} of {requests} requests failed"


def is_run_folder(path: Path) -> bool:
    folder = RunFolder(path)
    return all(p.is_file() for p in (folder.results_path, folder.samples_path, folder.config_path))


def discover(paths: Iterable[str | Path]) -> list[Path]:
    """Run folders named by `paths`: each a run folder or a directory that holds some."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file or directory")
        if is_run_folder(path):
            found.append(path)
            continue
        if not path.is_dir():
            raise ValueError(
                f"{path} is not a run folder (expected a directory with config.json, "
                f"samples.jsonl and results.json)"
            )
        nested = sorted(p.parent for p in path.rglob("results.json") if is_run_folder(p.parent))
        if not nested:
            raise FileNotFoundError(
                f"{path} is not a lexbench run folder and holds none "
                f"(no config.json + samples.jsonl + results.json below it)"
            )
        found.extend(nested)
    unique = list(dict.fromkeys(p.resolve() for p in found))
    if not unique:
        raise ValueError("no run folders given")
    return unique


def _check(path: Path, samples: Sequence[Mapping[str, Any]], results: Mapping[str, Any]) -> None:
    if not isinstance(results, Mapping) or "benchmark" not in results:
        raise ValueError(f"{path}/results.json has no 'benchmark' field")
    overall = results.get("overall")
    counted = overall.get("n") if isinstance(overall, Mapping) else None
    if not samples:
        raise ValueError(
            f"{path}/samples.jsonl is empty"
            + (f" but results.json counts {counted} items" if counted else "")
            + ": the run folder is incomplete; run the command again to rewrite it"
        )
    if isinstance(counted, int) and not isinstance(counted, bool) and counted > len(samples):
        raise ValueError(
            f"{path}: results.json counts {counted} items but samples.jsonl holds "
            f"{len(samples)}: the files come from different runs; run the "
            f"command again to rewrite the folder"
        )
    for number, row in enumerate(samples, 1):
        if not isinstance(row, Mapping):
            raise ValueError(
                f"{path}/samples.jsonl line {number}: expected a JSON object, "
                f"got {type(row).__name__}"
            )
        missing = [f for f in REQUIRED_SAMPLE_FIELDS if f not in row]
        if missing:
            raise ValueError(f"{path}/samples.jsonl line {number}: missing {', '.join(missing)}")
        if row["correct"] not in (True, False, None):
            raise ValueError(
                f"{path}/samples.jsonl line {number}: 'correct' must be true, false "
                f"or null, got {row['correct']!r}"
            )
        value = row["value"]
        # null is accepted: some benchmarks write null for a score that is undefined (NaN).
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ValueError(
                f"{path}/samples.jsonl line {number}: 'value' must be a number "
                f"or null, got {value!r}"
            )
    repeated = sorted(k for k, n in Counter(str(r["id"]) for r in samples).items() if n > 1)
    if repeated:
        raise ValueError(f"{path}/samples.jsonl: sample ids repeat: {repeated[:5]}")


def load_run(path: str | Path, label: str = "") -> LoadedRun:
    path = Path(path)
    config, samples, results = read_run(path)
    _check(path, samples, results)
    samples = displayable(samples)
    report_path = RunFolder(path).report_path
    report = report_path.read_text(encoding="utf-8") if report_path.is_file() else ""
    run = LoadedRun(
        path=path,
        config=config,
        samples=samples,
        results=results,
        report_markdown=report,
        label=label,
    )
    return run if label else replace(run, label=run.model_name)


def _flatten(value: Any, prefix: str = "") -> dict[str, str]:
    """{"decoding.max_new_tokens": "8", ...}: scalar settings, for telling runs apart."""
    if isinstance(value, Mapping):
        out: dict[str, str] = {}
        for key in sorted(value):
            out.update(_flatten(value[key], f"{prefix}{key}."))
        return out
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return {prefix.rstrip("."): text if len(text) <= 40 else text[:37] + "..."}


# Settings that differ between any two runs but say nothing a reader needs in a label.
_LABEL_NOISE = ("dataset_sha256", "file_sha256", "items", "decoding", "answer_guard", "name")


def _setting(config: Mapping[str, Any], dotted: str) -> Any:
    value: Any = config
    for part in dotted.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def _plain(value: Any) -> Any:
    return [_plain(v) for v in value] if isinstance(value, (list, tuple)) else value


def _shown(value: Any, path: bool = False) -> str:
    """A setting's value as a label shows it: short, no JSON quotes; a file or folder
    (`path`) by its name."""
    if isinstance(value, (list, tuple)):
        text = "+".join(_shown(v) for v in value)
    elif isinstance(value, bool):
        text = "yes" if value else "no"
    elif isinstance(value, float):
        text = f"{value:g}"
    elif isinstance(value, Mapping):
        text = " ".join(f"{key}:{_shown(value[key])}" for key in sorted(value))
    else:
        text = str(value)
        if path and "/" in text:  # a data file or folder: its name says enough
            text = Path(text).name or text
    return text if len(text) <= 32 else text[:29] + "..."


#: The prompt wording a run used, recorded only when it is not the paper's.
WORDING = LabelSetting("benchmark.prompt_variant", "wording")

#: Label settings whose values are files or folders, shown by their names.
PATH_SETTINGS = ("data", "items", "grid")


def changed_settings(run: LoadedRun) -> list[str] | None:
    """["prompt=completion", "limit=5"]: the settings of `run` that differ from its
    benchmark's defaults; None when the benchmark declares no label settings."""
    from lexbench import plugins

    spec = plugins.spec_for_run(run.benchmark)
    if spec is None or not spec.label_settings:
        return None
    shown = []
    # A wording other than the paper's (`--prompt-variant`) names every benchmark's run.
    for setting in (*spec.label_settings, WORDING):
        if setting.only_when and _setting(run.config, setting.only_when[0]) != setting.only_when[1]:
            continue
        value = _setting(run.config, setting.key)
        if value is None or _plain(value) == _plain(setting.default):
            continue
        shown.append(f"{setting.name}={_shown(value, setting.name in PATH_SETTINGS)}")
    return shown


def _settings_labels(runs: Sequence[LoadedRun]) -> list[str]:
    """The model plus its changed settings; "(defaults)" where another run of the same
    benchmark and model is beside it."""
    changed = [changed_settings(run) for run in runs]
    models = Counter((run.benchmark, run.model_name) for run in runs)
    labels = []
    for run, settings in zip(runs, changed):
        if settings:
            labels.append(f"{run.model_name} ({', '.join(settings)})")
        elif settings is not None and models[(run.benchmark, run.model_name)] > 1:
            labels.append(f"{run.model_name} (defaults)")
        else:
            labels.append(run.model_name)
    return labels


def distinguishing_settings(runs: Sequence[LoadedRun]) -> list[dict[str, str]]:
    """Per run, the benchmark settings whose values differ across `runs` (short ones
    first); where none does, the model's (the same model served at two URLs is
    `base_url=...`, not two bare config hashes)."""
    found = _differing([_flatten(run.config.get("benchmark", {})) for run in runs])
    if any(found):
        return found
    return _differing([_flatten(_model_identity(run.config)) for run in runs])


def _model_identity(config: Mapping[str, Any]) -> Mapping[str, Any]:
    """The model's settings that make its answers what they are: its fingerprint (what
    config.json records of it, less the readable extras a backend adds, such as how
    batching went)."""
    model = config.get("model", {})
    return {k: v for k, v in model.items() if k not in _MODEL_EXTRAS} if model else {}


#: What a backend's `describe` adds beside its fingerprint: how a run went, not what it ran.
_MODEL_EXTRAS = ("kinds", "max_concurrency", "prompts_per_request", "batching", "name")


def _differing(flat: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    keys = sorted({k for f in flat for k in f})
    differing = [k for k in keys if len({f.get(k) for f in flat}) > 1]
    readable = [
        k
        for k in differing
        if not k.startswith(_LABEL_NOISE) and not k.endswith(("sha256", "fingerprint", "hash"))
    ] or differing
    return [{k: f.get(k, "-") for k in readable[:3]} for f in flat]


def _unquoted(value: str) -> str:
    """A flattened setting for a label: JSON quotes off, null (not set) as "unset"."""
    return "unset" if value in ("null", "-") else value.strip('"')


def label_runs(runs: Sequence[LoadedRun]) -> list[LoadedRun]:
    """Give each run a label unique among the runs of its benchmark."""
    labels = _settings_labels(runs)
    keys = [(run.benchmark, label) for run, label in zip(runs, labels)]
    for key in [k for k, c in Counter(keys).items() if c > 1]:
        name = key[1]
        members = [i for i, k in enumerate(keys) if k == key]
        settings = distinguishing_settings([runs[i] for i in members])
        for i, differing in zip(members, settings):
            if differing:
                shown = ", ".join(
                    f"{k.split('.')[-1]}={_unquoted(v)}" for k, v in differing.items()
                )
                labels[i] = f"{name} ({shown})" if "(" not in name else f"{name} [{shown}]"
    # Same model, same settings: the folder name (a config hash) tells them apart; if even
    # that repeats, number them in the order given.
    counts = Counter((run.benchmark, label) for run, label in zip(runs, labels))
    labels = [
        f"{label} [{run.path.name}]" if counts[(run.benchmark, label)] > 1 else label
        for label, run in zip(labels, runs)
    ]
    counts = Counter((run.benchmark, label) for run, label in zip(runs, labels))
    seen: Counter[tuple[str, str]] = Counter()
    numbered = []
    for run, label in zip(runs, labels):
        key = (run.benchmark, label)
        seen[key] += 1
        numbered.append(f"{label} #{seen[key]}" if counts[key] > 1 else label)
    return [replace(run, label=label) for run, label in zip(runs, numbered)]


def load_runs(paths: Iterable[str | Path]) -> list[LoadedRun]:
    """Read every run folder named by `paths` and label them apart."""
    return label_runs([load_run(p) for p in discover(paths)])
