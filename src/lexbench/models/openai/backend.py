"""OpenAI-compatible HTTP backend: vLLM, SGLang, llama.cpp, Ollama, TGI, hosted APIs.

    lexbench run lambda --model openai:NAME --base-url http://127.0.0.1:8000/v1

The backend is a package (`lexbench.models.openai`): this module (the model, `load`),
`openai.options` (its options), `openai.plan` (request bodies and how answers are read, per
kind; `openai.echo` for loglikelihoods), `openai.adapt` (hosted-API adaptations),
`openai.preflight` (what is asked before a list is sent), `openai.gather` (a list of
requests as calls and back), `openai.send` (concurrency, batching, retries), `openai.http`
(connections, retry policy, rate limit, secrets) and `openai.targets` (how rank targets are
found among returned token strings).

* `generate`, `rank`, `loglikelihood` map onto `/completions` and `/chat/completions` as
  `openai.plan` says. Loglikelihood needs echo + logprobs: a server that returns no prompt
  log-probabilities raises `UnsupportedRequest`, and so does one whose echoed values are
  wrong — before its first loglikelihood request the backend asks for one greedy token t
  after a context and then for the echo of context + t, and the two log-probabilities of t
  must agree (llama-cpp-python 0.3 echoes each one position late; `openai.preflight`).
* Rank targets are matched exactly, by the server's own first token of each word, where
  the server echoes (see `openai.targets`); else by a strict prefix rule. `describe()`
  says which, so a run's config.json records it.
* At most `max_concurrency` prompts are in flight; completions prompts with equal settings
  go up to `prompts_per_request` to a request (default: max_concurrency // 8, between 1
  and 16) where the server takes a list, which it is asked once; see `openai.send`.
  429, 5xx, timeouts, dropped connections and malformed answers are retried with backoff
  and jitter, honouring Retry-After up to `max_retry_wait` seconds (a longer ban fails those
  requests at once, with the reason); 400/401/403/404/405/422 raise `PermanentModelError`.
* Hosted APIs: a 400 that asks for `max_completion_tokens`, refuses a sampling parameter
  or caps the number of log-probabilities is adapted to once, said in one line on stderr
  and recorded in `describe()`.

The API key is read from the environment variable named by `api_key_env` when the model is
loaded; it is sent only in the Authorization header, never part of the fingerprint (so never
in the cache or the run folder), and scrubbed from any error text: every stretch of 6 or
more of its characters is masked, before any text is cut short. Credentials in the base URL
(`http://user:pw@host/v1`) are used to connect (HTTP Basic) and kept out of the same places.
A server that echoes them in its answers (completion or chat text, top log-probability
tokens) has them masked there too, as each answer arrives, before it is cached or scored
(`models/secrets.py`); an answer that holds none is kept exactly as it came.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

from lexbench.models.base import Model, RetryCounts
from lexbench.models.openai.call import Call
from lexbench.models.openai.flight import SendOptions, ServerState
from lexbench.models.openai.gather import Gathering, OnResponse
from lexbench.models.openai.http import ConnectionPool
from lexbench.models.openai.options import OpenAIOptions, fewer_collections, run_sync
from lexbench.models.openai.plan import plan_generate, plan_loglikelihood, plan_rank
from lexbench.models.openai.preflight import learn_targets, verify_echo
from lexbench.models.openai.retry import RateLimiter
from lexbench.models.openai.send import Sender
from lexbench.models.openai.targets import TargetTokens
from lexbench.models.providers import missing_key
from lexbench.models.secrets import (
    SecretMask,
    answer_secrets,
    credential_secrets,
    excerpt,
    split_url_credentials,
)
from lexbench.types import Request, Response


class OpenAIModel(Model):
    """A model behind an OpenAI-compatible HTTP API.

    >>> model = OpenAIModel("smollm2", OpenAIOptions(base_url="http://127.0.0.1:8080/v1"))  # doctest: +SKIP
    """

    kinds = frozenset({"generate", "rank", "loglikelihood"})

    def __init__(self, name: str, options: OpenAIOptions = OpenAIOptions()):
        # `served_name` is what the server is asked for (and what the fingerprint, hence the
        # cache and the run folder's hash, holds); `name`, what reports show, keeps a hosted
        # provider's prefix (`together:meta-llama/...`), so its runs are told apart from the
        # same model served elsewhere.
        self.served_name = name
        self.name = name if options.provider == "openai" else f"{options.provider}:{name}"
        self.options = options
        # What is written and shown: the URL without credentials. They are kept apart, used
        # only to connect (HTTP Basic), and masked in every message.
        clean_url, self._url_credentials = split_url_credentials(options.base_url.rstrip("/"))
        self.base_url = clean_url
        self._api_key = os.environ.get(options.api_key_env) or None
        # Masked in every text stored or printed: the key, and the URL's credentials in each
        # form a server may echo them (the Basic token of the Authorization header too); in
        # answers, all but the user name alone (see models/secrets.py).
        self._secrets = credential_secrets(self._api_key, self._url_credentials)
        self._mask = SecretMask(self._secrets)
        self._answer_mask = SecretMask(answer_secrets(self._api_key, self._url_credentials))
        self._rng = random.Random()
        # Chunks large enough that draining the last in-flight requests of a chunk costs
        # little (one latency per 64 rounds at full concurrency).
        self._chunk_size = max(256, 64 * options.max_concurrency)
        self._limiter = RateLimiter(options.requests_per_minute)
        self._state = ServerState()
        self._targets = TargetTokens(self.base_url, name)
        self._echo_verified = False

    # ------------------------------------------------------------ identity

    def chunk_size(self) -> int:
        return self._chunk_size

    def streams_answers(self) -> bool:
        return True

    @property
    def retry_count(self) -> int:
        return self._state.retry_count

    def retry_counts(self) -> RetryCounts:
        return RetryCounts(self._state.retry_count, dict(self._state.retry_reasons))

    def fingerprint(self) -> dict[str, Any]:
        # Never the key: the fingerprint is stored in the cache and in config.json.
        # `rank_targets` names the rule version: rank answers cached under the earlier
        # loose prefix rule are asked again rather than reused.
        return {
            "backend": "openai",
            "model": self.served_name,
            "base_url": self.base_url,
            "api": self.options.api,
            "rank_targets": "first-token-v2",
        }

    def describe(self) -> dict[str, Any]:
        described = {
            **super().describe(),
            "max_concurrency": self.options.max_concurrency,
            "prompts_per_request": self.options.batch_size(),
            "batching": {
                None: "not tried",
                True: "yes",
                False: "no (the server takes one prompt per request)",
            }[self._state.batching],
            "requests_per_minute": self.options.requests_per_minute,
            "timeout": self.options.timeout,
            "max_retries": self.options.max_retries,
            "api_key_env": self.options.api_key_env,
            "api_key_set": self._api_key is not None,
            "rank_target_rule": self._targets.describe(),
        }
        adapted = self._state.adaptations.describe()
        if adapted:
            described["adaptations"] = adapted
        if self._state.notes:
            described["server_notes"] = list(self._state.notes)
        return described

    def _redact(self, text: str) -> str:
        return self._mask(text) if self._mask else text

    def _masked_answer(self, response: Response, sender: Sender) -> Response:
        """The answer with any echoed secret masked, said once on stderr (in our words)."""
        masked = self._answer_mask.response(response)
        if masked is not response:
            sender.say(
                f"{self.base_url}: the server's answers held the API key or the --base-url "
                "credentials; they are masked as *** before anything stores or shows them"
            )
        return masked

    def _excerpt(self, text: str, limit: int) -> str:
        """Secrets masked first, then cut: a key across the cut cannot half-survive. Only
        the start of a long body is scanned (enough to cover a key across the cut)."""
        longest = max((len(s) for s in self._secrets), default=0)
        return excerpt(self._redact(text[: limit + 2 * longest + 8]), limit)

    # ------------------------------------------------------------ request kinds

    def generate(self, requests: Sequence[Request]) -> list[Response]:
        return self.answer_each(self._only(requests, "generate"))

    def rank(self, requests: Sequence[Request]) -> list[Response]:
        return self.answer_each(self._only(requests, "rank"))

    def loglikelihood(self, requests: Sequence[Request]) -> list[Response]:
        return self.answer_each(self._only(requests, "loglikelihood"))

    def answer(self, requests: Sequence[Request]) -> list[Response]:
        return self.answer_each(requests)

    @staticmethod
    def _only(requests: Sequence[Request], kind: str) -> Sequence[Request]:
        wrong = [r.id for r in requests if r.kind != kind]
        if wrong:
            raise ValueError(f"{kind}() was given requests of another kind: {wrong[:5]}")
        return requests

    def answer_each(
        self, requests: Sequence[Request], on_response: OnResponse | None = None
    ) -> list[Response]:
        """Answer a mixed list concurrently, calling `on_response(position, response)` as
        each answer arrives (the runner caches it there, so a kill loses only requests in
        flight). Returns the responses in request order; a request that failed for good is
        `Response(error=...)`. Raises PermanentModelError / UnsupportedRequest at once."""
        with fewer_collections():  # the plans, too, are objects that live on
            plans = [self._plan(request) for request in requests]  # validates before sending
            if not plans:
                return []
            return run_sync(lambda: self._answer_all(requests, plans, on_response))

    def _plan(self, request: Request) -> list[Call]:
        api = self.options.api
        if request.kind == "generate":
            return [plan_generate(self.served_name, request, api)]
        if request.kind == "rank":
            return [plan_rank(self.served_name, request, api, self.base_url, self._targets.ranks)]
        if request.kind == "loglikelihood":
            return plan_loglikelihood(self.served_name, request, api, self.base_url)
        raise ValueError(f"request {request.id}: unknown kind {request.kind!r}")

    # ------------------------------------------------------------ sending

    def _sender(self, pool: ConnectionPool) -> Sender:
        options = self.options
        return Sender(
            SendOptions(
                self.base_url,
                self.served_name,
                options.api_key_env,
                options.max_concurrency,
                options.batch_size(),
                options.timeout,
                options.max_retries,
                options.max_retry_wait,
                options.url_origin,
            ),
            pool,
            self._limiter,
            self._state,
            self._redact,
            self._excerpt,
            self._rng,
        )

    async def _answer_all(
        self,
        requests: Sequence[Request],
        plans: Sequence[list[Call]],
        on_response: OnResponse | None,
    ) -> list[Response]:
        pool = ConnectionPool(
            self.base_url,
            api_key=self._api_key,
            url_credentials=self._url_credentials,
            timeout=self.options.timeout,
        )
        sender = self._sender(pool)
        before_send = self.before_send  # the runner's look before sending (Model.before_send)
        try:
            first_scored = next((r for r in requests if r.kind == "loglikelihood"), None)
            if first_scored is not None and not self._echo_verified:
                await verify_echo(
                    sender, first_scored, self.base_url, self.served_name, self._redact
                )
                self._echo_verified = True
            refused = await learn_targets(
                sender, requests, self._targets, self.options.api, self._redact
            )
            gathering = Gathering(
                requests,
                plans,
                refused,
                on_response,
                before_send,
                lambda response: self._masked_answer(response, sender),
                self._redact,
            )
            await sender.run(gathering.calls, gathering.deliver, keep=gathering.keep)
        finally:
            await pool.aclose()
        return gathering.responses()


def load(name: str, options: Mapping[str, Any]) -> OpenAIModel:
    """Registry entry: `openai:NAME` with options base_url, api_key_env, api,
    max_concurrency, requests_per_minute, timeout, max_retries, max_retry_wait,
    prompts_per_request."""
    known = {f.name for f in fields(OpenAIOptions)}
    unknown = sorted(k for k in options if k not in known)
    if unknown:
        raise ValueError(
            f"option(s) {', '.join(unknown)} do not apply to the openai backend; "
            f"it takes: {', '.join(sorted(known))}"
        )
    built = OpenAIOptions(**dict(options))
    # A hosted provider's own service with no key would refuse every request (401): said
    # now, naming the variable, instead of as a run of failures.
    refusal = missing_key(built.base_url, built.api_key_env)
    if refusal is not None:
        raise ValueError(refusal)
    return OpenAIModel(name, built)
