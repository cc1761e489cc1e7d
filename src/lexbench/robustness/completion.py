"""The completion probe of a public data file: does the model continue the file's rows as
they are written there?

Each probe shows the file's header, the rows just before one row, and that row's first
fields, exactly as in the file, and asks for a greedy continuation of the line; it is
completed when the continuation is the rest of the row (exact) or nearly so (a similarity
ratio of at least 0.9, so a changed quote or a dropped space still counts). The control is
built from the same rows in an order the file never had (rows shuffled within each group
of rows that share the leading fields: same words, same kind of row, fresh sequences):
the rest of a control row can be guessed as well as a real one from the words shown, but
it cannot have been read anywhere. A model that memorised the file completes the real rows
more often than the controls; a one-sided Fisher exact test says how surprising the
difference is.

    >>> split_raw('a,b,"c, d",e')
    ['a', 'b', '"c, d"', 'e']
    >>> completion_match("sun,,science", "sun,,science")
    'exact'
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lexbench.parts import NOT_AVAILABLE, PublicFile, p_text, pct
from lexbench.types import Decoding, Request

NEAR = 0.9
DECODING = Decoding(max_new_tokens=32, temperature=0.0, stop=("\n",))


@dataclass(frozen=True)
class Probe:
    id: str
    control: bool
    prompt: str
    expected: str
    row: str


def split_raw(row: str, delimiter: str = ",") -> list[str]:
    """A CSV line's fields as written (quotes kept), split where a delimiter is outside quotes."""
    fields: list[str] = []
    current: list[str] = []
    quoted = False
    for char in row:
        if char == '"':
            quoted = not quoted
        if char == delimiter and not quoted:
            fields.append("".join(current))
            current = []
        else:
            current.append(char)
    fields.append("".join(current))
    return fields


def _probe(
    file: PublicFile, sequence: Sequence[str], position: int, id: str, control: bool
) -> Probe:
    fields = split_raw(sequence[position], file.delimiter)
    shown = file.delimiter.join(fields[: file.prefix_fields]) + file.delimiter
    context = sequence[max(0, position - file.context_rows) : position]
    prompt = "\n".join([*([file.header] if file.header else []), *context, shown])
    rest = file.delimiter.join(fields[file.prefix_fields :])
    return Probe(id, control, prompt, rest, sequence[position])


def _probed(file: PublicFile, row: str) -> bool:
    return len(split_raw(row, file.delimiter)) > file.prefix_fields


def control_sequence(file: PublicFile, seed: int = 0) -> list[str]:
    """The file's rows shuffled within each group (seeded; a group keeps its place)."""
    rng = random.Random(seed)
    groups: dict[tuple[str, ...], list[int]] = {}
    for index, row in enumerate(file.rows):
        key = (
            (file.groups[index],)
            if file.groups
            else tuple(split_raw(row, file.delimiter)[: file.group_fields])
        )
        groups.setdefault(key, []).append(index)
    out = list(file.rows)
    for positions in groups.values():
        members = [file.rows[p] for p in positions]
        rng.shuffle(members)
        for p, row in zip(positions, members):
            out[p] = row
    return out


def probes(file: PublicFile, seed: int = 0) -> list[Probe]:
    """A real probe per row with at least `prefix_fields + 1` fields, and a control probe
    per position whose shuffled context and row differ from the file's there (a group of
    one row, or a shuffle that left a row and its context in place, has no control)."""
    if file.groups and len(file.groups) != len(file.rows):
        raise ValueError(f"{file.name}: {len(file.groups)} group keys for {len(file.rows)} rows")
    control = control_sequence(file, seed)
    positions = [p for p, row in enumerate(file.rows) if _probed(file, row)]
    if file.sample is not None and file.sample < len(positions):
        positions = sorted(random.Random(seed).sample(positions, file.sample))
    real_prompts = set()
    out = []
    for position in positions:
        probe = _probe(file, file.rows, position, f"row{position + 1}", False)
        real_prompts.add((probe.prompt, probe.expected))
        out.append(probe)
    for position in positions:
        if not _probed(file, control[position]):
            continue
        probe = _probe(file, control, position, f"control{position + 1}", True)
        if (probe.prompt, probe.expected) not in real_prompts:
            out.append(probe)
    return out


def completion_match(output: str, expected: str) -> str | None:
    """'exact' when the line the model wrote is the rest of the row, 'near' when nearly so
    (similarity ratio >= 0.9 over the row's length), else None."""
    line = output.split("\n", 1)[0].strip()
    want = expected.strip()
    if not want:
        return None
    if line == want or line.startswith(want):
        return "exact"
    ratio = difflib.SequenceMatcher(None, line[: len(want) + 3].lower(), want.lower()).ratio()
    return "near" if ratio >= NEAR else None


def probe_requests(found: Sequence[Probe]) -> list[Request]:
    return [Request(id=p.id, kind="generate", prompt=p.prompt, decoding=DECODING) for p in found]


def summarise_completion(
    file: PublicFile, found: Sequence[Probe], outputs: Sequence[str | None], seed: int
) -> dict[str, Any]:
    """The probe record: completion rate of real rows and of controls, the one-sided
    Fisher p, and the rows the model completed."""
    from lexbench.robustness.stats import fisher_exact_greater

    rows = []
    for probe, output in zip(found, outputs):
        match = completion_match(output or "", probe.expected) if output is not None else None
        rows.append((probe, output, match))
    real = [r for r in rows if not r[0].control and r[1] is not None]
    control = [r for r in rows if r[0].control and r[1] is not None]
    real_hits = sum(1 for r in real if r[2])
    control_hits = sum(1 for r in control if r[2])
    p = fisher_exact_greater(real_hits, len(real), control_hits, len(control))
    return {
        "kind": "completion",
        "file": file.name,
        "seed": seed,
        "near_threshold": NEAR,
        "real": {
            "probes": len(real),
            "completed": real_hits,
            "rate": real_hits / len(real) if real else None,
        },
        "control": {
            "probes": len(control),
            "completed": control_hits,
            "rate": control_hits / len(control) if control else None,
        },
        "p_value": p,
        "test": "one-sided Fisher exact (real rows completed more often than controls)",
        "flagged": p < 0.05 and real_hits > control_hits,
        "requests": len(rows),
        "failed_requests": sum(1 for r in rows if r[1] is None),
        "completed_rows": [
            {"row": probe.row, "output": output, "match": match}
            for probe, output, match in rows
            if match and not probe.control
        ],
        "completed_controls": [
            {"row": probe.row, "output": output, "match": match}
            for probe, output, match in rows
            if match and probe.control
        ],
    }


def failure_note(failed: int, requests: int | None) -> str:
    """A sentence on failed requests ("" when none failed)."""
    if not failed:
        return ""
    if requests is not None and failed >= requests:
        return f" All {failed} requests failed: nothing was measured."
    of = f" of {requests}" if requests is not None else ""
    return f" {failed}{of} requests failed and are left out of these counts."


def _percent(rate: float | None) -> str:
    """ "12.5%"; "n/a" where no probe of the kind was answered (a rate of nothing is not 0%)."""
    text = pct(rate)
    return text if text == NOT_AVAILABLE else f"{text}%"


def reading_completion(record: dict[str, Any]) -> str:
    real, control = record["real"], record["control"]
    failed = record.get("failed_requests") or 0
    if failed and not real["probes"] and not control["probes"]:
        return (
            f"All {failed} probe requests failed: nothing was measured, so this says "
            f"nothing about whether the model memorised the file. Run it again once the "
            f"model answers."
        )
    rate = f"{_percent(real['rate'])} ({real['completed']} of {real['probes']})"
    base = f"{_percent(control['rate'])} ({control['completed']} of {control['probes']})"
    verdict = (
        "The model completes the file's rows more often than rows it could not have read "
        "(p < 0.05): it has most likely seen this file, or text quoting it, in training. Its "
        "scores on this benchmark may reflect recall rather than reasoning."
        if record["flagged"]
        else "No more completions of the file's rows than of the controls: no sign that the "
        "model memorised this file. That is not proof it never saw it: a model can be "
        "trained on a file without reproducing it verbatim, and a small model reproduces "
        "little of anything."
    )
    return (
        f"Completed {rate} of the file's rows as written, against {base} of the controls "
        f"(the same rows in an order the file never had); one-sided Fisher exact p = "
        f"{p_text(record['p_value'])}. {verdict}" + failure_note(failed, record.get("requests"))
    )
