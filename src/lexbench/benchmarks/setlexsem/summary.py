"""SetLexSem's results as a run streams: `SetLexSemTally` (`SetLexSemBenchmark.tally`) takes
each scored item once, in item order, and keeps only what the tables need; `finish()` is the
results.json body. `SetLexSemBenchmark.summarize` feeds one too, so there is one code path.

What it keeps, never an item or a Score: per configuration (6,048 in the paper grid) the
first item's hyperparameters, its counts (prompts, scored, right, leniently right) and three
doubles per scored prompt: its precision, recall and Jaccard; per error-analysis group
(`error_group`: design, operation, token type, condition) the error measures' counts
(`ErrorCounts`). Every table is a function of these. The doubles are kept, not summed as
they come, because results.json holds their means as Python's `sum()` over the prompts in
order, and `sum` of floats is compensated from Python 3.12 and plain before: calling `sum`
on the kept values at the end gives the same bits on every Python. The overall means need
the scored prompts in item order across configurations, so one configuration index per
scored prompt replays that order. Table 19 keeps the first right and the first wrong
example per operation; the readings' agreement is four counters.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from operator import attrgetter
from typing import Any

from lexbench.benchmarks.setlexsem.analysis import (
    factor_table,
    lexbench_tables,
    paper_tables,
    spread,
    vocabulary_lengths_by_decile,
)
from lexbench.benchmarks.setlexsem.designs import (
    authors_decile_scope,
    in_decile_design,
    pooled_main,
)
from lexbench.benchmarks.setlexsem.errors import (
    ErrorCounts,
    deceptive_example,
    deceptive_examples,
    error_group,
    lexbench_error_tables,
    paper_error_tables,
    shows_examples,
)
from lexbench.benchmarks.setlexsem.items import CONFIG_FIELDS
from lexbench.benchmarks.setlexsem.narrative_table import phrasing_comparison
from lexbench.benchmarks.setlexsem.paper_parse import reading_agreement
from lexbench.stats import wilson_interval
from lexbench.types import Score

_hyperparameters = attrgetter(*CONFIG_FIELDS)
METRICS = ("precision", "recall", "jaccard")


def _mean(values: Iterable[float], n: int) -> float:
    return sum(values) / n if n else float("nan")


class ConfigTally:
    """One configuration's share of a run: its hyperparameters (as the first item gives
    them), counts and each scored prompt's precision, recall and Jaccard (`metrics`, three
    doubles a prompt, in item order)."""

    __slots__ = (
        "correct",
        "errors",
        "hyperparameters",
        "index",
        "lenient",
        "members",
        "metrics",
        "scored",
        "shows_examples",
        "studies",
    )

    def __init__(self, item: Any, index: int) -> None:
        self.hyperparameters: tuple[Any, ...] = _hyperparameters(item)
        self.studies: tuple[str, ...] = tuple(item.studies)
        self.index = index
        self.members = self.scored = self.correct = self.lenient = 0
        self.metrics = array("d")
        self.errors: ErrorCounts | None = None  # its error group's, shared (None: no table)
        self.shows_examples = shows_examples(self.fields())

    def fields(self) -> dict[str, Any]:
        return dict(zip(CONFIG_FIELDS, self.hyperparameters))

    def record(self) -> dict[str, Any]:
        """The configuration's row of results.json ("configurations")."""
        n = self.scored
        return {
            **self.fields(),
            "studies": list(self.studies),
            "n": n,
            "correct": self.correct,
            "failed": self.members - n,
            "accuracy": self.correct / n if n else float("nan"),
            "lenient_correct": self.lenient,
            "lenient_accuracy": self.lenient / n if n else float("nan"),
            **{name: _mean(self.metrics[offset::3], n) for offset, name in enumerate(METRICS)},
        }


class SetLexSemTally:
    """The streaming summary (the `Tally` protocol): `add(item, score)` once per item in
    item order, then `finish()`, equal to `SetLexSemBenchmark.summarize` on the same
    items and scores."""

    def __init__(self, model: str = "model", parser: str = "paper") -> None:
        self.model = model
        self.parser = parser
        self._configs: dict[str, ConfigTally] = {}
        self._order = array("I")  # each scored prompt's configuration index, in item order
        self._failed = 0
        self._error_classes: dict[Any, int] = {}
        self._readings: dict[tuple[bool, bool], int] = {}  # (paper right, lexbench right)
        self._examples: dict[tuple[str, bool], dict[str, Any]] = {}
        self._error_groups: dict[tuple[Any, ...], ErrorCounts] = {}

    def add(self, item: Any, score: Score) -> None:
        config = self._configs.get(item.config_id)
        if config is None:
            config = self._configs[item.config_id] = self._new_config(item)
        elif _hyperparameters(item) != config.hyperparameters:
            raise ValueError(
                f"SetLexSem item {item.id!r} has configuration {item.config_id!r} but other "
                f"hyperparameters than its first item; one config_id names one configuration"
            )
        config.members += 1
        self._error_classes[score.error_class] = self._error_classes.get(score.error_class, 0) + 1
        if score.correct is None:
            self._failed += 1
            return
        details = score.details
        config.scored += 1
        if score.correct:
            config.correct += 1
        if details.get("lenient", details).get("correct"):
            config.lenient += 1
        get = details.get
        config.metrics.extend(
            (float(get("precision", 0.0)), float(get("recall", 0.0)), float(get("jaccard", 0.0)))
        )
        self._order.append(config.index)
        if config.errors is not None:
            config.errors.add(len(item.answer), details)
        if "readings" in details:
            readings = details["readings"]
            key = (bool(readings["paper"]["correct"]), bool(readings["lexbench"]["correct"]))
            self._readings[key] = self._readings.get(key, 0) + 1
        if config.shows_examples:
            example = (item.operation, bool(score.correct))
            if example not in self._examples:
                self._examples[example] = deceptive_example(item, details, bool(score.correct))

    def _new_config(self, item: Any) -> ConfigTally:
        config = ConfigTally(item, len(self._configs))
        group = error_group(config.fields())
        if group is not None:
            config.errors = self._error_groups.setdefault(group, ErrorCounts())
        return config

    def finish(self) -> dict[str, Any]:
        configs = [c.record() for c in self._configs.values()]
        n = len(self._order)
        k = sum(c["correct"] for c in configs)
        lenient_configs = [
            {**c, "accuracy": c["lenient_accuracy"], "correct": c["lenient_correct"]}
            for c in configs
        ]
        lenient_k = sum(c["lenient_correct"] for c in configs)
        results: dict[str, Any] = {
            "benchmark": "setlexsem",
            "model": self.model,
            "overall": {
                "prompts": n,
                "correct": k,
                "accuracy": k / n if n else float("nan"),
                "wilson": wilson_interval(k, n).to_dict(),
                **{name: self._overall_mean(offset) for offset, name in enumerate(METRICS)},
                **spread(configs),
            },
            "failed_requests": self._failed,
            "paper_tables": paper_tables(configs, self.model),
            "paper_error_tables": paper_error_tables(self._error_groups, configs),
            "lexbench_error_tables": lexbench_error_tables(self._error_groups, configs),
            "table19_examples": deceptive_examples(self._examples),
            "lexbench_tables": lexbench_tables(configs),
            # Secondary: the first {...} in the output when the answer tag is missing.
            "lenient": {
                "accuracy": lenient_k / n if n else float("nan"),
                "wilson": wilson_interval(lenient_k, n).to_dict(),
                "by_operation": factor_table(pooled_main(lenient_configs), ["operation"]),
            },
            "error_classes": dict(sorted(self._error_classes.items())),
            "configurations": configs,
        }
        scope = authors_decile_scope(configs)
        if any(in_decile_design(c, scope) for c in configs):
            results["vocabulary_deciles"] = vocabulary_lengths_by_decile(scope)
        results["readings"] = reading_agreement(self._readings, self.parser)
        # Only a run with a narrative phrasing gets the paired phrasing table.
        paired = phrasing_comparison(configs)
        if paired is not None:
            results["lexbench_tables"]["phrasing_paired"] = paired
        return results

    def _overall_mean(self, offset: int) -> float:
        """The mean of one metric over every scored prompt, summed in item order."""
        columns = [iter(c.metrics[offset::3]) for c in self._configs.values()]
        return _mean((next(columns[index]) for index in self._order), len(self._order))
