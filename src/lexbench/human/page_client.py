"""What the study page does in the browser: its stylesheet, and the script behind the
keyboard (Enter saves, A-D or 1-4 picks an E-KAR choice, Alt+L or "/" opens the look-up,
Escape returns to the answer), the definitions look-up and the second Enter a blank answer
needs.

Both are placed inline by `lexbench.human.page`: nothing loads from the network. The script
inserts look-up results as text (`textContent`), never as markup.
"""

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
