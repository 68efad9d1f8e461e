"""Build the fifth team-tables set (Marlow Academy) into a folder.

    .venv/bin/python bench/team_tables/marlow/build.py OUTDIR

Six documents of a fictional training school, written after the fourth set's rules, with the
untidy cells teams' tables have: a workbook of courses (start and end dates, enrolments, the
teacher of each) with a sheet of teachers, an HTML page of fees in euros with a totals row, a
Word table of school buses with departure times, a Markdown table of rooms with a footnote
mark and an "n/a" cell, a CSV of library loans by month with thousands separators, and a slide
of exam pass rates by term. Every output is byte-for-byte the same on every run. The questions
are in `questions.json`, written before the set was first run: odd numbers tune, even numbers
held out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

COMPANY = "Marlow Academy"
FIXED_TIME = datetime.datetime(2026, 5, 4, 10, 0, 0)
COURSES = [
    ("Course", "Teacher", "Level", "Enrolled", "Starts", "Ends"),
    ("Intro to Python", "Hannah Cole", "Beginner", 24, (2026, 1, 12), (2026, 3, 20)),
    ("Data Analysis", "Omar Farouk", "Intermediate", 18, (2026, 2, 2), (2026, 4, 24)),
    ("Web Design", "Grace Liu", "Beginner", 30, (2026, 2, 16), (2026, 5, 8)),
    ("Machine Learning", "Omar Farouk", "Advanced", 12, (2026, 3, 9), (2026, 6, 26)),
    ("Spreadsheets", "Hannah Cole", "Beginner", 27, (2026, 4, 13), (2026, 5, 29)),
    ("Cloud Basics", "Victor Nunes", "Intermediate", 15, (2026, 4, 20), (2026, 7, 3)),
]
TEACHERS = [
    ("Teacher", "Subject", "Hired", "Office"),
    ("Hannah Cole", "Programming", 2015, "B12"),
    ("Omar Farouk", "Statistics", 2019, "B14"),
    ("Grace Liu", "Design", 2021, "A03"),
    ("Victor Nunes", "Infrastructure", 2023, "A07"),
]
FEES = """<!doctype html>
<html><head><title>Course fees</title></head>
<body>
<h1>Course fees 2026</h1>
<p>Fees are per course and include the exam. Employers may pay in two instalments.</p>
<table>
<thead><tr><th>Course</th><th>Fee</th><th>Exam fee</th><th>Hours</th></tr></thead>
<tbody>
<tr><td>Intro to Python</td><td>€1,200</td><td>€90</td><td>40</td></tr>
<tr><td>Data Analysis</td><td>€1,650</td><td>€120</td><td>48</td></tr>
<tr><td>Web Design</td><td>€1,100</td><td>€90</td><td>36</td></tr>
<tr><td>Machine Learning</td><td>€2,400</td><td>€150</td><td>60</td></tr>
<tr><td>Spreadsheets</td><td>€650</td><td>€60</td><td>20</td></tr>
<tr><td>Cloud Basics</td><td>€1,350</td><td>€120</td><td>32</td></tr>
<tr><td>Total</td><td>€8,350</td><td>€630</td><td>236</td></tr>
</tbody>
</table>
</body></html>
"""
BUSES = [
    ("Bus", "Route", "Departs", "Seats", "Driver"),
    ("Line 1", "Station - Campus", "07:15", "52", "Rui Matos"),
    ("Line 2", "Old Town - Campus", "07:40", "38", "Ella Brandt"),
    ("Line 3", "Harbour - Campus", "08:05", "45", "Sam Okafor"),
    ("Line 4", "Airport - Campus", "06:50", "30", "Nora Wills"),
]
ROOMS = """# Rooms

| Room | Building | Seats | Projector |
|---|---|---|---|
| A03 | Annex | 16 | Yes |
| A07 | Annex | 12 | No |
| B12 | Main | 32[1] | Yes |
| B14 | Main | 24 | Yes |
| C01 | Workshop | n/a | No |

[1] With the folding wall open.
"""
LOANS = """Month,Books lent,E-books lent,New members
January,"1,240",860,34
February,"1,105",910,21
March,"1,380","1,020",40
April,"1,190","1,150",18
May,980,"1,230",12
"""
PASS_RATES = [
    ("Exam", "Spring", "Summer", "Autumn"),
    ("Python (%)", "78", "84", "81"),
    ("Data (%)", "69", "73", "77"),
    ("Web (%)", "88", "85", "90"),
    ("Cloud (%)", "61", "70", "74"),
]


def build(target: Path) -> list[Path]:
    from _table_docs import slide_table, word_table, workbook, write_set

    courses = [[datetime.date(*v) if isinstance(v, tuple) else v for v in row] for row in COURSES]
    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "courses.xlsx": workbook(
                {"Courses": courses, "Teachers": TEACHERS}, creator=COMPANY, **dated
            ),
            "fees.html": FEES.encode(),
            "buses.docx": word_table(
                "School buses",
                "The buses run on school days only. Show your student card when boarding.",
                BUSES,
                "Line 4 does not run in August.",
                author=COMPANY,
                last_modified_by=COMPANY,
                last_printed=FIXED_TIME,
                **dated,
            ),
            "rooms.md": ROOMS.encode(),
            "library-loans.csv": LOANS.encode(),
            "pass-rates.pptx": slide_table(
                "Exam pass rates 2025 by term",
                PASS_RATES,
                author=COMPANY,
                last_modified_by=COMPANY,
                **dated,
            ),
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
