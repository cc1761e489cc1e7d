"""Score a finished run again from its recorded raw responses, for any benchmark.

Every samples.jsonl line carries the item id and the raw responses, and config.json the
options the benchmark was built with, so a run can be re-scored after a scorer changes
without asking the model anything: the benchmark is rebuilt (items regenerate
deterministically), each item's responses are read back, and scores, tables and the report
are computed again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.models.base import Model
from lexbench.types import REQUEST_KINDS, Response


class RecordedModel(Model):
    """Stands for the model of a finished run: it declares what that model answered (so the
    benchmark builds the same requests) and answers nothing."""

    def __init__(self, described: Mapping[str, Any]):
        self.name = str(described.get("name", "recorded"))
        self.kinds = frozenset(described.get("kinds") or REQUEST_KINDS)
        self._fingerprint = {k: v for k, v in described.items() if k not in ("name", "kinds")}

    def fingerprint(self) -> dict[str, Any]:
        return dict(self._fingerprint)


@dataclass(frozen=True)
class Rescored:
    results: dict[str, Any]
    report: str
    changed: int  # items whose verdict or value changed
    items: int


def recorded_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, row) of a samples.jsonl file, one at a time; a damaged line or a row
    without raw responses is an error naming the line."""
    from lexbench.run.files import iter_jsonl

    for number, row in iter_jsonl(path):
        if not isinstance(row, dict) or "responses" not in row or "id" not in row:
            raise ValueError(f"{path}: line {number} has no raw responses: run the benchmark again")
        yield number, row


class _Recorded:
    """The recorded rows, looked up by item id as the rebuilt items come: in step with the
    file while the ids follow its order (a run writes its samples in item order, so a
    re-score of any length reads it once), else from an index of the whole file."""

    def __init__(self, path: Path):
        self.path = path
        self._rows = recorded_rows(path)
        self._by_id: dict[str, dict[str, Any]] | None = None

    def row(self, item_id: str) -> dict[str, Any] | None:
        if self._by_id is None:
            for _, row in self._rows:
                if str(row["id"]) == item_id:
                    return row
                # Out of step (a run from before samples kept item order): index the file.
                self._by_id = {str(row["id"]): row}
                self._by_id.update((str(r["id"]), r) for _, r in recorded_rows(self.path))
                break
            else:
                return None
        return self._by_id.get(item_id)

    def read_rest(self) -> None:
        """Read the lines no item asked for, so a damaged one after the last item (a
        trailing `[1,2]`) is refused here as `report` and `compare` refuse it."""
        if self._by_id is None:
            for _ in self._rows:
                pass


def rescore_run(path: str | Path, *, write: bool = False) -> Rescored:
    """Score the run folder at `path` again; with `write`, replace its samples, results,
    report and figures (atomically, as a run does). Streams like a run: the samples are
    read, re-scored and written one item at a time."""
    from lexbench import plugins
    from lexbench.run.evaluate import apply_chat, sample_line, tally_of
    from lexbench.run.staging import StagedRun
    from lexbench.run.store import RunFolder, read_run_head

    folder = RunFolder(Path(path))
    config, old_results = read_run_head(folder.path)
    if next(recorded_rows(folder.samples_path), None) is None:
        raise ValueError(
            f"{folder.samples_path} is empty: nothing to re-score; run the "
            "benchmark again to rewrite the folder"
        )
    options = dict(config.get("run_options") or {})
    name = options.pop("benchmark", None)
    if name is None:
        raise ValueError(
            f"{folder.config_path} records no run options (a run made before "
            "lexbench recorded them): run the benchmark again to re-score it"
        )
    source = str(config.get("benchmark_source") or "")
    if source.startswith("path "):
        plugins.include([source[len("path ") :]])  # a benchmark added by --include
    spec = plugins.benchmark(name)
    benchmark = spec.build(RecordedModel(config.get("model") or {}), **options)
    # A run in another wording is re-scored in that wording (its samples keep their prompt).
    from lexbench.wordings import PAPER, apply_variant

    recorded = config.get("benchmark") or {}
    benchmark = apply_variant(spec, benchmark, recorded.get("prompt_variant") or PAPER)
    rows = _Recorded(folder.samples_path)
    tally = tally_of(benchmark)
    chat = bool(config.get("chat"))
    system_prompt = config.get("system_prompt")
    count = changed = 0
    with contextlib.ExitStack() as stack:
        staged = stack.enter_context(StagedRun(folder)) if write else None
        for item in benchmark.items():
            row = rows.row(str(item.id))
            if row is None:
                raise ValueError(
                    f"{folder.path}: the rebuilt benchmark has items the run did not "
                    f"record ({item.id!r}): the data or generator changed since the run"
                )
            requests = apply_chat(benchmark.requests(item), chat, system_prompt)
            responses = [Response.from_dict(r) for r in row["responses"]]
            if len(responses) != len(requests):
                raise ValueError(
                    f"{folder.samples_path}: item {item.id} recorded "
                    f"{len(responses)} responses for {len(requests)} requests"
                )
            score = benchmark.score(item, responses)
            tally.add(item, score)
            if staged is not None:
                staged.add_sample(sample_line(benchmark, item, requests, responses, score))
            changed += score.correct != row.get("correct") or score.value != row.get("value")
            count += 1
        rows.read_rest()
        results = tally.finish()
        # The report's "Requests: N (... sent ...)" line describes a model being asked; a
        # re-score asks nothing, so its report says so (results.json keeps the run's counts).
        report = benchmark.report(results).rstrip("\n") + "\n\n" + rescored_line(count)
        results["run"] = old_results.get("run", {})  # the requests of the run that was scored
        results["rescored"] = {"requests_sent": 0, "items": count, "changed": changed}
        if staged is not None:
            make_figures = getattr(benchmark, "figures", None)
            staged.finish(
                config,
                results,
                report,
                extra=None if make_figures is None else lambda p: make_figures(results, p),
            )
    return Rescored(results, report, changed, count)


def rescored_line(items: int) -> str:
    """The report's last line after a re-score, in place of the run's request counts."""
    return f"Re-scored from the recorded responses of {items} items: nothing sent\n"
