"""The study's HTML: one self-contained page per step, with the stylesheet and script of
`lexbench.human.page_client` inline.

Nothing loads from the network (the app's Content-Security-Policy forbids it as well). The
page works with the keyboard alone: Enter saves the answer, A-D (or 1-4) picks an E-KAR
choice, Alt+L or "/" opens the definitions look-up, Escape returns to the answer; clicking a
word of the item looks it up. Every value is HTML-escaped; look-up results are inserted as
text, never as markup.

A page carries the step's opaque token and its step name (`answer`, `hard`, `easy`), and
the item as `lexbench.human.tasks` displays it: nothing else about the item.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from lexbench.human.page_client import CSS, JS

NOTICES = {
    "duplicate": "That step was already saved (in another tab, or sent twice); nothing was "
    "changed. Here is your next item.",
    "invalid": "That answer was not accepted; please answer again.",
    "stale": "That item is no longer the one waiting for you; here is your next item.",
}


def _words(text: str) -> str:
    """Each word of `text` as a clickable span (look it up), the rest as plain text."""
    return " ".join(f'<span class="word">{escape(part)}</span>' for part in text.split())


def _body_pairs(shown: Mapping[str, Any]) -> str:
    lines = []
    for left, right in shown["pairs"]:
        lines.append(
            f'<div class="line"><span>{_words(left)}</span><span class="sep">:</span>'
            f"<span>{_words(right)}</span></div>"
        )
    lines.append(
        f'<div class="line"><span class="query">{_words(shown["query"])}</span>'
        f'<span class="sep">:</span><span><input type="text" id="answer" name="answer" '
        f'autocomplete="off" autocapitalize="off" spellcheck="false" '
        f'aria-label="your answer"></span></div>'
    )
    return (
        '<p class="instructions">The first two lines are pairs of words related in the '
        "same way. Complete the third line with one word, so that it is related in that "
        'way too.</p><div class="pairs">' + "".join(lines) + "</div>"
    )


def _body_choice(shown: Mapping[str, Any], locked: str | None) -> str:
    easy = shown.get("mode") == "easy"
    parts = [
        f'<p class="instructions" lang="{escape(shown.get("language", "en"))}">'
        f"{escape(shown['instruction'])}</p>",
        f'<p class="mode">{"Step 2 of 2: the same problem, with an explanation of the query." if easy else "Step 1 of 2: without explanation."}</p>',
        f'<p class="pairs"><span class="query">{_words(shown["query"])}</span></p>',
    ]
    if easy:
        parts.append(f'<p class="explanation">{escape(shown.get("explanation", ""))}</p>')
        if locked is not None:
            parts.append(
                f'<p class="locked">Your answer without the explanation: '
                f"<strong>{escape(locked)}</strong> (saved; it cannot change).</p>"
            )
    options = "".join(
        f'<label><input type="radio" name="answer" value="{escape(label)}"> '
        f"<strong>{escape(label)}.</strong> {_words(text)}</label>"
        for label, text in shown["choices"]
    )
    parts.append(
        f'<fieldset class="choices"><legend class="hint">Press A-D (or 1-4), then '
        f"Enter</legend>{options}</fieldset>"
    )
    parts.append('<p class="hint" id="choice-hint" hidden>Choose one of A, B, C or D first.</p>')
    return "".join(parts)


def _body_sentence(shown: Mapping[str, Any]) -> str:
    return (
        '<p class="instructions">Complete the sentence with the word that fits the '
        "analogy best.</p>"
        f'<p class="sentence">{_words(shown["before"])} <input type="text" id="answer" '
        f'name="answer" autocomplete="off" spellcheck="false" aria-label="your answer">'
        f"{escape(shown.get('after', ''))}</p>"
    )


def _body_prompt(shown: Mapping[str, Any]) -> str:
    return (
        f'<pre class="prompt">{escape(shown["text"])}</pre>'
        f'<p class="hint">{escape(shown.get("hint", ""))}</p>'
        '<input type="text" id="answer" name="answer" autocomplete="off" spellcheck="false" '
        'aria-label="your answer">'
    )


def _document(
    title: str,
    header: str,
    main: str,
    main_class: str = "",
    *,
    choices: bool = False,
    definitions: bool = False,
) -> str:
    keys = ["<kbd>Enter</kbd> save and go on"]
    if choices:
        keys.append("<kbd>A</kbd>-<kbd>D</kbd> or <kbd>1</kbd>-<kbd>4</kbd> pick a choice")
    if definitions:
        keys += [
            "<kbd>Alt</kbd>+<kbd>L</kbd> or <kbd>/</kbd> look a word up",
            "<kbd>Esc</kbd> back to the answer",
        ]
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f'{header}<main class="{main_class}">{main}</main>'
        f"<footer>{' &middot; '.join(keys)}. Every answer is saved as you give it; you can "
        "close the page and come back later.</footer>"
        f"<script>{JS}</script></body></html>"
    )


def _header(annotator: str, done: int, total: int) -> str:
    return (
        f'<header><span class="who">{escape(annotator)}</span>'
        f'<progress id="progress" value="{done}" max="{total}"></progress>'
        f'<span class="count" id="progress-text">{done} of {total} answered</span></header>'
    )


def item_page(
    *,
    annotator: str,
    token: str,
    stage: str,
    shown: Mapping[str, Any],
    done: int,
    total: int,
    definitions: bool,
    notice: str | None = None,
    locked: str | None = None,
) -> str:
    kind = shown["kind"]
    if kind == "pairs":
        body = _body_pairs(shown)
    elif kind == "choice":
        body = _body_choice(shown, locked)
    elif kind == "sentence":
        body = _body_sentence(shown)
    elif kind == "prompt":
        body = _body_prompt(shown)
    else:
        raise ValueError(f"no page layout for display kind {kind!r}")
    message = NOTICES.get(notice or "")
    section = (
        "<section>"
        + (f'<p class="notice" role="status">{escape(message)}</p>' if message else "")
        + f'<form id="answer-form" method="post" action="/a/{escape(annotator)}/answer" '
        f'data-kind="{escape(kind)}" autocomplete="off">'
        f'<input type="hidden" name="token" value="{escape(token)}">'
        f'<input type="hidden" name="stage" value="{escape(stage)}">'
        '<input type="hidden" name="client_ms" id="client-ms" value="">'
        f"{body}"
        '<p class="hint" id="blank-hint" hidden>Press Enter again to leave this item '
        "blank.</p>"
        '<p><button type="submit">Save and go on</button> <span class="hint">or press '
        "<kbd>Enter</kbd></span></p></form></section>"
    )
    aside = ""
    if definitions:
        aside = (
            '<aside id="lookup"><h2>Definitions</h2><form id="lookup-form" role="search">'
            '<input type="text" id="lookup-word" autocomplete="off" spellcheck="false" '
            'placeholder="a word (Alt+L)" aria-label="word to look up">'
            '<button type="submit">Look up</button></form>'
            '<div id="lookup-result" aria-live="polite"><p class="hint">WordNet senses: '
            "part of speech, gloss and examples. Click a word on the left, or type "
            "one.</p></div></aside>"
        )
    return _document(
        "lexbench study",
        _header(annotator, done, total),
        section + aside,
        "" if definitions else "single",
        choices=kind == "choice",
        definitions=definitions,
    )


def done_page(*, annotator: str, done: int, total: int, notice: str | None = None) -> str:
    message = NOTICES.get(notice or "")
    body = (
        "<section>"
        + (f'<p class="notice" role="status">{escape(message)}</p>' if message else "")
        + f'<h1>Thank you, {escape(annotator)}.</h1><p id="finished">All {total} '
        "answers are saved. You can close this page.</p></section>"
    )
    return _document("lexbench study: done", _header(annotator, done, total), body, "single")


def start_page(
    *, error: str | None = None, benchmark_title: str = "", typed_names: bool = True
) -> str:
    """The name form; in an invitation-only study, a line saying to use the invite link."""
    form = (
        '<form method="post" action="/start" id="start-form"><p><label for="name">'
        "Your name (letters, digits, '.', '_' or '-'):</label></p>"
        '<p><input type="text" id="name" name="name" autofocus autocomplete="off"></p>'
        '<p><button type="submit">Start or resume</button></p></form>'
        '<p class="hint">Use the same name to come back to where you stopped.</p>'
        if typed_names
        else '<p id="invite-only">This study is by invitation: open the link you were '
        "given (it also brings you back to where you stopped).</p>"
    )
    body = (
        "<section><h1>lexbench study</h1>"
        + (f"<p>{escape(benchmark_title)}</p>" if benchmark_title else "")
        + (f'<p class="notice" role="alert">{escape(error)}</p>' if error else "")
        + form
        + "</section>"
    )
    return _document("lexbench study", "", body, "single")


def begin_page(*, annotator: str, done: int, total: int) -> str:
    """Before a step is served: a button, since only a POST may start the time on task."""
    body = (
        f'<section><h1>Welcome, {escape(annotator)}.</h1><form method="post" '
        f'action="/a/{escape(annotator)}/begin"><p><button type="submit" id="begin" '
        "autofocus>Begin or resume</button></p></form>"
        '<p class="hint">Your time on each item starts when it is shown.</p></section>'
    )
    return _document("lexbench study", _header(annotator, done, total), body, "single")


def welcome_page(*, annotator: str) -> str:
    """After an invite link: the cookie is set; go on to the annotator's page. A page of our
    own, not a redirect, so the next request is same-site and carries the SameSite=Strict
    cookie even when the link was opened from a mail or chat page."""
    target = f"/a/{escape(annotator)}"
    body = (
        f"<section><h1>Welcome, {escape(annotator)}.</h1>"
        f'<p><a id="begin" href="{target}">Begin or resume</a></p></section>'
    )
    page = _document("lexbench study", "", body, "single")
    return page.replace("<head>", f'<head><meta http-equiv="refresh" content="0;url={target}">', 1)
