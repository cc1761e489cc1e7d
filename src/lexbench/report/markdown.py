"""A small Markdown-to-HTML converter for the report.md files benchmarks write.

It covers what those files use, and escapes everything else:

* ATX headings (`#` .. `######`), paragraphs, blank-line separation;
* GitHub pipe tables with an alignment row (`|---|---:|:---:|`);
* `-`/`*` and `1.` lists (one level), fenced code blocks, horizontal rules;
* inline: `code`, **bold**, *italic*, [links](https://...) and ![images](figures/x.png).

All text is HTML-escaped before any markup is added, so a sample's `<script>` stays text.
Links keep only http(s), mailto and relative targets (never `javascript:`); images go
through `resolve_image`, which turns a relative path into a data URI (or drops it).

>>> to_html("| a | b |\\n|---|---:|\\n| x<y | **2** |")
'<table>\\n<thead><tr><th>a</th><th style="text-align:right">b</th></tr></thead>\\n<tbody>\\n<tr><td>x&lt;y</td><td style="text-align:right"><strong>2</strong></td></tr>\\n</tbody>\\n</table>'
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

ImageResolver = Callable[[str], "str | None"]

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_TABLE_DIVIDER = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+(.*)$")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SAFE_URL = re.compile(r"^(https?://|mailto:|#|\.{0,2}/|[A-Za-z0-9_][A-Za-z0-9_./-]*$)")

_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])")
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def _inline_text(text: str, resolve_image: ImageResolver | None) -> str:
    """Inline markup for text outside code spans (escapes first, then adds tags)."""
    images: list[str] = []

    def image(match: re.Match[str]) -> str:
        alt, src = match.group(1), html.unescape(match.group(2))
        data = resolve_image(src) if resolve_image is not None else None
        if data is None:
            tag = f"<em>[figure: {html.escape(alt or src)}]</em>"
        else:
            tag = (
                f'<img src="{html.escape(data, quote=True)}" alt="{html.escape(alt, quote=True)}">'
            )
        images.append(tag)
        return f"\x00{len(images) - 1}\x00"

    escaped = html.escape(text, quote=False)
    escaped = _IMAGE.sub(image, escaped)

    def link(match: re.Match[str]) -> str:
        label, target = match.group(1), html.unescape(match.group(2))
        if not _SAFE_URL.match(target):
            return label
        return f'<a href="{html.escape(target, quote=True)}">{label}</a>'

    escaped = _LINK.sub(link, escaped)
    escaped = _BOLD.sub(r"<strong>\1</strong>", escaped)
    escaped = _ITALIC.sub(r"<em>\1</em>", escaped)
    return re.sub("\x00(\\d+)\x00", lambda m: images[int(m.group(1))], escaped)


def inline(text: str, resolve_image: ImageResolver | None = None) -> str:
    """One line of Markdown as HTML: code spans verbatim (escaped), the rest marked up."""
    parts = re.split(r"(`+)(.+?)\1", text)
    out: list[str] = []
    # re.split with two groups yields: text, ticks, code, text, ticks, code, ...
    for index in range(0, len(parts), 3):
        out.append(_inline_text(parts[index], resolve_image))
        if index + 2 < len(parts):
            out.append(f"<code>{html.escape(parts[index + 2].strip(), quote=False)}</code>")
    return "".join(out)


def split_row(line: str) -> list[str]:
    """The cells of a pipe-table row; `\\|` is a literal bar, bars inside `code` too."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    cells, current, in_code = [], [], False
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text) and text[index + 1] == "|":
            current.append("|")
            index += 2
            continue
        if char == "`":
            in_code = not in_code
        if char == "|" and not in_code:
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(char)
        index += 1
    cells.append("".join(current).strip())
    return cells


def _alignments(divider: str) -> list[str]:
    out = []
    for cell in split_row(divider):
        left, right = cell.startswith(":"), cell.endswith(":")
        out.append("center" if left and right else "right" if right else "left" if left else "")
    return out


def _cell(tag: str, text: str, align: str, resolve_image: ImageResolver | None) -> str:
    style = f' style="text-align:{align}"' if align else ""
    return f"<{tag}{style}>{inline(text, resolve_image)}</{tag}>"


def table_to_html(lines: list[str], resolve_image: ImageResolver | None = None) -> str:
    """A pipe table (header, divider, rows) as an HTML table."""
    header = split_row(lines[0])
    aligns = _alignments(lines[1])
    aligns += [""] * (len(header) - len(aligns))
    head = "".join(_cell("th", c, aligns[i], resolve_image) for i, c in enumerate(header))
    rows = []
    for line in lines[2:]:
        cells = split_row(line)
        cells = (cells + [""] * len(header))[: len(header)]
        rows.append(
            "<tr>"
            + "".join(_cell("td", c, aligns[i], resolve_image) for i, c in enumerate(cells))
            + "</tr>"
        )
    return (
        "<table>\n<thead><tr>"
        + head
        + "</tr></thead>\n<tbody>\n"
        + "\n".join(rows)
        + ("\n" if rows else "")
        + "</tbody>\n</table>"
    )


def _is_table_start(lines: list[str], index: int) -> bool:
    return (
        index + 1 < len(lines)
        and "|" in lines[index]
        and _TABLE_DIVIDER.match(lines[index + 1]) is not None
        and "-" in lines[index + 1]
    )


def to_html(
    markdown: str, resolve_image: ImageResolver | None = None, heading_offset: int = 0
) -> str:
    """Markdown text as an HTML fragment. `heading_offset` demotes headings (# -> h2 with 1)."""
    lines = markdown.replace("\r\n", "\n").split("\n")
    blocks: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            blocks.append("<p>" + inline(" ".join(paragraph), resolve_image) + "</p>")
            paragraph.clear()

    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            flush()
            index += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            flush()
            body = []
            index += 1
            while index < len(lines) and not lines[index].strip().startswith(fence.group(1)):
                body.append(lines[index])
                index += 1
            blocks.append(
                "<pre><code>" + html.escape("\n".join(body), quote=False) + "</code></pre>"
            )
            index += 1
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            level = min(6, len(heading.group(1)) + heading_offset)
            blocks.append(f"<h{level}>{inline(heading.group(2), resolve_image)}</h{level}>")
            index += 1
            continue
        if _is_table_start(lines, index):
            flush()
            table = [lines[index], lines[index + 1]]
            index += 2
            while index < len(lines) and lines[index].strip() and "|" in lines[index]:
                table.append(lines[index])
                index += 1
            blocks.append(table_to_html(table, resolve_image))
            continue
        if _RULE.match(line):
            flush()
            blocks.append("<hr>")
            index += 1
            continue
        for pattern, tag in ((_BULLET, "ul"), (_NUMBERED, "ol")):
            if pattern.match(line):
                flush()
                items = []
                while index < len(lines) and pattern.match(lines[index]):
                    items.append(pattern.match(lines[index]).group(1))  # type: ignore[union-attr]
                    index += 1
                    # A lazily wrapped continuation line belongs to the item above.
                    while (
                        index < len(lines)
                        and lines[index].startswith("  ")
                        and lines[index].strip()
                        and not pattern.match(lines[index])
                    ):
                        items[-1] += " " + lines[index].strip()
                        index += 1
                blocks.append(
                    f"<{tag}>"
                    + "".join(f"<li>{inline(i, resolve_image)}</li>" for i in items)
                    + f"</{tag}>"
                )
                break
        else:
            paragraph.append(line.strip())
            index += 1
    flush()
    return "\n".join(blocks)
