"""The study web app (FastAPI, served by uvicorn on 127.0.0.1).

    GET  /                    name form
    POST /start               -> /a/NAME
    GET  /a/NAME              the annotator's next unanswered step (or the thank-you page)
    POST /a/NAME/answer       save one answer, then -> /a/NAME (post/redirect/get)
    GET  /api/define?word=W   WordNet senses of W (when the study offers definitions)
    GET  /healthz             liveness, for scripts and tests

Every item page is rendered for the step the store says is next, at one URL per annotator,
so reload and Back can only ever show the current step (pages are `no-store`, and a page
restored from the back-forward cache reloads itself). A second answer to a step -- a
second tab, a double submission, an old form -- is refused by the store's primary key and
the annotator is sent on to the next step with a notice. Answers are committed before the
redirect is sent, so a server killed at any moment has lost nothing it acknowledged.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator, Sequence
from typing import Any
from urllib.parse import parse_qs

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from lexbench.human.definitions import Dictionary
from lexbench.human.page import done_page, item_page, start_page
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
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}
MAX_FORM_BYTES = 16_384


def create_app(
    study: Study, *, dictionary: Dictionary | None = None, annotators: Sequence[str] | None = None
) -> FastAPI:
    """The ASGI app for one open study. `annotators`, when given, is the only names allowed."""
    task = task_for(study.benchmark)
    definitions = bool(study.spec.get("definitions")) and dictionary is not None
    allowed = set(annotators) if annotators else None

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
        if allowed is not None and name not in allowed:
            return f"{name!r} is not one of this study's annotators"
        return None

    async def form(request: Request) -> dict[str, str]:
        body = await request.body()
        if len(body) > MAX_FORM_BYTES:
            raise StudyError("the form is too large")
        fields = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
        return {key: values[0] for key, values in fields.items()}

    def render_next(name: str, notice: str | None) -> str:
        study.join(name)
        progress = study.progress(name)
        step = study.next_step(name)
        if step is None:
            return done_page(
                annotator=name, done=progress.done, total=progress.total, notice=notice
            )
        study.record_view(name, step)
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

    @app.get("/")
    async def start() -> Any:
        return html(start_page(benchmark_title=task.page_title))

    @app.post("/start")
    async def begin(request: Request) -> Any:
        name = (await form(request)).get("name", "").strip()
        problem = check_name(name)
        if problem:
            return html(start_page(error=problem, benchmark_title=task.page_title), 400)
        return redirect(f"/a/{name}")

    @app.get("/a/{name}")
    async def next_item(name: str, notice: str | None = None) -> Any:
        problem = check_name(name)
        if problem:
            return html(start_page(error=problem), 404)
        return html(await run_in_threadpool(render_next, name, notice))

    @app.post("/a/{name}/answer")
    async def answer(name: str, request: Request) -> Any:
        problem = check_name(name)
        if problem:
            return html(start_page(error=problem), 404)
        try:
            fields = await form(request)
            token, stage = fields.get("token", ""), fields.get("stage", "")
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
        except StudyError:
            return redirect(f"/a/{name}?notice=invalid")
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

    return app


def _milliseconds(text: str) -> int | None:
    """The page's own timer (ms since the page was shown), or None when absent or absurd."""
    try:
        value = int(float(text))
    except ValueError:
        return None
    return value if 0 <= value < 7 * 24 * 3600 * 1000 else None


def serve(
    study: Study,
    *,
    port: int = 8765,
    wordnet: str | None = None,
    annotators: Sequence[str] | None = None,
    log_level: str = "warning",
) -> None:
    """Serve the study on 127.0.0.1:port until interrupted."""
    import uvicorn

    dictionary = Dictionary(wordnet) if study.spec.get("definitions") else None
    app = create_app(study, dictionary=dictionary, annotators=annotators)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level=log_level)
