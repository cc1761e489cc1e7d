"""People as a model: `human:NAME` answers each request with what annotator NAME answered
in a study (`lexbench human serve`), so their run goes through the same `evaluate`, scorer,
run folder, report and comparison as any model's.

    model = load_model("human:alice", {"study": "studies/lambda"})

A request is matched to an answer by its content (`prompt_key`: kind, prompt and chat
messages; not the id, not the decoding), the same prompt the study stored for the step the
annotator answered. A request nobody answered gets a failed response naming the annotator,
so a partial study is scored on what was answered and never on guesses.

* `generate`: the saved output text (LAMBDA's word, E-KAR's letter, a SetLexSem set).
* `rank` (SCAN): the annotator's answer as the single ranked word; `target_ranks` is 1 for
  each target the whole answer equals (case-folded, lexbench's `normalise`), else None. A
  person is matched on whole words, where a causal LM is matched on the first token of
  " " + word: a person is not credited for starting a word right.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from lexbench.human.store import Study
from lexbench.models.base import Model
from lexbench.text import normalise, words
from lexbench.types import RankedToken, Request, Response, content_hash

OPTIONS = ("study",)


def prompt_key(request: Request) -> str:
    """What identifies a question, whatever its id or decoding: kind, prompt, chat turns."""
    payload: dict[str, Any] = {"kind": request.kind, "prompt": request.prompt}
    if request.chat:
        payload["messages"] = [list(m) for m in request.messages]
    return content_hash(payload, 32)


def word_id(word: str) -> int:
    """A stable id for a normalised word (the same in every process)."""
    return int(hashlib.sha256(normalise(word).encode("utf-8")).hexdigest()[:12], 16)


class HumanModel(Model):
    """One annotator's saved answers, keyed by `prompt_key`."""

    kinds = frozenset({"generate", "rank"})

    def __init__(self, annotator: str, answers: Mapping[str, str], source: Mapping[str, Any]):
        self.annotator = annotator
        self.name = f"human:{annotator}"
        self._answers = dict(answers)
        self._source = dict(source)

    def fingerprint(self) -> dict[str, Any]:
        # The annotator and the study name whose answers these are; the study id is random
        # per study, so two studies never share a run folder or a cache entry.
        return {
            "backend": "human",
            "annotator": self.annotator,
            "study": self._source.get("study_id"),
        }

    def describe(self) -> dict[str, Any]:
        return {
            **super().describe(),
            **{k: v for k, v in self._source.items() if k != "study_id"},
            "answers": len(self._answers),
        }

    def _missing(self, request: Request) -> Response:
        return Response(
            request_id=request.id,
            error=f"{self.name} has no saved answer to this request "
            f"(study {self._source.get('study_id')})",
        )

    def generate(self, requests: Sequence[Request]) -> list[Response]:
        out = []
        for request in requests:
            text = self._answers.get(prompt_key(request))
            out.append(
                self._missing(request)
                if text is None
                else Response(request_id=request.id, text=text, generated_tokens=len(words(text)))
            )
        return out

    def rank(self, requests: Sequence[Request]) -> list[Response]:
        out = []
        for request in requests:
            text = self._answers.get(prompt_key(request))
            if text is None:
                out.append(self._missing(request))
                continue
            said = normalise(text)
            ranked = (RankedToken(word_id(said.split()[0]), said, 0.0),) if said else ()
            ranks = tuple(
                1 if said and said == normalise(target) else None for target in request.targets
            )
            out.append(
                Response(
                    request_id=request.id,
                    text=text,
                    ranked=ranked,
                    target_ranks=ranks,
                    generated_tokens=len(said.split()),
                )
            )
        return out


def load(name: str, options: Mapping[str, Any]) -> HumanModel:
    """`human:NAME` with option `study` (a study directory from `lexbench human serve`)."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ValueError(
            f"backend human does not take option(s) {', '.join(unknown)}; "
            f"it takes: {', '.join(OPTIONS)}"
        )
    if "study" not in options:
        raise ValueError(
            f"human:{name} needs the study its answers are in: option 'study' "
            f"(a directory from `lexbench human serve`)"
        )
    study = Study(options["study"])
    try:
        if name not in study.annotators():
            raise ValueError(
                f"study {study.directory} has no annotator {name!r}; it has: "
                f"{', '.join(study.annotators()) or 'none yet'}"
            )
        return HumanModel(
            name,
            study.answer_book(name),
            {"study_id": study.id, "study_path": str(study.directory)},
        )
    finally:
        study.close()
