"""How far a transformers model is through reading a batch of prompts, told as it goes.

One forward pass over a batch of long prompts (the prefill before a batch's first new
token; a rank or loglikelihood pass) is a single call, and on a busy CPU it can take
minutes: 64 SetLexSem prompts are about 20,000 tokens through every layer. Forward hooks
on the model's layer stack (its longest list of like blocks: a decoder's layers, an
encoder's) count the layers done while a read is under way (`ReadProgress.reading`) and
hand (share read, prompt tokens) to the backend's `on_prefill` (set by the runner's bar).
Every layer costs the same for the same tokens, so layers done are the share of the work
done. The hooks read nothing and change nothing the model computes; outside a read (a
decoding step) they return at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

Listener = Callable[[float, int], None]


def layer_stack(model: Any) -> list[Any]:
    """The model's repeated blocks: its longest `ModuleList` whose members share one class
    (empty when it has none)."""
    import torch

    best: list[Any] = []
    for module in model.modules():
        like = isinstance(module, torch.nn.ModuleList) and len({type(m) for m in module}) == 1
        if like and len(module) > len(best):
            best = list(module)
    return best


class ReadProgress:
    """Reports how far `model` is through the prompts of a forward pass to `listener()`
    (read at each report: the runner sets and clears the backend's `on_prefill`)."""

    def __init__(self, model: Any, listener: Callable[[], Listener | None]):
        self._listener = listener
        self._layers = layer_stack(model)
        self._tokens: int | None = None  # the prompt tokens of the read under way
        self._done = 0
        for layer in self._layers:
            layer.register_forward_hook(self._layer_done)

    @property
    def layers(self) -> int:
        return len(self._layers)

    def _tell(self, share: float) -> None:
        listener = self._listener()
        if listener is not None and self._tokens is not None:
            listener(share, self._tokens)

    def _layer_done(self, module: Any, inputs: Any, output: Any) -> None:
        if self._tokens is None:
            return
        self._done += 1
        # A read of several passes (a prefix, then the rest) goes round the stack again.
        self._tell(min(self._done / len(self._layers), 0.999))

    @contextmanager
    def reading(self, tokens: int) -> Iterator[None]:
        """The body is one forward pass over `tokens` prompt tokens: said at 0%, per layer,
        and at 100% when it ends."""
        self._tokens, self._done = tokens, 0
        self._tell(0.0)
        try:
            yield
            self._tell(1.0)
        finally:
            self._tokens = None
