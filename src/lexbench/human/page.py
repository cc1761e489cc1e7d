"""The study's HTML: one self-contained page per step, CSS and JavaScript inline.

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

NOTICES = {
    "duplicate": "That step was already saved (in another tab, or sent twice); nothing was "
    "changed. Here is your next item.",
    "invalid": "That answer was not accepted; please answer again.",
    "stale": "That item is no longer the one waiting for you; here is your next item.",
}

CSS = """
:root { --ink: #1d2430; --muted: #5b6677; --line: #d7dde6; --accent: #1f5fbf; --bg: #f6f8fb; }
* { box-sizing: border-box; }
body { margin: 0; font: 17px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: var(--ink); background: var(--bg); }
header { display: flex; align-items: center; gap: 1rem; padding: .7rem 1.5rem;
         background: #fff; border-bottom: 1px solid var(--line); }
header .who { font-weight: 600; }
header progress { flex: 1; height: .8rem; accent-color: var(--accent); }
header .count { color: var(--muted); font-variant-numeric: tabular-nums; }
main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(16rem, 2fr); gap: 1.5rem;
       max-width: 72rem; margin: 1.5rem auto; padding: 0 1.5rem; }
main.single { grid-template-columns: minmax(0, 1fr); max-width: 48rem; }
section, aside { background: #fff; border: 1px solid var(--line); border-radius: 10px;
                 padding: 1.2rem 1.5rem; }
.instructions, .hint, .mode { color: var(--muted); font-size: .95rem; }
.notice { background: #fff6dd; border: 1px solid #f0d48a; border-radius: 6px;
          padding: .5rem .8rem; }
.pairs { font-size: 1.6rem; margin: 1.2rem 0; }
.pairs .line { display: grid; grid-template-columns: minmax(8rem, 1fr) 2rem minmax(10rem, 1.2fr);
               align-items: center; padding: .35rem 0; }
.pairs .line > span:first-child { justify-self: end; }
.pairs .sep { text-align: center; color: var(--muted); }
.word { cursor: help; border-bottom: 1px dotted transparent; }
.word:hover { border-bottom-color: var(--muted); }
input[type=text] { font: inherit; padding: .3rem .5rem; border: 2px solid var(--line);
                   border-radius: 6px; width: 100%; }
input[type=text]:focus { border-color: var(--accent); outline: none; }
.query { font-weight: 600; }
.choices { border: 0; padding: 0; margin: 1rem 0; }
.choices label { display: block; padding: .45rem .7rem; margin: .3rem 0; border: 1px solid var(--line);
                 border-radius: 6px; cursor: pointer; font-size: 1.15rem; }
.choices input { margin-right: .6rem; }
.choices label:has(input:checked) { border-color: var(--accent); background: #eef4ff; }
.explanation { background: #eef7ee; border-left: 4px solid #4b9a4b; padding: .5rem .8rem; }
.locked { color: var(--muted); }
.sentence { font-size: 1.4rem; margin: 1.2rem 0; }
.sentence input { width: 14rem; display: inline-block; }
pre.prompt { white-space: pre-wrap; background: var(--bg); padding: .8rem; border-radius: 6px;
             font: .95rem/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
button { font: inherit; padding: .45rem 1.1rem; border-radius: 6px; border: 0;
         background: var(--accent); color: #fff; cursor: pointer; }
kbd { font: .8rem ui-monospace, monospace; border: 1px solid var(--line); border-bottom-width: 2px;
      border-radius: 4px; padding: 0 .3rem; background: #fff; }
aside h2 { font-size: 1.05rem; margin: 0 0 .6rem; }
#lookup-form { display: flex; gap: .5rem; }
#lookup-form input { flex: 1; min-width: 0; }
#lookup-form button { white-space: nowrap; }
#lookup-result { margin-top: .8rem; max-height: 60vh; overflow-y: auto; }
#lookup-result .sense { margin: 0 0 .6rem; }
#lookup-result .pos { font-style: italic; color: var(--muted); margin-right: .4rem; }
#lookup-result .example { color: var(--muted); font-size: .92rem; }
footer { max-width: 72rem; margin: 0 auto 2rem; padding: 0 1.5rem; color: var(--muted);
         font-size: .85rem; }
"""

JS = """
(function () {
  const form = document.getElementById('answer-form');
  const lookupWord = document.getElementById('lookup-word');
  const lookupForm = document.getElementById('lookup-form');
  const result = document.getElementById('lookup-result');
  const answer = document.getElementById('answer');
  let confirmedBlank = false, sending = false;

  // A page restored from the back-forward cache may be out of date: ask the server again.
  window.addEventListener('pageshow', function (e) { if (e.persisted) location.reload(); });

  function typing(el) { return el && (el.tagName === 'INPUT' && el.type === 'text'); }
  function focusAnswer() {
    if (answer) { answer.focus(); return; }
    const checked = form && form.querySelector('input[type=radio]:checked');
    const first = form && form.querySelector('input[type=radio]');
    if (checked || first) (checked || first).focus();
  }

  if (form) {
    form.addEventListener('submit', function (e) {
      if (sending) { e.preventDefault(); return; }
      if (answer && !answer.value.trim() && !confirmedBlank) {
        e.preventDefault();
        confirmedBlank = true;
        document.getElementById('blank-hint').hidden = false;
        return;
      }
      if (form.dataset.kind === 'choice' && !form.querySelector('input[type=radio]:checked')) {
        e.preventDefault();
        document.getElementById('choice-hint').hidden = false;
        return;
      }
      document.getElementById('client-ms').value = String(Math.round(performance.now()));
      sending = true;
    });
    if (answer) answer.addEventListener('input', function () {
      confirmedBlank = false;
      document.getElementById('blank-hint').hidden = true;
    });
  }

  function show(data) {
    result.textContent = '';
    const title = document.createElement('h3');
    title.textContent = data.word;
    result.appendChild(title);
    if (!data.found) {
      const none = document.createElement('p');
      none.textContent = 'Not in WordNet.';
      result.appendChild(none);
      return;
    }
    const list = document.createElement('ol');
    data.senses.forEach(function (sense) {
      const item = document.createElement('li');
      item.className = 'sense';
      const pos = document.createElement('span');
      pos.className = 'pos';
      pos.textContent = sense.pos;
      item.appendChild(pos);
      item.appendChild(document.createTextNode(sense.gloss));
      sense.examples.forEach(function (example) {
        const ex = document.createElement('div');
        ex.className = 'example';
        ex.textContent = '\\u201c' + example + '\\u201d';
        item.appendChild(ex);
      });
      list.appendChild(item);
    });
    result.appendChild(list);
    if (data.more) {
      const more = document.createElement('p');
      more.className = 'hint';
      more.textContent = data.more + ' more senses not shown.';
      result.appendChild(more);
    }
  }

  function lookUp(word) {
    if (!result || !word.trim()) return;
    result.textContent = 'Looking up\\u2026';
    fetch('/api/define?word=' + encodeURIComponent(word.trim()))
      .then(function (r) { return r.json().then(function (d) { return [r.ok, d]; }); })
      .then(function (pair) {
        if (pair[0]) show(pair[1]);
        else result.textContent = pair[1].detail || 'Look-up failed.';
      })
      .catch(function () { result.textContent = 'Look-up failed (is the server running?).'; });
  }

  if (lookupForm) {
    lookupForm.addEventListener('submit', function (e) { e.preventDefault(); lookUp(lookupWord.value); });
    document.querySelectorAll('.word').forEach(function (el) {
      el.addEventListener('click', function () { lookupWord.value = el.textContent; lookUp(el.textContent); });
    });
  }

  document.addEventListener('keydown', function (e) {
    const here = document.activeElement;
    if (lookupWord && ((e.altKey && e.code === 'KeyL') || (e.key === '/' && !typing(here)))) {
      e.preventDefault();
      lookupWord.focus();
      lookupWord.select();
      return;
    }
    if (e.key === 'Escape') { e.preventDefault(); focusAnswer(); return; }
    if (!form || form.dataset.kind !== 'choice' || here === lookupWord || e.altKey || e.ctrlKey || e.metaKey) return;
    const index = 'abcd'.indexOf(e.key.toLowerCase()) >= 0 ? 'abcd'.indexOf(e.key.toLowerCase())
                : '1234'.indexOf(e.key);
    if (index >= 0) {
      const radio = form.querySelectorAll('input[type=radio]')[index];
      if (radio) { e.preventDefault(); radio.checked = true; radio.focus(); }
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (form.requestSubmit) form.requestSubmit(); else form.submit();
    }
  });
  focusAnswer();
})();
"""


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
