#!/usr/bin/env python3
"""Checks the figures of docs/experiments.md's prose against the blocks they come from.

A paragraph that quotes blocks names them, anywhere in it, with `<!-- figures from: ARGS -->`,
ARGS being the command of a block in the same doc (`<!-- experiment ci: ARGS -->` or `full:`).
Every number of the paragraph must then be one that a block it names prints (or its command
holds), so a figure edited by hand, or left behind when the block is regenerated, fails the
check. Not counted as the paragraph's figures: code spans, what a parenthesis opened with "the
paper" holds (the paper's figures), and the numbers that name sections, tables, figures,
equations and an algorithm's lines (§4.1, Table 6, Figure 1(b), eq. 4, line 10).

A paragraph whose numbers are not results (an experiment's inputs, a run not kept that names its
own command) says so with `<!-- figures not from a block: REASON -->`. Any other paragraph that
holds a number fails, so a new figure cannot slip in unchecked. In a table outside the blocks, each
cell is a paragraph of its own; cells in a column headed "Ours" must be marked, the others (the
paper's figures, the names of results) need not.

usage: check_prose_figures.py DOC   (exit status 1 when a figure is not in its block)
"""

import re
import sys

BLOCK_BEGIN = re.compile(r"^<!-- experiment (?:ci|full): (.*) -->$")
BLOCK_END = re.compile(r"^<!-- end experiment")
FIGURES_FROM = re.compile(r"<!-- figures from: (.*?) -->")
NOT_FROM_A_BLOCK = re.compile(r"<!-- figures not from a block: .+? -->")
# A number: digits with an optional thousands grouping and decimals, wherever it starts ("DAG10"
# holds 10). A hyphen between two numbers is a range, not a sign.
NUMBER = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|(?<![\d.,])\d+(?:\.\d+)?")
NAMING = re.compile(
    r"(?:§|Table |Tables |Figure |Figures |Fig\. |eq\. |Eq\. |Algorithm |Section |line )"
    r"(?:\(?\d+(?:\.\d+)*\)?(?:\([a-z]\))?(?:,? (?:and )?)?)+")
CODE = re.compile(r"`[^`]*`")


def value(text):
    return float(text.replace(",", ""))


def numbers(text):
    return [m.group(0) for m in NUMBER.finditer(text)]


def without_paper_parentheses(text):
    """Drops each parenthesized group opened by "the paper" (nested parentheses included)."""
    out = []
    i = 0
    while i < len(text):
        if text[i] == "(" and re.match(r"\((?:the\s+)?paper", text[i:]):
            depth = 0
            while i < len(text):
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
                if depth == 0:
                    break
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def prose_figures(paragraph):
    text = CODE.sub(" ", paragraph)
    text = FIGURES_FROM.sub(" ", text)
    text = NOT_FROM_A_BLOCK.sub(" ", text)
    text = without_paper_parentheses(text)
    text = NAMING.sub(" ", text)
    return numbers(text)


def cells(row):
    """A table row's cells, without the outer bars."""
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def main(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks = {}
    args = None
    for line in lines:
        begin = BLOCK_BEGIN.match(line)
        if begin:
            args = begin.group(1)
            blocks[args] = []
        elif args is not None and BLOCK_END.match(line):
            args = None
        elif args is not None:
            blocks[args].append(line)
    # What a block prints, and its command's own numbers (a paragraph may say "3000 tasks").
    block_values = {a: {value(n) for n in numbers("\n".join([a] + b))} for a, b in blocks.items()}

    failures = 0

    def check(paragraph, start, must_be_marked=True):
        text = "\n".join(paragraph)
        marked = CODE.sub(" ", text)
        sources = FIGURES_FROM.findall(marked)
        if not sources:
            if must_be_marked and not NOT_FROM_A_BLOCK.search(marked) and prose_figures(text):
                print(f"check-experiments: {path}:{start}: figures from no block "
                      f"({', '.join(prose_figures(text))}): name the block with <!-- figures "
                      f"from: ARGS -->, or say why with <!-- figures not from a block: REASON -->",
                      file=sys.stderr)
                return 1
            return 0
        unknown = [s for s in sources if s not in block_values]
        if unknown:
            print(f"check-experiments: {path}:{start}: no block '{unknown[0]}' for this "
                  f"paragraph's figures", file=sys.stderr)
            return 1
        printed = set().union(*(block_values[s] for s in sources))
        missing = [n for n in prose_figures(text) if value(n) not in printed]
        if missing:
            print(f"check-experiments: {path}:{start}: figures no block it names prints "
                  f"({'; '.join(sources)}): {', '.join(missing)}", file=sys.stderr)
            return 1
        return 0

    def check_table(rows, start):
        header = cells(rows[0])
        ours = [h.startswith("Ours") for h in header]
        found = 0
        for offset, row in enumerate(rows[2:], 2):
            for column, cell in enumerate(cells(row)):
                must = column < len(ours) and ours[column]
                found += check([cell], start + offset, must_be_marked=must)
        return found

    def check_paragraph(paragraph, start):
        if paragraph and paragraph[0].startswith("|"):
            return check_table(paragraph, start)
        return check(paragraph, start)

    paragraph = []
    start = 0
    in_block = False
    for number, line in enumerate(lines, 1):
        if BLOCK_BEGIN.match(line):
            in_block = True
        ends = in_block or not line.strip() or line.startswith("#")
        if ends or line.startswith("- "):  # a list item is a paragraph of its own
            failures += check_paragraph(paragraph, start)
            paragraph = []
            if in_block:
                in_block = not BLOCK_END.match(line)
            if ends:
                continue
        if not paragraph:
            start = number
        paragraph.append(line)
    failures += check_paragraph(paragraph, start)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
