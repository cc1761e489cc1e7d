"""The HTML report in headless Chromium: it loads, its figures decode, its filters work.

Needs Debian's `chromium` (apt-get install -y chromium). Without it the test is skipped,
unless LEXBENCH_REQUIRE_BROWSER=1 (as in CI), where a missing browser is a failure.
Screenshots of the page and of every figure go to $LEXBENCH_REPORT_SCREENSHOTS when set
(to look at them), else to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest
from test_report_runs import INJECTION, make_lambda_run, write_graded_run

from lexbench.report.browser import Chromium, find_chromium
from lexbench.report.build import build_report
from lexbench.report.runs import load_run


def require_chromium() -> str:
    executable = find_chromium()
    if executable is None:
        configured = os.environ.get("LEXBENCH_CHROMIUM")
        message = (
            f"LEXBENCH_CHROMIUM={configured!r} is not an executable"
            if configured
            else "chromium is not installed (Debian: apt-get install -y chromium)"
        )
        if os.environ.get("LEXBENCH_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{message}, and LEXBENCH_REQUIRE_BROWSER=1 requires it")
        pytest.skip(f"{message}; set LEXBENCH_REQUIRE_BROWSER=1 to make this a failure")
    return executable


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n"), f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def set_control(browser: Chromium, element_id: str, value: str, event: str = "change") -> None:
    """Set a select or input as a user would; fails if a select has no such option."""
    accepted = browser.evaluate(
        f"(() => {{ const e = document.getElementById({json.dumps(element_id)}); "
        f"e.value = {json.dumps(value)}; e.dispatchEvent(new Event({json.dumps(event)})); "
        f"return e.value; }})()"
    )
    assert accepted == value, f"#{element_id} did not take {value!r}"


def visible_rows(browser: Chromium) -> list[dict]:
    return browser.evaluate(
        "Array.from(document.querySelectorAll('#sample-rows tr.sample-row')).map(tr => ("
        "{status: tr.dataset.status, cells: Array.from(tr.cells).map(td => td.textContent)}))"
    )


def test_report_in_headless_chromium(tmp_path):
    executable = require_chromium()
    runs = [
        make_lambda_run(tmp_path / "runs", "model-a", 1, 0.7, fail_ids=("antonym-0003",)),
        make_lambda_run(tmp_path / "runs", "model-b", 2, 0.3),
        write_graded_run(tmp_path / "runs", "lm-scan", [1.0, 0.5, 0.25, 0.2] * 5),
    ]
    files = build_report(runs, tmp_path / "report")
    samples = [row for path in runs for row in load_run(path).samples]
    shots = Path(os.environ.get("LEXBENCH_REPORT_SCREENSHOTS") or tmp_path / "shots")

    with Chromium(executable, width=1400, height=1000) as browser:
        browser.open(files.html)
        assert browser.evaluate("document.readyState") == "complete"
        assert browser.evaluate("document.title") == "lexbench report"

        # Every figure is decoded (naturalWidth > 0 only once the PNG data decoded).
        figures = browser.evaluate(
            "Array.from(document.querySelectorAll('img.report-figure')).map(i => "
            "({ok: i.complete, width: i.naturalWidth, height: i.naturalHeight, alt: i.alt}))"
        )
        assert len(figures) == len(files.figures) == 4  # LAMBDA bars, 2 length plots, SCAN PNG
        assert all(f["ok"] and f["width"] > 0 and f["height"] > 0 for f in figures), figures
        assert (
            browser.evaluate(
                "Promise.all(Array.from(document.images).map(i => i.decode())).then(() => true)"
            )
            is True
        )

        # The browser starts on all samples, 50 per page.
        total = len(samples)
        assert browser.evaluate("document.getElementById('sample-count').dataset.count") == str(
            total
        )
        assert len(visible_rows(browser)) == 50
        set_control(browser, "page-size", "250")
        assert len(visible_rows(browser)) == total

        wrong = sum(1 for s in samples if s["correct"] is False)
        set_control(browser, "filter-status", "wrong")
        rows = visible_rows(browser)
        assert len(rows) == wrong and {r["status"] for r in rows} == {"wrong"}

        set_control(browser, "filter-status", "unscored")
        rows = visible_rows(browser)
        assert len(rows) == 1 and rows[0]["cells"][1] == "antonym-0003"

        set_control(browser, "filter-status", "right")
        assert len(visible_rows(browser)) == sum(1 for s in samples if s["correct"] is True)

        set_control(browser, "filter-status", "")
        for error_class in ("identity_echo", "support_copy", "other", "ranked_lower"):
            expected = sum(1 for s in samples if s["error_class"] == error_class)
            assert expected > 0, error_class
            set_control(browser, "filter-error", error_class)
            rows = visible_rows(browser)
            assert len(rows) == expected and {r["cells"][3] for r in rows} == {error_class}
        set_control(browser, "filter-status", "wrong")
        set_control(browser, "filter-error", "identity_echo")
        assert len(visible_rows(browser)) == sum(
            1 for s in samples if s["error_class"] == "identity_echo" and s["correct"] is False
        )
        set_control(browser, "filter-status", "")

        set_control(browser, "filter-error", "")
        set_control(browser, "filter-run", "2")
        rows = visible_rows(browser)
        assert len(rows) == 20 and {r["cells"][0] for r in rows} == {"lm-scan"}

        # Search prompts and outputs: the injected markup is found and shown as text.
        set_control(browser, "filter-run", "")
        set_control(browser, "filter-search", "__pwned", event="input")
        rows = visible_rows(browser)
        assert len(rows) == sum(1 for s in samples if INJECTION in s.get("output", ""))
        assert rows and all(INJECTION in r["cells"][6] for r in rows)
        browser.evaluate("document.querySelector('#sample-rows tr.sample-row').click()")
        detail = json.loads(
            browser.evaluate("document.querySelector('#sample-rows tr.detail-row pre').textContent")
        )
        assert INJECTION in detail["output"]
        assert browser.evaluate("typeof window.__pwned") == "undefined"
        set_control(browser, "filter-search", "synonym-0004", event="input")
        assert [r["cells"][1] for r in visible_rows(browser)] == ["synonym-0004", "synonym-0004"]

        # Screenshots: the page (top and samples) and every figure.
        set_control(browser, "filter-search", "", event="input")
        set_control(browser, "filter-status", "wrong")
        taken = [
            browser.screenshot(shots / "page-top.png"),
            browser.screenshot(shots / "page-full.png", full_page=True),
            browser.screenshot(shots / "samples-wrong.png", "#samples", max_height=1200),
        ]
        for number in range(1, len(figures) + 1):
            taken.append(browser.screenshot(shots / f"figure-{number}.png", f"#figure-{number}"))
    for path in taken:
        width, height = png_size(path)
        assert width > 100 and height > 100, (path, width, height)
