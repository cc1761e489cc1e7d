"""What the OpenAI-compatible backend asks a server before it sends a list's calls.

* Whether the server's echo is right, once per model before its first loglikelihood
  request: the backend asks for one greedy token t after a context and then for the echo
  of context + t, and the two log-probabilities of t must agree (llama-cpp-python 0.3
  echoes each one position late, which would score every continuation against the wrong
  distribution).
* The server's own first token of every target word of the list's rank requests not known
  yet (`openai.targets`, one echo request per word, batched); a rank request whose targets
  cannot be ranked now fails with the reason, and is asked again on a rerun.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lexbench.models.base import UnsupportedRequest
from lexbench.models.openai.call import COMPLETIONS, Call
from lexbench.models.openai.echo import echo_body, loglikelihood_parser, split_context
from lexbench.models.openai.flight import RequestFailed
from lexbench.models.openai.options import RequestFailedForAll
from lexbench.models.openai.plan import endpoint_of
from lexbench.models.openai.send import Sender
from lexbench.models.openai.targets import TargetTokens
from lexbench.types import Request

# Echo check: a token's echoed and sampled log-probabilities may differ by kernel noise
# (batched prompt vs single-token decode, bf16), never by this much when both are right.
ECHO_TOLERANCE = 0.25


async def verify_echo(
    sender: Sender, request: Request, base_url: str, model: str, redact: Callable[[str], str]
) -> None:
    """Check that the server's echoed prompt log-probabilities mean what the API says
    (log P(token | the tokens before it)) before trusting them with loglikelihoods;
    returns when they do (or there is nothing to compare), raises UnsupportedRequest when
    they do not."""
    context = split_context(request.prompt, request.continuations[0])[0]
    if not context:
        raise ValueError(f"request {request.id}: loglikelihood needs a non-empty context")

    def sampled(choice: dict[str, Any], usage: Any) -> tuple[str, float]:
        logprobs = choice.get("logprobs")
        if not logprobs:
            raise UnsupportedRequest(
                f"{base_url}/completions returned no logprobs for model "
                f"{model!r}; loglikelihood requests need echo + logprobs"
            )
        if not logprobs.get("tokens"):
            return "", 0.0  # the model ended at once: nothing to compare
        return str(logprobs["tokens"][0]), float(logprobs["token_logprobs"][0])

    body = {
        "model": model,
        "prompt": context,
        "max_tokens": 1,
        "temperature": 0.0,
        "logprobs": 1,
    }
    token, expected = await _one(sender, Call(COMPLETIONS, body, sampled))
    if not token:
        return  # nothing to check against (the model ended at once): the echo is trusted
    probe = context + token
    total, count = await _one(
        sender,
        Call(
            COMPLETIONS,
            echo_body(model, probe),
            loglikelihood_parser(base_url, model, probe, len(context)),
        ),
    )
    if count == 1 and abs(total - expected) > ECHO_TOLERANCE:
        raise UnsupportedRequest(
            f"{base_url} echoes prompt log-probabilities that disagree with its own "
            f"next-token log-probabilities (token {redact(token)!r} after the first "
            f"context: {total:.3f} echoed, {expected:.3f} sampled), so it does not implement "
            "echo + logprobs correctly (llama-cpp-python 0.3 reports each token under "
            "the distribution one position late). loglikelihood requests cannot be "
            "answered through this server; use vLLM or SGLang, or the hf backend."
        )


async def _one(sender: Sender, call: Call) -> Any:
    got: list[Any] = []
    await sender.run([call], lambda _, value: got.append(value))
    if isinstance(got[0], RequestFailed):
        raise RequestFailedForAll(f"checking echo support: {got[0]}")
    return got[0]


async def learn_targets(
    sender: Sender,
    requests: Sequence[Request],
    targets: TargetTokens,
    api: str,
    redact: Callable[[str], str],
) -> dict[int, str]:
    """Learn the server's first token of every target word not known yet (one echo
    request per word, batched); the positions of rank requests that cannot be ranked
    now, with the reason (their answers fail and are asked again on a rerun)."""
    ranked = [
        (i, r, endpoint_of(r, api) == COMPLETIONS)
        for i, r in enumerate(requests)
        if r.kind == "rank" and r.targets
    ]
    if not ranked:
        return {}
    words = targets.unknown([(w, start) for _, r, start in ranked for w in r.targets])
    if words:
        calls = targets.calls(words)
        for index, call in enumerate(calls):
            call.index = index
        await sender.run(
            calls,
            lambda call, value: targets.learned(words[call.index], value),
            soft=True,
        )
    refused = {}
    for position, request, start in ranked:
        why = targets.failure(request.targets, start)
        if why is not None:
            refused[position] = redact(why)
    return refused
