"""A generated stress set over the team documents' tables and numbered lists.

    .venv/bin/python bench/stress_answers.py [--provider NAME] [--model NAME] [--sample N]
                                             [--half tune|held_out|all] [--kind table|list]
                                             [--out results.jsonl] [--web]

Reads the SOURCE files of `bench/team_docs/sources` with ordinary parsers (the csv module,
markdown-it-py for Markdown pipe tables and numbered lists, BeautifulSoup for HTML tables and
<ol>, the JSON specs build.py turns into the DOCX and the PDF), never the knowledge base, and
generates questions from templates, so that a rule that serves one phrasing and not its
siblings shows:

- tables: every row x every non-key column (the key column, the first, names the row) x the
  three generic phrasings "What is the {column} of {key}?", "{key}: what is its {column}?",
  "Tell me the {column} for {key}.", plus one question-word phrasing chosen by the column's
  type (who for a person, when for a date or a year, how many for a head count, how much for
  an amount, how long for a duration). `{key}` is the row's name followed by the key column's
  noun ("the Porto office", "the Priority plan"), or the name alone for a column of names. The
  gold is the cell.
- lists: every numbered list of steps x every item: "What is step {n} of {title}?", "What is
  the {nth} step of {title}?", "In {title}, what comes after "{start of item n-1}"?" (n >= 2),
  and, for the last item, "What is the last step of {title}?". The title is the heading the
  list is under. A numbered list whose every item opens with a bold label (risks, options) is
  an enumeration, not steps, and is left out. The gold is the item.

Scoring ("fact first"), on the first sentence of the answer (a cited break ends one too), with
case, quotes, dashes, spaces and [n] markers normalised:

- a table cell: the cell's text is in the first sentence (a trailing parenthesis of the cell
  may be left out). For a number, a year, an amount or a count, every number of the cell is in
  the first sentence instead, compared with thousands separators removed and currency symbols
  and codes ignored ("EUR 3,200", "€3200" and "3200" are the same); for a duration, its leading
  "<number> <unit>" ("8 business hours").
- a step: the first sentence holds at least 80% of the first 8 content words of the item's
  first sentence (an answer's first sentence cannot hold two of the item's) (words
  lowercased, punctuation stripped, stopwords left out; every content word when the item has
  fewer than 8).

The documents are split by name: sorted by the name of the built file (as ingested), those at
even positions are the TUNING half, those at odd positions the HELD-OUT half. The documents
are built and ingested as bench/team_answers.py does, into a fresh knowledge base
`stress-{provider}`, and every question is asked on its own through the eight-node pipeline.
The web search the plan may ask for finds nothing (`--web` keeps the real one). It prints how
many questions were generated per document, kind and template, then fact first per half, per
kind and per template, the verdicts (verified / unverified / not_found) and the WRONG answers
badged verified. `--sample N` asks N questions spread evenly over the set ordered by kind,
template and document (deterministic); `--out` writes one JSON line per question.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import json
import re
import statistics
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from _setup import ROOT, bench_user, setup

DATA = ROOT / "bench" / "team_docs"
SOURCES = DATA / "sources"
CITATION = re.compile(r"\s*\[\d+(?:\s*[,;]\s*\d+)*\]")
CITED_BREAK = re.compile(r"(\[\d+(?:\s*[,;]\s*\d+)*\])\s+(?=[A-Z\"“(|])")
CAVEAT_PREFIX = "note: some claims"
HALVES = ("tune", "held_out")
KINDS = ("table", "list")
TABLE_TEMPLATES = ("what_is", "key_colon", "tell_me")
WH_TEMPLATES = ("who", "when", "how_many", "how_much", "how_long")
LIST_TEMPLATES = ("step_n", "nth_step", "after", "last_step")
TEMPLATES = {"table": TABLE_TEMPLATES + WH_TEMPLATES, "list": LIST_TEMPLATES}
ORDINALS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split()
)
STOPWORDS = set(
    """a an the and or but of to in on at by for with from into onto as is are be was were been
    it its this that these those your you we our they their there then than so if when once
    any all each every no not do does did can may must should will would up out over under
    about after before while through within during via per who which what where how""".split()
)
PERSON_WORDS = {"owner", "manager", "contact", "lead", "head", "person", "responsible"}
COUNT_WORDS = {"count", "headcount", "number", "people", "staff", "employees", "size"}
PEOPLE_COUNT = {"head count", "headcount", "staff", "employees", "people"}
AMOUNT_WORDS = {"cost", "price", "budget", "fee", "amount", "cap", "salary", "allowance"}
CURRENCIES = {"eur", "usd", "gbp", "cad", "chf", "pln"}
ABBREVIATIONS = {"ext": "extension", "no": "number", "qty": "quantity", "tel": "telephone"}
DURATION = re.compile(
    r"^\d+(?:[.,]\d+)?\s+(?:business\s+|working\s+|calendar\s+)?"
    r"(?:minutes?|hours?|days?|weeks?|months?)\b",
    re.IGNORECASE,
)
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
YEAR = re.compile(r"^(?:19|20)\d{2}$")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


# ---------------------------------------------------------------- parsing the sources


@dataclass
class Table:
    document: str
    noun: str  # what a row is ("office"), "" when the key names it alone
    header: list[str]
    rows: list[list[str]]


@dataclass
class Steps:
    document: str
    title: str
    items: list[str]


def clean(text: str) -> str:
    """Return text with its whitespace collapsed."""
    return re.sub(r"\s+", " ", text).strip()


def singular(word: str) -> str:
    """Return a plain English plural's singular ("offices" -> "office")."""
    word = word.strip()
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def built_name(source: Path) -> str:
    """Return the name of the file build.py makes of a source (the DOCX/PDF spec's output)."""
    if source.suffix == ".json":
        return json.loads(source.read_text(encoding="utf-8"))["output"]
    return source.name


def parse_csv(path: Path) -> tuple[list[Table], list[Steps]]:
    rows = [row for row in csv.reader(io.StringIO(path.read_text(encoding="utf-8"))) if row]
    return [Table(path.name, singular(clean(rows[0][0]).replace("_", " ")), rows[0], rows[1:])], []


def _inline_text(token) -> str:
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return clean("".join(parts))


def parse_markdown(path: Path) -> tuple[list[Table], list[Steps]]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))
    tables: list[Table] = []
    lists: list[Steps] = []
    heading = ""
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open":
            heading = _inline_text(tokens[i + 1])
        elif token.type == "table_open":
            rows: list[list[str]] = []
            while tokens[i].type != "table_close":
                if tokens[i].type == "tr_open":
                    rows.append([])
                elif tokens[i].type == "inline":
                    rows[-1].append(_inline_text(tokens[i]))
                i += 1
            noun = singular(rows[0][0].lower())
            tables.append(Table(path.name, noun, rows[0], rows[1:]))
        elif token.type == "ordered_list_open":
            level = token.level
            items: list[str] = []
            labelled: list[bool] = []
            while not (tokens[i].type == "ordered_list_close" and tokens[i].level == level):
                if tokens[i].type == "list_item_open" and tokens[i].level == level + 1:
                    inline = next(t for t in tokens[i:] if t.type == "inline")
                    items.append(_inline_text(inline))
                    children = [
                        c for c in inline.children or [] if c.type != "text" or c.content.strip()
                    ]
                    labelled.append(bool(children) and children[0].type == "strong_open")
                i += 1
            if items and not all(labelled):
                lists.append(Steps(path.name, heading, items))
        i += 1
    return tables, lists


def parse_html(path: Path) -> tuple[list[Table], list[Steps]]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    tables: list[Table] = []
    lists: list[Steps] = []
    for table in soup.find_all("table"):
        header = [clean(th.get_text(" ")) for th in table.find_all("th")]
        body = table.find("tbody") or table
        rows = [
            [clean(td.get_text(" ")) for td in tr.find_all("td")]
            for tr in body.find_all("tr")
            if tr.find("td")
        ]
        tables.append(Table(path.name, singular(header[0].lower()), header, rows))
    for ol in soup.find_all("ol"):
        heading = ol.find_previous(["h1", "h2", "h3", "h4", "h5", "h6"])
        entries = ol.find_all("li", recursive=False)
        items = [clean(li.get_text(" ")) for li in entries]
        labelled = [_opens_bold(li) for li in entries]
        if items and not all(labelled):
            lists.append(Steps(path.name, clean(heading.get_text(" ")) if heading else "", items))
    return tables, lists


def _opens_bold(element) -> bool:
    """Return whether an HTML element's first non-blank child is bold."""
    for child in element.children:
        if getattr(child, "name", None) is None and not str(child).strip():
            continue
        return getattr(child, "name", None) in ("strong", "b")
    return False


def parse_docx_spec(path: Path) -> tuple[list[Table], list[Steps]]:
    spec = json.loads(path.read_text(encoding="utf-8"))
    name = spec["output"]
    tables: list[Table] = []
    lists: list[Steps] = []
    heading = spec.get("title", "")
    for block in spec["blocks"]:
        if block["type"] == "heading":
            heading = block["text"]
        elif block["type"] == "table":
            rows = [[clean(cell) for cell in row] for row in block["rows"]]
            tables.append(Table(name, singular(rows[0][0].lower()), rows[0], rows[1:]))
        elif block["type"] == "numbered":
            lists.append(Steps(name, heading, [clean(item) for item in block["items"]]))
    return tables, lists


PDF_ITEM = re.compile(r"^(\d+)\.\s+(.*)$")
PDF_PAIR = re.compile(r"^(?P<key>\w[\w .'-]*?)\s+(?P<value>[A-Z]{3}\s+\d[\d,.]*)$")
PDF_LEAD = re.compile(r"^The (?P<noun>[\w -]+?) are:$")


def parse_pdf_spec(path: Path) -> tuple[list[Table], list[Steps]]:
    """Numbered lists (items may wrap onto indented lines) and "key CUR amount - ..." lines
    introduced by "The <things> are:" (a two-column table: key, amount)."""
    spec = json.loads(path.read_text(encoding="utf-8"))
    name = spec["output"]
    lines = [line for page in spec["pages"] for line in [*page, ""]]
    tables: list[Table] = []
    lists: list[Steps] = []
    section = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() and (i == 0 or not lines[i - 1].strip()) and not PDF_ITEM.match(line):
            section = line.strip()
        lead = PDF_LEAD.match(line.strip())
        if lead:
            pairs: list[list[str]] = []
            i += 1
            while i < len(lines) and lines[i].startswith(" ") and " - " in lines[i]:
                for part in lines[i].strip().split(" - "):
                    match = PDF_PAIR.match(part.strip())
                    if match:
                        pairs.append([match["key"], match["value"]])
                i += 1
            if pairs:
                noun = f"{singular(section.split()[0].lower())} {singular(lead['noun'])}"
                tables.append(Table(name, "", ["", noun], pairs))
            continue
        if PDF_ITEM.match(line):
            title = section
            items: list[str] = []
            while i < len(lines) and (PDF_ITEM.match(lines[i]) or lines[i].startswith("   ")):
                match = PDF_ITEM.match(lines[i])
                if match:
                    items.append(match[2].strip())
                else:
                    items[-1] = f"{items[-1]} {lines[i].strip()}"
                i += 1
            lists.append(Steps(name, title, [clean(item) for item in items]))
            continue
        i += 1
    return tables, lists


def parse_sources() -> tuple[list[Table], list[Steps], list[str]]:
    """Return every table and numbered list of the sources, and the built documents' names."""
    tables: list[Table] = []
    lists: list[Steps] = []
    names: list[str] = []
    for source in sorted(SOURCES.iterdir()):
        if source.suffix == ".csv":
            parsed = parse_csv(source)
        elif source.suffix == ".md":
            parsed = parse_markdown(source)
        elif source.suffix == ".html":
            parsed = parse_html(source)
        elif source.name.startswith("docx_") and source.suffix == ".json":
            parsed = parse_docx_spec(source)
        elif source.name.startswith("pdf_") and source.suffix == ".json":
            parsed = parse_pdf_spec(source)
        elif source.suffix == ".txt":
            parsed = ([], [])
        else:
            continue
        names.append(built_name(source))
        tables += parsed[0]
        lists += parsed[1]
    return tables, lists, sorted(names)


# ---------------------------------------------------------------- generating questions


@dataclass
class Question:
    document: str
    kind: str  # table | list
    template: str
    question: str
    gold: str
    match: str  # how the gold is matched: text, numbers, date, step
    half: str = ""
    about: dict = field(default_factory=dict)


def column_noun(header: str, kind: str) -> str:
    """Return a column header as a noun phrase ("annual_cost_eur" -> "annual cost")."""
    text = re.sub(r"\([^)]*\)", "", header).replace("_", " ")
    words = [ABBREVIATIONS.get(w.lower(), w) for w in text.split()]
    if len(words) > 1 and words[-1].lower() in CURRENCIES:
        words = words[:-1]
    noun = " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in words)
    if kind == "year" and len(words) == 1 and noun.endswith("ed"):
        noun = f"{noun[:-2]}ing year"  # "opened" -> "opening year"
    elif kind == "date" and "date" not in noun:
        noun = f"{noun} date"
    return noun


def column_kind(header: str, values: list[str]) -> str:
    """Return a column's type: year, date, count, amount, number, person, duration or text."""
    words = set(re.findall(r"[a-z]+", header.lower().replace("_", " ")))
    values = [v for v in values if v]
    if values and all(YEAR.match(v) for v in values):
        return "year"
    if values and all(ISO_DATE.match(v) for v in values):
        return "date"
    numeric = values and all(re.fullmatch(r"[€$£]?\s?\d[\d,.]*", v) for v in values)
    currency = any(re.search(r"[€$£]|\b(?:EUR|USD|GBP|CAD)\b", v) for v in values)
    if numeric and words & COUNT_WORDS:
        return "count"
    if words & AMOUNT_WORDS or words & CURRENCIES or currency:
        return "amount"
    if numeric:
        return "number"
    if words & PERSON_WORDS:
        return "person"
    if values and all(DURATION.match(v) for v in values):
        return "duration"
    return "text"


def key_phrase(key: str, noun: str) -> str:
    """Return how a question names a row: "the Porto office", or the key alone."""
    key = clean(re.sub(r"\([^)]*\)", "", key))
    if not noun or noun == "name":
        return key
    return f"the {key} {noun}"


def cell_gold(value: str, kind: str) -> tuple[str, str]:
    """Return the gold to look for and how to match it."""
    if kind in ("year", "count", "amount", "number") and NUMBER.search(value):
        return value, "numbers"
    if kind == "duration":
        return DURATION.match(value).group(0), "text"
    if kind == "date":
        return value, "date"
    return value, "text"


def table_questions(table: Table) -> list[Question]:
    questions: list[Question] = []
    for column in range(1, len(table.header)):
        values = [row[column] for row in table.rows]
        kind = column_kind(table.header[column], values)
        noun = column_noun(table.header[column], kind)
        for row in table.rows:
            if not row[column]:
                continue
            key = key_phrase(row[0], table.noun)
            capital = key[0].upper() + key[1:]
            pronoun = "their" if table.noun == "name" else "its"
            phrasings = {
                "what_is": f"What is the {noun} of {key}?",
                "key_colon": f"{capital}: what is {pronoun} {noun}?",
                "tell_me": f"Tell me the {noun} for {key}.",
            }
            header = table.header[column].strip().lower()
            if kind == "person":
                phrasings["who"] = f"Who is the {noun} of {key}?"
            elif kind == "date":
                phrasings["when"] = f"When is the {noun} of {key}?"
            elif kind == "year":
                if re.fullmatch(r"[a-z]+ed", header):
                    phrasings["when"] = f"When was {key} {header}?"
                else:
                    phrasings["when"] = f"In which year is the {noun} of {key}?"
            elif kind == "count":
                if noun in PEOPLE_COUNT:
                    phrasings["how_many"] = f"How many people work at {key}?"
                else:
                    phrasings["how_many"] = f"How many {noun} does {key} have?"
            elif kind == "amount":
                phrasings["how_much"] = f"How much is the {noun} of {key}?"
            elif kind == "duration":
                phrasings["how_long"] = f"How long is the {noun} of {key}?"
            gold, match = cell_gold(row[column], kind)
            about = {"row": row[0], "column": table.header[column], "type": kind}
            for template, text in phrasings.items():
                questions.append(
                    Question(table.document, "table", template, text, gold, match, about=about)
                )
    return questions


def list_title(title: str) -> str:
    """Return a heading as it reads inside a question ("Rolling back" -> "rolling back")."""
    title = clean(title)
    if len(title) > 1 and title[0].isupper() and title[1].islower():
        return title[0].lower() + title[1:]
    return title


def short_text(item: str, words: int = 6) -> str:
    """Return the opening of an item: up to its first punctuation, at most `words` words."""
    head = re.split(r"[.;:,](?:\s|$)|[(—–]", item, maxsplit=1)[0]
    tokens = head.replace("`", "").split()[:words]
    while len(tokens) > 2 and tokens[-1].lower() in STOPWORDS:
        tokens.pop()
    return " ".join(tokens)


def list_questions(steps: Steps) -> list[Question]:
    questions: list[Question] = []
    title = list_title(steps.title)
    for n, item in enumerate(steps.items, start=1):
        about = {"list": steps.title, "step": n}
        phrasings = {"step_n": f"What is step {n} of {title}?"}
        if n <= len(ORDINALS):
            phrasings["nth_step"] = f"What is the {ORDINALS[n - 1]} step of {title}?"
        if n >= 2:
            previous = short_text(steps.items[n - 2])
            phrasings["after"] = f'In {title}, what comes after "{previous}"?'
        if n == len(steps.items):
            phrasings["last_step"] = f"What is the last step of {title}?"
        for template, text in phrasings.items():
            questions.append(
                Question(steps.document, "list", template, text, item, "step", about=about)
            )
    return questions


def generate() -> tuple[list[Question], list[str]]:
    """Return every generated question, its half set, and the sorted document names."""
    tables, lists, names = parse_sources()
    halves = {name: HALVES[position % 2] for position, name in enumerate(names)}
    questions = [q for table in tables for q in table_questions(table)]
    questions += [q for steps in lists for q in list_questions(steps)]
    for question in questions:
        question.half = halves[question.document]
    return questions, names


# ---------------------------------------------------------------- scoring


def normalise(text: str) -> str:
    """Return text lowercased, with quotes, dashes, spaces, markup and [n] markers unified."""
    text = CITATION.sub(" ", text)
    text = text.translate(
        str.maketrans({"“": '"', "”": '"', "″": '"', "‘": "'", "’": "'", "–": "-", "—": "-"})
    )
    text = text.replace("\u00a0", " ").replace("\u202f", " ").replace("**", "").replace("`", "")
    return clean(text).lower()


def numbers_of(text: str) -> list[str]:
    """Return the numbers of a text with thousands separators removed ("€3,200" -> "3200")."""
    text = re.sub(r"(?<=\d)[,\u00a0\u202f](?=\d{3}(?!\d))", "", text)
    return re.findall(r"\d+(?:\.\d+)?", text)


def words_of(text: str) -> list[str]:
    """Return the content words of a text: lowercased, punctuation stripped, no stopwords."""
    words = re.findall(r"[\w]+(?:[-'][\w]+)*", normalise(text))
    return [word for word in words if word not in STOPWORDS]


def fact_first(question: Question, sentence: str) -> bool:
    """Return whether an answer's first sentence holds the question's gold."""
    if question.match == "step":
        # The item's first sentence: the answer's first sentence cannot hold two.
        from queries.answering.sentences import split_sentences

        opening = (split_sentences(question.gold) or [question.gold])[0]
        wanted = words_of(opening)[:8]
        held = set(words_of(sentence))
        return bool(wanted) and sum(word in held for word in wanted) / len(wanted) >= 0.8
    if question.match == "numbers":
        held = set(numbers_of(normalise(sentence)))
        wanted = numbers_of(normalise(question.gold))
        return bool(wanted) and all(number in held for number in wanted)
    sentence = normalise(sentence)
    if question.match == "date":
        return any(form in sentence for form in date_forms(question.gold))
    gold = normalise(question.gold)
    short = clean(re.sub(r"\([^)]*\)\s*$", "", gold))
    return gold in sentence or (bool(short) and short in sentence)


MONTHS = (
    "january february march april may june july august september october november december"
).split()


def date_forms(iso: str) -> list[str]:
    """Return the ways a date may be written: 2025-11-30, 30 november 2025, november 30, 2025."""
    year, month, day = (int(part) for part in iso.split("-"))
    name = MONTHS[month - 1]
    return [iso, f"{day} {name} {year}", f"{name} {day}, {year}", f"{name} {day} {year}"]


def answer_body(answer: str) -> str:
    """Return the answer without its caveat line."""
    return "\n".join(
        line for line in answer.splitlines() if not line.strip().lower().startswith(CAVEAT_PREFIX)
    ).strip()


def first_sentence(answer: str) -> str:
    """Return the first sentence of an answer's body (a cited break ends one too)."""
    from queries.answering.sentences import split_sentences

    body = CITED_BREAK.sub(r"\1\n\n", answer_body(answer))
    return (split_sentences(body) or [""])[0]


def verdict_of(outcome) -> str:
    """Return what the answer card shows: verified, unverified, or not_found."""
    verdict = outcome.metadata.get("verdict")
    if verdict:
        return verdict
    return "verified" if outcome.metadata.get("grounded") else "unverified"


def no_web(query: str, count: int) -> list[dict]:
    """A web search that finds nothing: the documents alone are measured."""
    return []


# ---------------------------------------------------------------- running and reporting


def build_documents(target: Path) -> list[Path]:
    """Build the data set's files (the DOCX and the PDF from their specs) into target."""
    spec = importlib.util.spec_from_file_location("team_docs_build", DATA / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build(target)


def spread(questions: list[Question], count: int | None) -> list[Question]:
    """Return `count` questions spread evenly over the set ordered by kind, template, document."""
    if not count or count >= len(questions):
        return questions
    order = {(k, t): i for i, (k, t) in enumerate((k, t) for k in KINDS for t in TEMPLATES[k])}
    ordered = sorted(
        enumerate(questions), key=lambda p: (order[(p[1].kind, p[1].template)], p[1].document, p[0])
    )
    step = len(ordered) / count
    return [ordered[int(i * step)][1] for i in range(count)]


def print_generated(questions: list[Question], names: list[str]) -> None:
    """Print how many questions were generated per document, kind and template."""
    counts = Counter((q.document, q.kind, q.template) for q in questions)
    columns = [(k, t) for k in KINDS for t in TEMPLATES[k] if any(c[1:] == (k, t) for c in counts)]
    halves = {name: HALVES[position % 2] for position, name in enumerate(names)}
    print("generated questions per document, kind and template:")
    print(f"{'document':<30}{'half':<9}" + "".join(f"{t:>10}" for _, t in columns) + f"{'all':>7}")
    for name in names:
        row = [counts[(name, k, t)] for k, t in columns]
        print(f"{name:<30}{halves[name]:<9}" + "".join(f"{n:>10}" for n in row) + f"{sum(row):>7}")
    total = [sum(counts[(n, k, t)] for n in names) for k, t in columns]
    print(f"{'all':<39}" + "".join(f"{n:>10}" for n in total) + f"{sum(total):>7}")
    kinds = Counter(q.kind for q in questions)
    print(f"by kind: {dict(kinds)}; by half: {dict(Counter(q.half for q in questions))}")


def share(rows: list[dict], key: str) -> str:
    if not rows:
        return "-"
    hits = sum(bool(row[key]) for row in rows)
    return f"{hits / len(rows):.1%} ({hits}/{len(rows)})"


def report(rows: list[dict], provider: str, model) -> None:
    """Print fact first per half, kind and template, the verdicts and the wrong verified."""
    print(f"provider: {provider}; model: {model or 'default'}; questions: {len(rows)}")

    def line(label: str, selected: list[dict], key: str) -> None:
        groups = [[r for r in selected if r["half"] == h] for h in HALVES] + [selected]
        print(f"{label:<32}" + "".join(f"{share(group, key):<22}" for group in groups))

    print(f"{'fact first':<32}{'tuning':<22}{'held-out':<22}{'all':<22}")
    for kind in KINDS:
        of_kind = [r for r in rows if r["kind"] == kind]
        if not of_kind:
            continue
        line(f"{kind} (all templates)", of_kind, "right")
        for template in TEMPLATES[kind]:
            selected = [r for r in of_kind if r["template"] == template]
            if selected:
                line(f"  {template}", selected, "right")
    line("all", rows, "right")
    print(f"{'verdicts':<32}{'tuning':<22}{'held-out':<22}{'all':<22}")
    for verdict in ("verified", "unverified", "not_found"):
        line(verdict, rows, verdict)
    line("WRONG answers badged verified", rows, "wrong_verified")
    for kind in KINDS:
        line(f"  {kind}", [r for r in rows if r["kind"] == kind], "wrong_verified")
    line("right but not verified", rows, "right_unverified")
    times = sorted(r["seconds"] for r in rows)
    if times:
        p95 = times[int(0.95 * (len(times) - 1))]
        print(f"{'median / p95 s per question':<32}{statistics.median(times):.2f} / {p95:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--provider", default="extractive")
    parser.add_argument("--model", default=None)
    parser.add_argument("--sample", type=int, default=None, help="N questions spread evenly")
    parser.add_argument("--half", choices=(*HALVES, "all"), default="all")
    parser.add_argument("--kind", choices=KINDS, default=None)
    parser.add_argument("--out", default="", help="write each answer as a JSON line here")
    parser.add_argument("--web", action="store_true", help="keep the real web search")
    args = parser.parse_args()
    questions, names = generate()
    print_generated(questions, names)
    if args.half != "all":
        questions = [q for q in questions if q.half == args.half]
    if args.kind:
        questions = [q for q in questions if q.kind == args.kind]
    questions = spread(questions, args.sample)
    print(f"asking {len(questions)} questions", flush=True)
    setup()
    from knowledge.bulk import TextItem, documents_ingest_inline
    from knowledge.models import KnowledgeBase
    from queries.answering.registry import get_strategy
    from queries.pipeline.events import ListSink
    from queries.pipeline.runner import run_pipeline

    user = bench_user()
    name = f"stress-{args.provider}"
    KnowledgeBase.objects.filter(owner=user, name=name).delete()
    kb = KnowledgeBase.objects.create(owner=user, name=name)
    with tempfile.TemporaryDirectory() as folder:
        files = build_documents(Path(folder))
        items = [TextItem(path.name, path.read_bytes()) for path in files]
        started = time.perf_counter()
        summary = documents_ingest_inline(kb=kb, items=items, user=user)
    print(
        f"documents: {len(items)} (ready {summary['ready']}, failed {summary['failed']}) "
        f"in {time.perf_counter() - started:.1f} s"
    )
    provider = get_strategy(args.provider)
    rows: list[dict] = []
    out = open(args.out, "w") if args.out else None  # noqa: SIM115 - closed below
    for number, question in enumerate(questions, start=1):
        started = time.perf_counter()
        outcome = run_pipeline(
            query=question.question,
            strategy=provider,
            kb_ids=[kb.id],
            sink=ListSink(),
            model=args.model,
            **({} if args.web else {"web_search": no_web}),
        )
        seconds = time.perf_counter() - started
        verdict = verdict_of(outcome)
        first = first_sentence(outcome.answer)
        right = fact_first(question, first)
        row = {
            "half": question.half,
            "kind": question.kind,
            "template": question.template,
            "right": right,
            "verified": verdict == "verified",
            "unverified": verdict == "unverified",
            "not_found": verdict == "not_found",
            "wrong_verified": verdict == "verified" and not right,
            "right_unverified": right and verdict != "verified",
            "seconds": seconds,
        }
        rows.append(row)
        if out:
            record = asdict(question)
            record.update(
                verdict=verdict,
                right=right,
                first_sentence=first,
                answer=outcome.answer,
                issues=outcome.metadata.get("issues", []),
                seconds=round(seconds, 2),
            )
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()
        if number % 50 == 0:
            median = statistics.median(r["seconds"] for r in rows)
            print(
                f"  {number} questions: fact first {share(rows, 'right')}, median {median:.2f} s",
                flush=True,
            )
    if out:
        out.close()
    report(rows, args.provider, args.model)


if __name__ == "__main__":
    main()
