"""BLEURT and MoverScore, the E-KAR paper's two learned text-generation metrics, run only
when their package and a local checkpoint are both present.

Neither checkpoint ships in any offline package (BLEURT's are downloads from Google's
storage, MoverScore's encoder a Hub download), so by default both are *skipped*, and the
run says so with the reason in results.json and report.md rather than leaving the columns
out silently. Name a checkpoint to run one:

* BLEURT: `--bleurt-checkpoint DIR`, read by Google's `bleurt` package (TensorFlow; what
  the paper used) or, when only it is installed, by `bleurt-pytorch` (a port that reads
  converted checkpoints).
* MoverScore: `--moverscore-model DIR`, a transformers encoder folder read by the
  `moverscore` package's `moverscore_v2` (which loads its encoder when imported, from the
  `MOVERSCORE_MODEL` environment variable; its default, distilbert-base-uncased, is a Hub
  download).

A checkpoint that is named but cannot be used (no such folder, package missing) is an
error, not a skip: the user asked for that metric.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class MetricPlan:
    """Whether a learned metric runs, and why not when it does not."""

    name: str
    checkpoint: Path | None
    backend: str | None  # the package that runs it, None when skipped
    skipped: str | None = None  # the reason, when skipped

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "checkpoint": str(self.checkpoint) if self.checkpoint else None,
            "backend": self.backend,
            "skipped": self.skipped,
        }


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _checked_folder(path: str | Path, option: str) -> Path:
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise FileNotFoundError(f"{option} {path}: no such folder")
    return folder


def plan_bleurt(checkpoint: str | Path | None) -> MetricPlan:
    """BLEURT runs with `checkpoint` and an installed package; else it is skipped."""
    packages = [m for m in ("bleurt", "bleurt_pytorch") if _installed(m)]
    if checkpoint is None:
        have = (
            f"package {packages[0]} is installed"
            if packages
            else "neither bleurt nor bleurt-pytorch is installed"
        )
        return MetricPlan(
            "bleurt",
            None,
            None,
            f"no BLEURT checkpoint given (--bleurt-checkpoint DIR); checkpoints "
            f"such as BLEURT-20 are downloads, not available offline; {have}",
        )
    folder = _checked_folder(checkpoint, "--bleurt-checkpoint")
    if not packages:
        raise ImportError(
            "--bleurt-checkpoint needs a BLEURT package: pip install "
            "git+https://github.com/google-research/bleurt (the paper's, "
            "TensorFlow) or pip install bleurt-pytorch"
        )
    return MetricPlan("bleurt", folder, packages[0])


def plan_moverscore(model: str | Path | None) -> MetricPlan:
    """MoverScore runs with an encoder folder and the moverscore package; else skipped."""
    installed = _installed("moverscore_v2")
    if model is None:
        have = (
            "package moverscore is installed"
            if installed
            else "package moverscore is not installed"
        )
        return MetricPlan(
            "moverscore",
            None,
            None,
            f"no MoverScore encoder given (--moverscore-model DIR); its default "
            f"(distilbert-base-uncased) is a Hub download, not available "
            f"offline; {have}",
        )
    folder = _checked_folder(model, "--moverscore-model")
    if not installed:
        raise ImportError(
            "--moverscore-model needs the moverscore package (and pyemd): "
            "pip install moverscore pyemd"
        )
    return MetricPlan("moverscore", folder, "moverscore_v2")


def bleurt_scores(
    plan: MetricPlan, predictions: Sequence[str], references: Sequence[str]
) -> list[float]:
    """BLEURT of each prediction against its reference."""
    _same_length(predictions, references)
    if plan.backend is None or plan.checkpoint is None:
        raise ValueError(f"BLEURT is skipped: {plan.skipped}")
    if not predictions:
        return []
    if plan.backend == "bleurt":
        from bleurt import score as bleurt_score

        scorer = bleurt_score.BleurtScorer(str(plan.checkpoint))
        return [
            float(x)
            for x in scorer.score(references=list(references), candidates=list(predictions))
        ]
    from lexbench.models.hf_threads import prepare_torch

    torch = prepare_torch()  # threads that hold up beside other processes (hf_threads)
    from bleurt_pytorch import BleurtForSequenceClassification, BleurtTokenizer

    tokenizer = BleurtTokenizer.from_pretrained(str(plan.checkpoint))
    model = BleurtForSequenceClassification.from_pretrained(str(plan.checkpoint)).eval()
    out: list[float] = []
    for start in range(0, len(predictions), 32):
        with torch.inference_mode():
            inputs = tokenizer(
                list(references[start : start + 32]),
                list(predictions[start : start + 32]),
                padding="longest",
                truncation=True,
                return_tensors="pt",
            )
            out += [float(x) for x in model(**inputs).logits.flatten().tolist()]
    return out


def moverscore_scores(
    plan: MetricPlan, predictions: Sequence[str], references: Sequence[str]
) -> list[float]:
    """MoverScore (unigrams, IDF from each side, no stop words) of each prediction."""
    _same_length(predictions, references)
    if plan.backend is None or plan.checkpoint is None:
        raise ValueError(f"MoverScore is skipped: {plan.skipped}")
    if not predictions:
        return []
    loaded = sys.modules.get("moverscore_v2")
    if loaded is not None and str(getattr(loaded, "model_name", "")) != str(plan.checkpoint):
        raise RuntimeError(
            f"moverscore_v2 was already imported with encoder "
            f"{getattr(loaded, 'model_name', '?')!r}; it reads its encoder once, "
            f"at import: run MoverScore with {plan.checkpoint} in a new process"
        )
    # moverscore_v2 loads its encoder when imported, from this variable.
    os.environ["MOVERSCORE_MODEL"] = str(plan.checkpoint)
    import moverscore_v2

    idf_references = moverscore_v2.get_idf_dict(list(references))
    idf_predictions = moverscore_v2.get_idf_dict(list(predictions))
    scores = moverscore_v2.word_mover_score(
        list(references),
        list(predictions),
        idf_references,
        idf_predictions,
        stop_words=[],
        n_gram=1,
        remove_subwords=True,
    )
    return [float(x) for x in scores]


def _same_length(predictions: Sequence[str], references: Sequence[str]) -> None:
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
