"""A run folder written while the run goes on: samples as items are scored, the rest at
the end, the whole put in place as one unit.

`StagedRun` makes the hidden staging folder beside the run folder (the one `write_run`
has always used), appends each samples.jsonl line as soon as its item is scored (a run of
any length holds no line longer than that), and at `finish` writes config.json,
results.json, report.md and the figures, then puts the folder in place atomically (see
`run.store`). Whatever stops the run before `finish`, the staging folder is removed and
the old run folder, if any, is untouched; the answers are in the response cache, so the
same command resumes without asking them again. The folder's claim is held throughout and
released at the end, finished or not.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from lexbench.run import claims
from lexbench.run.files import atomic_write, naming, sample_text, write_json
from lexbench.run.jsonio import encode_text
from lexbench.run.store import RunFolder, _put_in_place, _remove_leftovers, package_versions


class StagedRun:
    """Use as a context manager around the run: `add_sample` per item in item order, then
    `finish(config, results, report, extra)` once; see the module docstring."""

    def __init__(self, folder: RunFolder):
        self.folder = folder
        self.samples = 0
        self._holding: Any = None
        self._staging: Path | None = None
        self._handle: IO[bytes] | None = None
        self._finished: RunFolder | None = None

    def __enter__(self) -> StagedRun:
        destination = self.folder.path
        destination.parent.mkdir(parents=True, exist_ok=True)
        self._holding = claims.held(destination)
        self._holding.__enter__()
        try:
            _remove_leftovers(destination)
            staging = destination.with_name(
                f".{destination.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
            )
            staging.mkdir()
            self._staging = staging
            self._handle = open(RunFolder(staging).samples_path, "wb", buffering=1 << 20)
        except BaseException:
            self._release(failing=True)
            raise
        return self

    def add_sample(self, sample: Mapping[str, Any]) -> None:
        """Append one item's samples.jsonl line."""
        if self._handle is None:
            raise RuntimeError("StagedRun: add_sample outside its `with` block or after finish")
        with naming(self.folder.samples_path):
            self._handle.write(encode_text(sample_text(sample)))
        self.samples += 1

    def finish(
        self,
        config: Mapping[str, Any],
        results: Mapping[str, Any],
        report_markdown: str,
        extra: Callable[[Path], Any] | None = None,
    ) -> RunFolder:
        """Write the remaining files and put the folder in place; `extra(path)` may add
        files (figures) to it first."""
        if self._handle is None or self._staging is None:
            raise RuntimeError("StagedRun: finish outside its `with` block or twice")
        handle, self._handle = self._handle, None
        with naming(self.folder.samples_path):
            try:
                handle.flush()
                os.fsync(handle.fileno())
            finally:
                handle.close()
        staged = RunFolder(self._staging)
        write_json(staged.config_path, {**config, "versions": package_versions()})
        write_json(staged.results_path, results)
        atomic_write(staged.report_path, report_markdown)
        if extra is not None:
            extra(self._staging)
        _put_in_place(self._staging, self.folder.path)
        self._staging = None
        self._finished = RunFolder(self.folder.path)
        return self._finished

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._release(failing=kind is not None)

    def _release(self, failing: bool) -> None:
        try:
            if self._handle is not None:
                self._handle.close()
                self._handle = None
            if self._staging is not None:  # not put in place: the run did not finish
                shutil.rmtree(self._staging, ignore_errors=True)
                self._staging = None
        finally:
            try:
                if self._holding is not None:
                    holding, self._holding = self._holding, None
                    holding.__exit__(None, None, None)
            finally:
                if self.folder.claim is not None:
                    self.folder.claim.release_all()


def write_run(
    folder: RunFolder,
    config: Mapping[str, Any],
    samples: Iterable[Mapping[str, Any]],
    results: Mapping[str, Any],
    report_markdown: str,
    extra: Callable[[Path], Any] | None = None,
) -> RunFolder:
    """Write the run folder as one unit; `extra(path)` may add files (figures) to it before
    it is put in place. Releases this process's claim on the folder. (A run that writes
    its samples as it goes uses `StagedRun` itself.)"""
    with StagedRun(folder) as staged:
        for sample in samples:
            staged.add_sample(sample)
        return staged.finish(config, results, report_markdown, extra)
