"""The study web app (FastAPI, served by uvicorn; 127.0.0.1 unless `--host` says otherwise).

    GET  /                    name form (typed names on: loopback without --allow-host, or
                              --open-signup; otherwise invite links alone)
    POST /start               join, serve the first unanswered step -> /a/NAME
    GET  /join/SECRET         an invite link: the secret becomes an HttpOnly, SameSite=Strict
                              cookie, then -> /a/NAME
    GET  /a/NAME              the step served last (or the thank-you page); before the first
                              one, a "Begin" button: a GET changes nothing
    POST /a/NAME/begin        join, serve the next unanswered step -> /a/NAME
    POST /a/NAME/answer       save one answer, serve the next step -> /a/NAME (post/redirect/get)
    GET  /api/define?word=W   WordNet senses of W (when the study offers definitions)
    GET  /healthz             liveness, for scripts and tests

Every item page is rendered for the step the store says is next, at one URL per annotator,
so reload and Back can only ever show the current step (pages are `no-store`, and a page
restored from the back-forward cache reloads itself). A second answer to a step -- a
second tab, a double submission, an old form -- is refused by the store's primary key and
the annotator is sent on to the next step with a notice. Answers are committed before the
redirect is sent, so a server killed at any moment has lost nothing it acknowledged.

Who may answer as NAME: an invited name (`lexbench human invite`) only with its link's
secret in the cookie, whatever the network; any other name only when typed names are on
(the local case). Names compare case-insensitively: `Bob` is the invited `bob`.
`lexbench.human.guard` refuses foreign Host names, cross-origin writes and large bodies
before a request gets here; only the POSTs it checks write to the study (joining, the
time-on-task clock, answers), so a page elsewhere cannot start a clock with an `<img>`.
"""

from __future__ import annotations

import contextlib
import ipaddress
import math
import socket
import sys
import threading
from collections.abc import AsyncIterator, Sequence
from typing import Any
from urllib.parse import parse_qs

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from lexbench.human.definitions import Dictionary
from lexbench.human.guard import RequestGuard, guarded_h11_protocol
from lexbench.human.page import begin_page, done_page, item_page, start_page, welcome_page
from lexbench.human.store import Study, StudyError, check_annotator
from lexbench.human.tasks import task_for

# No network, no framing, no referrer; inline CSS/JS only (the page has no other asset).
SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'unsafe-inline'; "
        "style-src 'unsafe-inline'; connect-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    # Not no-referrer: under it Chromium sends `Origin: null` with the page's own form posts,
    # which the guard must refuse as an opaque origin.
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
}
MAX_FORM_BYTES = 16_384
COOKIE_DAYS = 30


class FormError(ValueError):
    """A malformed form: answered with a 400 page, nothing written."""


def create_app(
    study: Study,
    *,
    dictionary: Dictionary | None = None,
    annotators: Sequence[str] | None = None,
    hosts: Sequence[str] = (),
    typed_names: bool = True,
) -> FastAPI:
    """The ASGI app for one open study. `annotators`, when given, is the only names allowed;
    `hosts` are the host names served besides localhost and IP literals; `typed_names`
    lets a name typed on the start page annotate (names with an invite never)."""
    task = task_for(study.benchmark)
    definitions = bool(study.spec.get("definitions")) and dictionary is not None
    allowed = {name.casefold() for name in annotators} if annotators else None
    cookie = f"lexbench_{study.id}"  # per study: two studies on one machine keep apart

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if definitions and dictionary is not None:
            # NLTK's reader takes seconds to open: open it now, not on the first look-up.
            threading.Thread(target=dictionary.reader, name="wordnet-warm-up", daemon=True).start()
        yield

    app = FastAPI(
        title="lexbench human study",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        lifespan=lifespan,
    )

    def html(text: str, status: int = 200) -> Any:
        return HTMLResponse(text, status_code=status, headers=SECURITY_HEADERS)

    def redirect(url: str) -> Any:
        return RedirectResponse(url, status_code=303, headers=SECURITY_HEADERS)

    def check_name(name: str) -> str | None:
        """None when the name may annotate, else why not."""
        try:
            check_annotator(name)
        except StudyError as error:
            return str(error)
        if allowed is not None and name.casefold() not in allowed:
            return f"{name!r} is not one of this study's annotators"
        return None

    def refusal(name: str, request: Request) -> Any:
        """The page refusing `request` to act as `name`, or None when it may."""
        problem = check_name(name)
        if problem:
            return html(start_page(error=problem, typed_names=typed_names), 404)
        known = study.spelled(name)
        if known is not None and known in study.invited():
            if known != name or study.invitee(request.cookies.get(cookie, "")) != known:
                why = f"{known!r} answers through their own invite link; open it again"
                return html(start_page(error=why, typed_names=typed_names), 403)
        elif not typed_names:  # the page itself says to open the invite link
            return html(start_page(typed_names=False), 403)
        elif known not in (None, name):  # one annotator, one spelling
            why = f"{name!r} is {known!r} in this study (names ignore case); type {known!r}"
            return html(start_page(error=why, typed_names=typed_names), 403)
        return None

    def serve_next(name: str) -> None:
        """Join, and start the clock of the next unanswered step (POSTs only)."""
        study.join(name)
        step = study.next_step(name)
        if step is not None:
            study.record_view(name, step)

    async def form(request: Request) -> dict[str, str]:
        body = await request.body()  # the guard has bounded it
        try:  # strict both ways: raw bytes and %-escapes must be UTF-8
            fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, errors="strict")
        except UnicodeDecodeError:
            raise FormError("the form is not UTF-8 text") from None
        repeated = sorted(key for key, values in fields.items() if len(values) > 1)
        if repeated:
            raise FormError(f"form field {repeated[0]!r} is given more than once")
        return {key: values[0] for key, values in fields.items()}

    def render_next(name: str, notice: str | None) -> str:
        """The page of the step served last; reads only."""
        progress = study.progress(name)
        step = study.next_step(name)
        if step is None:
            return done_page(
                annotator=name, done=progress.done, total=progress.total, notice=notice
            )
        if not study.was_shown(name, step):  # not begun (or resumed): a POST starts it
            return begin_page(annotator=name, done=progress.done, total=progress.total)
        item = task.from_json(step.item)
        locked = None
        if step.step > 0:  # a later step shows the earlier, locked answer (E-KAR's HARD)
            locked = study.answer_to(name, step.token, task.stages[step.step - 1])
        return item_page(
            annotator=name,
            token=step.token,
            stage=step.stage,
            shown=task.display(item, step.stage),
            done=progress.done,
            total=progress.total,
            definitions=definitions,
            notice=notice,
            locked=locked,
        )

    def start_error(problem: str, status: int) -> Any:
        page = start_page(error=problem, benchmark_title=task.page_title, typed_names=typed_names)
        return html(page, status)

    @app.get("/")
    async def start(request: Request) -> Any:
        known = await run_in_threadpool(study.invitee, request.cookies.get(cookie, ""))
        if known is not None:  # an invited annotator coming back: straight to their page
            return redirect(f"/a/{known}")
        return html(start_page(benchmark_title=task.page_title, typed_names=typed_names))

    @app.post("/start")
    async def begin(request: Request) -> Any:
        try:
            name = (await form(request)).get("name", "").strip()
        except FormError as error:
            return start_error(str(error), 400)
        if not typed_names:
            return html(start_page(benchmark_title=task.page_title, typed_names=False), 403)
        problem = check_name(name)
        if problem:
            return start_error(problem, 400)
        name = await run_in_threadpool(lambda: study.spelled(name) or name)  # BOB resumes bob
        if name in await run_in_threadpool(study.invited):
            return start_error(f"{name!r} answers through their own invite link", 403)
        await run_in_threadpool(serve_next, name)
        return redirect(f"/a/{name}")

    @app.get("/join/{secret}")
    async def join(secret: str) -> Any:
        name = await run_in_threadpool(study.invitee, secret)
        if name is None:
            why = "this invite link is not valid (mistyped, or replaced by a newer invite)"
            return start_error(why, 403)
        problem = check_name(name)
        if problem:
            return start_error(problem, 403)
        response = html(welcome_page(annotator=name))
        response.set_cookie(
            cookie,
            secret,
            max_age=COOKIE_DAYS * 24 * 3600,
            path="/",
            httponly=True,
            samesite="strict",
        )
        return response

    @app.get("/a/{name}")
    async def next_item(name: str, request: Request, notice: str | None = None) -> Any:
        refused = await run_in_threadpool(refusal, name, request)  # reads the study
        if refused is not None:
            return refused
        return html(await run_in_threadpool(render_next, name, notice))

    @app.post("/a/{name}/begin")
    async def begin_steps(name: str, request: Request) -> Any:
        refused = await run_in_threadpool(refusal, name, request)  # reads the study
        if refused is not None:
            return refused
        await run_in_threadpool(serve_next, name)
        return redirect(f"/a/{name}")

    @app.post("/a/{name}/answer")
    async def answer(name: str, request: Request) -> Any:
        refused = await run_in_threadpool(refusal, name, request)  # reads the study
        if refused is not None:
            return refused
        try:
            fields = await form(request)
            token, stage = fields.get("token", ""), fields.get("stage", "")
            if not token or not stage:
                raise FormError("the form lacks its item token or step")
            output = task.output(stage, fields.get("answer", ""))
            client_ms = _milliseconds(fields.get("client_ms", ""))
            saved = await run_in_threadpool(
                study.save_answer,
                name,
                token,
                stage,
                fields.get("answer", "").strip(),
                output,
                client_ms,
            )
        except FormError as error:
            return start_error(str(error), 400)
        except StudyError:
            return redirect(f"/a/{name}?notice=invalid")
        await run_in_threadpool(serve_next, name)  # the next step's clock starts now
        return redirect(f"/a/{name}" if saved else f"/a/{name}?notice=duplicate")

    @app.get("/api/define")
    async def define(word: str = "") -> Any:
        if not definitions or dictionary is None:
            return JSONResponse(
                {"detail": "this study offers no definitions"}, 404, headers=SECURITY_HEADERS
            )
        try:
            found = await run_in_threadpool(dictionary.define, word)
        except ValueError as error:
            return JSONResponse({"detail": str(error)}, 400, headers=SECURITY_HEADERS)
        return JSONResponse(found.to_dict(), headers=SECURITY_HEADERS)

    @app.get("/healthz")
    async def health() -> Any:
        return JSONResponse({"ok": True}, headers=SECURITY_HEADERS)

    app.add_middleware(RequestGuard, allowed_hosts=hosts, max_body=MAX_FORM_BYTES)
    return app


def _milliseconds(text: str) -> int | None:
    """The page's own timer (ms since the page was shown): None when absent or out of any
    sensible range (a clock gone wrong); a FormError when it is not a finite number."""
    if not text.strip():
        return None
    try:
        number = float(text)
    except ValueError:
        raise FormError(f"client_ms {text[:40]!r} is not a number") from None
    if not math.isfinite(number):
        raise FormError(f"client_ms {text[:40]!r} is not a finite number")
    value = int(number)
    return value if 0 <= value < 7 * 24 * 3600 * 1000 else None


def is_loopback(host: str) -> bool:
    """Whether binding `host` keeps the server to this machine."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def typed_names_on(host: str, allow_hosts: Sequence[str], open_signup: bool) -> bool:
    """Whether a typed name may annotate: on loopback with no other name to reach it by
    (no proxy's `--allow-host`), or when `--open-signup` says so."""
    return open_signup or (is_loopback(host) and not allow_hosts)


def served_names(host: str, extra: Sequence[str] = ()) -> list[str]:
    """Host names the guard accepts: the bound name, `extra` (`--allow-host`), and beyond
    loopback this machine's own names (IP literals and localhost are always accepted)."""
    names = [host.strip("[]"), *extra]
    if not is_loopback(host):
        names += [socket.gethostname(), socket.getfqdn()]
    return sorted({n.lower() for n in names if n})


def serve(
    study: Study,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    allow_hosts: Sequence[str] = (),
    wordnet: str | None = None,
    annotators: Sequence[str] | None = None,
    log_level: str = "warning",
    open_signup: bool = False,
) -> None:
    """Serve the study on host:port until interrupted. Reachable beyond this machine
    (a non-loopback address, or a proxy's `--allow-host` name), only invited annotators
    (their link's secret) may answer, unless `open_signup` lets anyone type a name."""
    import uvicorn

    dictionary = Dictionary(wordnet) if study.spec.get("definitions") else None
    local = is_loopback(host)
    app = create_app(
        study,
        dictionary=dictionary,
        annotators=annotators,
        hosts=served_names(host, allow_hosts),
        typed_names=typed_names_on(host, allow_hosts, open_signup),
    )
    if open_signup and not typed_names_on(host, allow_hosts, False):
        print(
            "warning: --open-signup: anyone who reaches this study (through "
            f"{', '.join([host, *allow_hosts])}) can type a name and answer, and their "
            "answers count in `lexbench human results`; invite annotators instead "
            f"(lexbench human invite {study.directory} NAME) unless you want exactly that",
            file=sys.stderr,
        )
    if not local:
        print(
            f"warning: serving on {host}, beyond this machine: anyone who can reach port "
            f"{port} sees the start page; only invited annotators (lexbench human invite "
            f"{study.directory} NAME) can answer, and plain HTTP is not encrypted: use a "
            f"network you trust, or an HTTPS proxy (--allow-host its name)",
            file=sys.stderr,
        )
    uvicorn.run(app, **server_options(host, port, log_level))


def server_options(host: str, port: int, log_level: str = "warning") -> dict[str, Any]:
    """How uvicorn serves the study (`uvicorn.run(app, **options)`, `uvicorn.Config`):
    requests read by the guard's h11 protocol, so that two Host headers get the guard's
    421 (`guard.guarded_h11_protocol`)."""
    return {"host": host, "port": port, "log_level": log_level, "http": guarded_h11_protocol()}
