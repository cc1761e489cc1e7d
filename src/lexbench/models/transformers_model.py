"""What the two transformers backends share (`hf`: causal LMs, `mlm`: masked LMs): loading a
folder or Hub id with its tokenizer, torch's threads, the bar's prefill reading, the identity
a cache key is made of, the description config.json records, and the registry entry's check
of its options. Each backend adds only what it answers and how.

torch and transformers are imported when a model loads, never at package import.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar, cast

from lexbench.models.base import Model
from lexbench.models.hf_files import check_model_folder, load_pretrained
from lexbench.models.hf_progress import ReadProgress
from lexbench.models.hf_threads import prepare_torch
from lexbench.models.targets import FirstTokenIds
from lexbench.models.weights_identity import folder_sha256


class LoadOptions(Protocol):
    """The loading options both backends' option types have."""

    @property
    def dtype(self) -> str: ...
    @property
    def device(self) -> str: ...
    @property
    def batch_size(self) -> int: ...
    @property
    def revision(self) -> str | None: ...
    @property
    def threads(self) -> int | None: ...


Options = TypeVar("Options")
Loaded = TypeVar("Loaded", bound="TransformersModel")


class TransformersModel(Model):
    """A transformers model with its tokenizer, loaded once on its device."""

    #: The registry prefix (`hf`, `mlm`): in the identity and in messages.
    backend: ClassVar[str]
    #: The transformers class that loads the weights, by name (imported after torch is set up).
    auto_class: ClassVar[str]

    def __init__(
        self,
        model_path: str,
        *,
        name: str,
        options: LoadOptions,
        weights_hash: str | None = None,
        source: str | None = None,
    ):
        self.name = name
        self.options = options
        self._source = source or model_path
        self._weights_hash = weights_hash
        self.tokenizer, self.model, self.device = load_pretrained(
            self.auto_class,
            model_path,
            dtype=options.dtype,
            device=options.device,
            revision=options.revision,
            threads=options.threads,
        )
        self._torch = prepare_torch(options.threads)  # imported: returns it
        self._first_ids = FirstTokenIds(self.tokenizer)
        # How far a forward pass is through a batch's prompts, for the bar (hf_progress).
        self._read = ReadProgress(self.model, lambda: self.on_prefill)

    @classmethod
    def from_folder(cls: type[Loaded], path: Path, options: LoadOptions) -> Loaded:
        """A local folder saved with save_pretrained: every file in it is its identity."""
        check_model_folder(path, cls.backend)
        return cls(
            str(path),
            name=path.name,
            options=options,
            weights_hash=folder_sha256(path),
            source=str(path.resolve()),
        )

    @classmethod
    def from_hub(cls: type[Loaded], hub_id: str, options: LoadOptions) -> Loaded:
        """A Hugging Face id, downloaded by transformers when online (pinned with `revision`)."""
        return cls(hub_id, name=hub_id.replace("/", "--"), options=options, source=hub_id)

    def identity(self) -> dict[str, Any]:
        """What makes two loads the same model for the cache: the backend, where the weights
        came from, their revision and hash, and the dtype they run in."""
        return {
            "backend": self.backend,
            "model": self._source,
            "revision": self.options.revision,
            "weights_sha256": self._weights_hash,
            "dtype": self.options.dtype,
        }

    def fingerprint(self) -> dict[str, Any]:
        return self.identity()

    def describe(self) -> dict[str, Any]:
        from lexbench.models.lineage import describe_lineage

        described = {
            **super().describe(),
            "device": self.device,
            "batch_size": self.options.batch_size,
        }
        lineage = describe_lineage(self._source)  # a `lexbench finetune` output folder
        return {**described, "lineage": lineage} if lineage else described


def checked_options(
    backend: str, options_type: type[Options], options: Mapping[str, Any]
) -> Options:
    """The registry entry's options as `options_type`, or one line naming those that do not
    apply and those that do."""
    known = {field.name for field in fields(cast(Any, options_type))}
    unknown = sorted(k for k in options if k not in known)
    if unknown:
        raise ValueError(
            f"option(s) {', '.join(unknown)} do not apply to the {backend} backend; "
            f"it takes: {', '.join(sorted(known))}"
        )
    return options_type(**options)
