"""The small Markdown-to-HTML converter: what report.md files use, everything escaped."""

from __future__ import annotations

from lexbench.report.markdown import inline, split_row, to_html


def test_pipe_table_with_alignment_and_inline_markup():
    text = "| relation | n | acc % |\n|:---|---:|:---:|\n| **overall** | 120 | 4.2 |\n| a_b | 3 | `x` |"
    out = to_html(text)
    assert out.startswith('<table>\n<thead><tr><th style="text-align:left">relation</th>')
    assert (
        '<th style="text-align:right">n</th>' in out
        and '<th style="text-align:center">acc %</th>' in out
    )
    assert '<td style="text-align:left"><strong>overall</strong></td>' in out
    assert '<td style="text-align:left">a_b</td>' in out  # underscores stay literal
    assert out.count("<tr>") == 3 and "<code>x</code>" in out


def test_rows_with_missing_or_extra_cells_fit_the_header():
    out = to_html("| a | b |\n|---|---|\n| 1 |\n| 1 | 2 | 3 |")
    body = out.split("<tbody>\n")[1]
    assert body == "<tr><td>1</td><td></td></tr>\n<tr><td>1</td><td>2</td></tr>\n</tbody>\n</table>"


def test_bars_inside_code_and_escaped_bars_do_not_split_cells():
    assert split_row("| `a|b` | c \\| d |") == ["`a|b`", "c | d"]


def test_everything_is_escaped():
    out = to_html(
        '# Title <b>\n\n<script>alert(1)</script> & "q"\n\n| x |\n|---|\n| <img src=x onerror=alert(1)> |'
    )
    assert "<script>" not in out and "<img" not in out and "<b>" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp;" in out
    assert "<h1>Title &lt;b&gt;</h1>" in out


def test_links_keep_only_safe_targets():
    assert (
        inline("[docs](https://example.org/a?b=1&c=2)")
        == '<a href="https://example.org/a?b=1&amp;c=2">docs</a>'
    )
    assert "href" not in inline("[x](javascript:alert)")
    assert inline("[local](figures/a.png)") == '<a href="figures/a.png">local</a>'


def test_images_go_through_the_resolver():
    seen = []

    def resolve(src: str):
        seen.append(src)
        return "data:image/png;base64,AAAA" if src == "figures/a.png" else None

    out = to_html("![violin](figures/a.png) and ![gone](figures/missing.png)", resolve)
    assert seen == ["figures/a.png", "figures/missing.png"]
    assert '<img src="data:image/png;base64,AAAA" alt="violin">' in out
    assert "<em>[figure: gone]</em>" in out


def test_headings_lists_code_and_offset():
    text = "# A\n## B\n\n- one\n- two\n  continued\n\n1. first\n2. second\n\n```\n<raw> | x\n```\n\n---\ntext *it*"
    out = to_html(text, heading_offset=2)
    assert "<h3>A</h3>" in out and "<h4>B</h4>" in out
    assert "<ul><li>one</li><li>two continued</li></ul>" in out
    assert "<ol><li>first</li><li>second</li></ol>" in out
    assert "<pre><code>&lt;raw&gt; | x</code></pre>" in out
    assert "<hr>" in out and "<p>text <em>it</em></p>" in out


def test_paragraph_lines_join_and_a_table_needs_its_divider():
    out = to_html("first line\nsecond | line\n\nthird")
    assert out == "<p>first line second | line</p>\n<p>third</p>"
