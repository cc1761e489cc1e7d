"""One run, asked for as one value: `RunRequest` holds everything a run needs (the benchmark
and its builder options, the model spec and its options, the wording, the item set, chat
and a system prompt, the slice, where the run folder and the cache go, progress, what a
failed request means), and `api.run(request)` runs it.

Every command builds its requests once, from its arguments (`lexbench.commands.requests`);
the planner (`lexbench.plan`) makes a plan's cells by replacing fields of one. Nothing a
run needs travels in a global or a mutated namespace, and each run's config.json records
its request (`request_record`), so every option given is either there or was refused.

    >>> request = RunRequest("lambda", model="smollm2-135m", limit=50)
    >>> request.with_model("gemma3-270m").model, request.limit
    ('gemma3-270m', 50)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from lexbench.terminal import strip_url_credentials
from lexbench.wordings import PAPER

#: Where run folders go when no `--out` is given (`lexbench run`, `leaderboard`, `report`).
DEFAULT_RUNS = Path("runs")


@dataclass(frozen=True)
class RunRequest:
    """Everything one run needs. Fields left at their defaults mean "as the benchmark
    publishes it": the paper's wording, the benchmark's own item seed, every item.

    * `options`: the benchmark builder's own options (`BenchmarkSpec.build`), e.g. LAMBDA's
      `prompt_style`; the shared ones below are separate fields.
    * `model`: a model spec ("smollm2-135m", "openai:NAME"); None: the benchmark's default.
      `model_options`: what the backend is opened with (dtype, base_url, ...).
    * `wording`: a prompt wording the benchmark declares (`lexbench.wordings`).
    * `item_seed`: draw a fresh item set with this seed (`BenchmarkSpec.regenerate`); None:
      the items the options draw.
    * `chat`: wrap generated prompts in the model's chat format (None: the benchmark's
      measured default); `system_prompt`: the chat format's system turn.
    * `limit`: the first N items of each stratum (`BenchmarkSpec.limit_option`); `data`: the
      benchmark's data file or folder (`BenchmarkSpec.data_option`).
    * `out`, `cache`, `use_cache`, `progress`: where the run folder and the response cache
      go, and whether a bar is drawn. `allow_failures`: a run with failed requests still
      exits 0.
    """

    benchmark: str
    options: Mapping[str, Any] = field(default_factory=dict)
    model: str | None = None
    model_options: Mapping[str, Any] = field(default_factory=dict)
    wording: str = PAPER
    item_seed: int | None = None
    chat: bool | None = None
    system_prompt: str | None = None
    limit: int | None = None
    data: str | Path | None = None
    out: Path = DEFAULT_RUNS
    cache: Path | None = None
    use_cache: bool = True
    progress: bool = True
    allow_failures: bool = False

    def __post_init__(self) -> None:
        if not self.benchmark:
            raise ValueError("a run request names no benchmark")
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"--limit takes 1 or more items, got {self.limit}")
        if self.system_prompt is not None and not self.system_prompt.strip():
            raise ValueError("--system-prompt is empty: give the text of the system turn")
        object.__setattr__(self, "out", Path(self.out))

    def with_model(self, model: str | None, **options: Any) -> RunRequest:
        """The same run on another model (`options` added to the model's options)."""
        return replace(self, model=model, model_options={**self.model_options, **options})

    def with_options(self, **options: Any) -> RunRequest:
        """The same run with some builder options changed."""
        return replace(self, options={**self.options, **options})


def request_record(request: RunRequest) -> dict[str, Any]:
    """The request as config.json records it (plain JSON; credentials in a URL removed):
    what the run was asked, beside what it ran (the benchmark's and the model's configs).
    Every field is recorded, so a new option reaches config.json with its field."""
    record: dict[str, Any] = {}
    for item in fields(request):
        value = getattr(request, item.name)
        if item.name == "model_options":
            value = {
                key: strip_url_credentials(v) if isinstance(v, str) else v
                for key, v in sorted(value.items())
            }
        elif isinstance(value, Mapping):
            value = dict(value)
        elif isinstance(value, Path):
            value = str(value)
        record[item.name] = value
    return record
