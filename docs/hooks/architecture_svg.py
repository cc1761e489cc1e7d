"""The layers picture of docs/architecture.md, drawn from the page's own layer table (the
table tests/test_structure.py checks every import against), so the picture, the page and
the check cannot disagree.

    .venv/bin/python docs/hooks/architecture_svg.py      # rewrites docs/img/architecture.svg

The SVG is plain text made by this function alone (no plotting library), so the same table
always gives the same bytes; tests/docs/test_architecture.py checks the committed file.
"""

from __future__ import annotations

import re
import textwrap
from html import escape
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "architecture.md"
PICTURE = REPO / "docs" / "img" / "architecture.svg"
ROW = re.compile(r"^\| (\w[\w ]*) \| (.+?) \| (.+) \|$")

WIDTH = 920
LEFT = 150  # the layer names' column
LINE = 17  # pixels per line of module names
CHARS = 92  # characters per line of module names
PAD = 10


def layer_table(page: str) -> list[tuple[str, tuple[str, ...], str]]:
    """(layer, its modules, what it holds) from the page's table, bottom layer first."""
    table = page.split("| layer | modules | what it holds |", 1)[1]
    rows = []
    for line in table.strip().splitlines()[1:]:
        if not line.startswith("|"):
            break
        found = ROW.match(line)
        if not found:
            raise ValueError(f"docs/architecture.md: a layer row that does not parse: {line}")
        name, modules, holds = found.groups()
        rows.append((name.strip(), tuple(re.findall(r"`([\w.]+)`", modules)), holds.strip()))
    return rows


def layers_svg(layers: list[tuple[str, tuple[str, ...], str]]) -> str:
    """The layers as stacked bands, the top layer first, imports pointing down."""
    bands = []
    y = PAD
    for name, modules, holds in reversed(layers):
        shown = ", ".join(m.removeprefix("lexbench.") for m in modules)
        lines = [holds.replace("`", ""), *textwrap.wrap(shown, CHARS)]
        height = PAD * 2 + LINE * len(lines)
        bands.append((name, lines, y, height))
        y += height + PAD
    total = y + PAD
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{total}" '
        f'viewBox="0 0 {WIDTH} {total}" font-family="DejaVu Sans, Arial, sans-serif" '
        'font-size="13">',
        '<rect width="100%" height="100%" fill="#ffffff"/>',
    ]
    for index, (name, lines, top, height) in enumerate(bands):
        shade = "#e8eef7" if index % 2 == 0 else "#f4f6fa"
        out.append(
            f'<rect x="{PAD}" y="{top}" width="{WIDTH - 2 * PAD - 40}" height="{height}" '
            f'rx="6" fill="{shade}" stroke="#7a8ca8"/>'
        )
        out.append(
            f'<text x="{PAD * 2}" y="{top + PAD + LINE - 3}" font-weight="bold" '
            f'fill="#1f3556">{escape(name)}</text>'
        )
        for number, text in enumerate(lines):
            style = ' font-style="italic" fill="#44546a"' if number == 0 else ' fill="#222222"'
            out.append(
                f'<text x="{LEFT}" y="{top + PAD + LINE * (number + 1) - 3}"{style}>'
                f"{escape(text)}</text>"
            )
    arrow_x = WIDTH - PAD - 18
    out.append(
        f'<line x1="{arrow_x}" y1="{PAD + 4}" x2="{arrow_x}" y2="{total - PAD - 14}" '
        'stroke="#1f3556" stroke-width="2"/>'
    )
    out.append(
        f'<polygon points="{arrow_x - 6},{total - PAD - 16} {arrow_x + 6},{total - PAD - 16} '
        f'{arrow_x},{total - PAD - 4}" fill="#1f3556"/>'
    )
    out.append(
        f'<text x="{arrow_x - 8}" y="{total // 2}" transform="rotate(-90 {arrow_x - 8} '
        f'{total // 2})" text-anchor="middle" fill="#1f3556">imports point down</text>'
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    PICTURE.write_text(layers_svg(layer_table(PAGE.read_text(encoding="utf-8"))), encoding="utf-8")
    print(f"wrote {PICTURE}")


if __name__ == "__main__":
    main()
