"""`lexbench export ... --verify MODEL`: the exported task run by the other tool itself and
the same items run by lexbench on the same model, compared item by item.

    lexbench export scan --format inspect --limit 1 -o scan-inspect --verify smollm2-135m

lexbench runs the benchmark exactly as the export built it (the same items and requests,
in the prompt mode the manifest names); the other tool runs its own command line on the
folder (`lexbench.export.tool_runs`). lm-eval reports a verdict per item; inspect_ai a
verdict and a graded value (the reciprocal rank for the ranking sets): both must be equal.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexbench.export.scorer import ExportScorer
from lexbench.export.tool_runs import Verdict


@dataclass
class Agreement:
    """The two tools' verdicts on one exported benchmark."""

    benchmark: str
    tool: str
    theirs: dict[str, Verdict]
    ours: dict[str, Verdict]
    notes: list[str] = field(default_factory=list)

    def same(self, item_id: str) -> bool:
        theirs, ours = self.theirs.get(item_id), self.ours.get(item_id)
        if theirs is None or ours is None:
            return False
        if theirs.correct != ours.correct:
            return False
        if theirs.value is None or ours.value is None:
            return True
        return round(theirs.value, 9) == round(ours.value, 9)

    @property
    def item_ids(self) -> list[str]:
        return sorted(set(self.theirs) | set(self.ours))

    @property
    def differing(self) -> list[str]:
        return [key for key in self.item_ids if not self.same(key)]

    @property
    def equal(self) -> int:
        return len(self.item_ids) - len(self.differing)

    def lines(self, shown: int = 20) -> list[str]:
        """The agreement line, then one line per differing item (the first `shown`)."""
        from lexbench.terminal import terminal_text

        total = len(self.item_ids)
        lines = [
            f"{self.benchmark} in {self.tool}: {self.equal}/{total} items give lexbench's "
            f"verdict" + ("" if self.differing else " (all equal)")
        ]
        for key in self.differing[:shown]:
            lines.append(
                f"  {key}: {self.tool} {_show(self.theirs.get(key))}; lexbench "
                f"{_show(self.ours.get(key))}"
            )
        if len(self.differing) > shown:
            lines.append(f"  ... and {len(self.differing) - shown} more")
        return [terminal_text(line) for line in [*lines, *self.notes]]


def _show(verdict: Verdict | None) -> str:
    if verdict is None:
        return "has no answer"
    value = "" if verdict.value is None else f", value {verdict.value:.4g}"
    return f"{verdict.output!r} ({'right' if verdict.correct else 'wrong'}{value})"


def lexbench_verdicts(
    folder: Path, model: Any, out_root: Path, *, graded: bool
) -> dict[str, Verdict]:
    """lexbench's runner on the exported items and requests, with `model` (a spec or an
    open model), in the export's prompt mode: {item id: verdict}. `graded`: keep the
    graded value (inspect reports one; lm-eval only a verdict)."""
    from lexbench.export.scorer import MANIFEST
    from lexbench.export.tool_runs import manifest_of
    from lexbench.heartbeat import long_step
    from lexbench.models.registry import open_model
    from lexbench.run.evaluate import evaluate
    from lexbench.run.store import read_run

    manifest = manifest_of(folder)
    scorer = ExportScorer(folder / MANIFEST)
    print(
        f"lexbench: running lexbench on the same {manifest['items']} items with "
        f"{getattr(model, 'name', model)}",
        file=sys.stderr,
        flush=True,
    )
    with contextlib.ExitStack() as stack:
        with long_step(f"loading {getattr(model, 'name', model)}"):
            backend = stack.enter_context(open_model(model))
        chat = manifest.get("prompt_mode") == "chat" and backend.has_chat_template()
        run = evaluate(
            scorer.benchmark,
            backend,
            out_root=out_root,
            cache=None,
            progress=True,  # lexbench's own bar: answers and tokens as they come
            chat=chat,
            run_options={"benchmark": manifest["benchmark"], **manifest.get("options", {})},
        )
    _, samples, _ = read_run(run.folder.path)
    return {
        str(s["id"]): Verdict(
            _sample_output(s, scorer), bool(s["correct"]), float(s["value"]) if graded else None
        )
        for s in samples
    }


def _sample_output(sample: dict[str, Any], scorer: ExportScorer) -> str:
    """What the model answered, as the other tool shows it: the text, the top token, or
    (a log-likelihood item) the option lexbench chose."""
    from lexbench.export.tool_runs import chosen_option

    output = sample.get("output")
    if isinstance(output, str):
        return output
    responses = sample.get("responses") or [{}]
    ranked = responses[0].get("ranked") or []
    if ranked:
        first = ranked[0]
        return str(first.get("text") if isinstance(first, dict) else first[1])
    loglikelihoods = responses[0].get("loglikelihoods") or []
    if loglikelihoods:
        return chosen_option(scorer, str(sample["id"]), [float(v) for v in loglikelihoods])
    return str(output)


def verify(fmt: str, folder: str | Path, model: str) -> Agreement:
    """Run the exported task in its tool and the same items in lexbench, on `model`."""
    from lexbench.export.tool_runs import (
        lexbench_model_spec,
        manifest_of,
        run_inspect,
        run_lm_eval,
        transformers_folder,
    )
    from lexbench.heartbeat import long_step

    folder = Path(folder).resolve()
    manifest = manifest_of(folder)
    with long_step(f"preparing {model} as a transformers folder for the tool"):
        model_folder = transformers_folder(model)
    notes = []
    with tempfile.TemporaryDirectory(prefix="lexbench-verify-") as work:
        if fmt == "lm-eval":
            theirs = run_lm_eval(
                folder, model_folder, Path(work) / "lm-eval", chat=manifest["prompt_mode"] == "chat"
            )
            tool = "lm-eval"
        elif fmt == "inspect":
            theirs = run_inspect(folder, model_folder, Path(work) / "inspect")
            tool = "inspect_ai"
        else:
            raise ValueError(f"--verify runs lm-eval or inspect exports, not {fmt!r}")
        ours = lexbench_verdicts(
            folder, lexbench_model_spec(model), Path(work) / "runs", graded=fmt == "inspect"
        )
    if fmt == "lm-eval" and request_kind(folder) == "rank":
        notes.append(RANK_NOTE)
    return Agreement(manifest["benchmark"], tool, theirs, ours, notes)


RANK_NOTE = (
    "note: lm-eval has no top-k request, so this ranking benchmark is exported as acc@1 (the "
    "model's most likely next token); MRR@10 and recall@k need --format inspect"
)


def request_kind(folder: Path) -> str:
    """The kind of request the exported benchmark asks for each item."""
    from lexbench.export.scorer import MANIFEST, ExportScorer

    scorer = ExportScorer(folder / MANIFEST)
    first = next(iter(scorer.benchmark.items()))
    return scorer.request(str(first.id)).kind
