"""Where a PDF page sets its lines apart: the gaps between paragraphs that its plain text drops.

pypdf's plain text keeps no blank line where the page leaves a gap, so a title ran into the
sentence under it and a table lost its caption (knowledge/ingest/extract.py reads the pages;
knowledge/ingest/plain.py reads the blank lines as a text file's).
"""

from __future__ import annotations

import difflib
from collections import Counter

# A step down the page this much larger than the page's usual one between lines is a gap:
# the space a title, a paragraph or a table is set apart by.
GAP_RATIO = 1.5


def drawn_lines(placed: list[tuple[str, float, float]]) -> list[tuple[str, bool]]:
    """Return a page's lines as drawn (pieces at one height are a line), each with whether a gap
    follows it: a step down larger than GAP_RATIO times the page's usual step. A page set with
    double spacing throughout has no gap; the last line keeps none (a footer is no paragraph)."""
    lines: list[list] = []  # [text, height, size]
    for text, height, size in placed:
        if lines and abs(lines[-1][1] - height) < max(size, 1.0) * 0.5:
            lines[-1][0] += text
        else:
            lines.append([text, height, size])
    steps = [above[1] - below[1] for above, below in zip(lines, lines[1:], strict=False)]
    downward = sorted(step for step in steps if step > 0)
    usual = downward[len(downward) // 2] if downward else 0.0
    out = []
    for index, (text, _, _) in enumerate(lines):
        # The gap before the page's last line is left out: that line is a footer as often as not.
        gap = usual > 0 and index + 2 < len(lines) and steps[index] > GAP_RATIO * usual
        out.append(("".join(text.split()), gap))
    return out


def paragraph_gaps(text: str, drawn: list[tuple[str, bool]], running: set[str]) -> str:
    """Return a page's text with a blank line after each line a gap sets apart from the next
    (pypdf's plain text keeps none): a title over its first sentence, or a paragraph over a
    table, is then a paragraph of its own, as in a text file. A PDF's title with a comma in
    it ran into the sentence under it, and its table lost its caption. Lines are matched to
    the drawn ones by their text; a running head (`running`: a page's first line that opens
    another page too) stays as it was."""
    gaps = {index for index, (key, gap) in enumerate(drawn) if gap and key not in running}
    if not gaps:
        return text
    lines = text.split("\n")
    keys = ["".join(line.split()) for line in lines]
    matcher = difflib.SequenceMatcher(None, keys, [key for key, _ in drawn], autojunk=False)
    after: set[int] = set()
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            if block.b + offset in gaps:
                after.add(block.a + offset)
    out: list[str] = []
    for index, line in enumerate(lines):
        out.append(line)
        if index in after:
            out.append("")
    return "\n".join(out)


def running_heads(pages: list[list[tuple[str, bool]]]) -> set[str]:
    """Return the first lines that open more than one page: a running head, not a title."""
    firsts = Counter(lines[0][0] for lines in pages if lines)
    return {key for key, count in firsts.items() if count > 1}
