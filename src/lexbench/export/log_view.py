"""What inspect's viewer shows of one lexbench sample (a samples.jsonl line): the input, the
model's reply, the target and the parsed answer (`lexbench.export.inspect_log` writes them).

* input: lexbench's prompt; a word-vector run sends none, so the analogy `a : b :: c : ?`;
* reply: the generated text; for a ranking request the ranked tokens, numbered (the run's
  top-k, as the model returned them); for a log-likelihood request the answer lexbench chose,
  then each choice's summed log-probability; nothing for a request that failed (the sample
  carries the failure as its error instead);
* target: what the item accepts: LAMBDA's accepted set R(E) (`candidates`), a ranking item's
  target words, SetLexSem's answer set, SAT's answer pair, else the gold answer;
* answer: what lexbench read from the reply (SetLexSem: the parsed set; SAT: the pair it
  chose).

The benchmarks lay out their samples differently, so the few that differ are named here;
any other benchmark (a plugin's) gets the generic fields.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: samples.jsonl fields that name what an item accepts, in the order they are looked for.
TARGET_FIELDS = ("gold", "golds", "targets", "target", "expected", "answer_key")

Sample = Mapping[str, Any]


def _text(value: Any, joiner: str = ", ") -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return joiner.join(str(v) for v in value)
    return str(value)


def _pair(value: Any) -> str:
    """A choice as the benchmarks write one: `up:down` for a word pair."""
    return _text(value, ":")


def _set_text(members: Any) -> str:
    """A set as SetLexSem's prompts write one: `{36, 38}`; `{}` for the empty set."""
    return "{" + ", ".join(str(m) for m in members or []) + "}"


def _response(sample: Sample) -> Mapping[str, Any]:
    responses = sample.get("responses") or [{}]
    first = responses[0]
    return first if isinstance(first, Mapping) else {}


def failure(sample: Sample) -> str | None:
    """Why the sample's request failed (the runner's message), or None."""
    error = sample.get("error") or _response(sample).get("error")
    return str(error) if error else None


# ------------------------------------------------------------------------------ input


def sample_input(sample: Sample) -> str:
    """lexbench's prompt, else (a word-vector run) the analogy it solved."""
    prompt = sample.get("prompt") or _response(sample).get("prompt")
    if prompt:
        return str(prompt)
    if all(sample.get(k) for k in ("a", "b", "c")):
        return f"{sample['a']} : {sample['b']} :: {sample['c']} : ?"
    if sample.get("a") and sample.get("b") and sample.get("choices"):
        options = "; ".join(_pair(c) for c in sample["choices"])
        return f"{sample['a']} : {sample['b']} :: ? ({options})"
    return ""


# ------------------------------------------------------------------------------ reply


def _token(entry: Any) -> str:
    """A ranked entry's text: samples store [id, text, score] (or {"text": ...})."""
    if isinstance(entry, Mapping):
        return str(entry.get("text", ""))
    if isinstance(entry, (list, tuple)) and len(entry) >= 2:
        return str(entry[1])
    return str(entry)


def ranked_tokens(sample: Sample) -> list[str]:
    """The ranked tokens (or words) of a ranking request, best first."""
    ranked = _response(sample).get("ranked") or sample.get("ranked") or []
    return [_token(entry) for entry in ranked]


def _code(text: str) -> str:
    """`text` as a markdown code span (the viewer renders replies as markdown): a token's
    leading space and characters such as `*` stay as they are."""
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}" if text.strip() else repr(text)


def _choice_labels(sample: Sample, count: int) -> list[str]:
    choices = sample.get("choices")
    texts = [_pair(c) for c in choices] if isinstance(choices, list) else []
    letters = string.ascii_uppercase
    return [
        f"{letters[i] if i < len(letters) else i + 1}. {texts[i] if i < len(texts) else ''}"
        for i in range(count)
    ]


def sample_reply(sample: Sample, benchmark: str) -> str:
    """The model's reply as the viewer shows it (markdown)."""
    if failure(sample):
        return ""
    tokens = ranked_tokens(sample)
    if tokens:
        return "\n".join(f"{i}. {_code(token)}" for i, token in enumerate(tokens, 1))
    loglikelihoods: Sequence[Any] = _response(sample).get("loglikelihoods") or []
    if loglikelihoods:
        chosen = sample_answer(sample, benchmark)
        lines = [
            f"- {label}: {float(value):.3f}"
            for label, value in zip(_choice_labels(sample, len(loglikelihoods)), loglikelihoods)
        ]
        head = f"chose {chosen}" if chosen is not None else "chose nothing"
        return "\n".join([head, "", "summed log-probability of each choice:", "", *lines])
    output = sample.get("output")
    if isinstance(output, str):
        return output
    return str(_response(sample).get("text") or "")


# ------------------------------------------------------------------------------ target, answer


def _sat_target(sample: Sample) -> str:
    choices, answer = sample.get("choices") or [], sample.get("answer")
    if isinstance(answer, int) and 0 <= answer < len(choices):
        return _pair(choices[answer])
    return _text(answer)


#: Benchmarks whose target is not among TARGET_FIELDS.
TARGETS: dict[str, Callable[[Sample], str | list[str]]] = {
    "lambda": lambda s: [str(c) for c in s.get("candidates") or [s.get("gold")]],
    "setlexsem": lambda s: _set_text(s.get("answer")),
    "sat": _sat_target,
}

#: Benchmarks whose parsed answer is not the sample's `answer` field.
ANSWERS: dict[str, Callable[[Sample], str | None]] = {
    "setlexsem": lambda s: (
        None if s.get("parsed_answer") is None else _set_text(s["parsed_answer"])
    ),
    "sat": lambda s: None if s.get("answer_given") is None else str(s["answer_given"]),
}


def sample_target(sample: Sample, benchmark: str) -> str | list[str]:
    """What the item accepts, as inspect's `target` (a string or a list of them)."""
    if benchmark in TARGETS:
        return TARGETS[benchmark](sample)
    for name in TARGET_FIELDS:
        value = sample.get(name)
        if value not in (None, "", []):
            return [str(v) for v in value] if isinstance(value, (list, tuple)) else str(value)
    return ""


def sample_answer(sample: Sample, benchmark: str) -> str | None:
    """The answer lexbench read from the reply, or None (nothing parsed)."""
    if benchmark in ANSWERS:
        return ANSWERS[benchmark](sample)
    answer = sample.get("answer")
    return None if answer is None else _text(answer)
