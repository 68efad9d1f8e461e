"""Build the ninth team-tables set (Rowan Library Trust, a network of public libraries) into a
folder.

    .venv/bin/python bench/team_tables/rowan/build.py OUTDIR

Seven documents of a fictional library trust, written after the eighth set's rules: a workbook
of branches (with a Yes/No column) and a sheet of loans by month under abbreviated month names,
a CSV of events with dates written "12 Feb 2025", prices that say "Free" and attendance empty
for events not held, an HTML inventory of computers, a Markdown table of volunteers, a PDF text
table of budgets with a Total row, a slide of opening hours where some days say "Closed", and a
Word table of a children's reading challenge with percentages. Every output is byte-for-byte
the same on every run. The questions are in `questions.json`, written before the set was first
run: odd numbers tune, even numbers held out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

TRUST = "Rowan Library Trust"
FIXED_TIME = datetime.datetime(2025, 7, 1, 9, 0, 0)
BRANCHES = [
    ("Branch", "Town", "Opened", "Staff", "Manager", "Step-free access"),
    ("Central", "Rowan", 1962, 14, "Aisha Karim", "Yes"),
    ("Northfield", "Rowan", 1988, 6, "Tom Price", "Yes"),
    ("Millbrook", "Millbrook", 1975, 4, "Jane Doyle", "No"),
    ("Eastgate", "Rowan", 2011, 8, "Sam Osei", "Yes"),
    ("Harwood", "Harwood", 1954, 3, "Jane Doyle", "No"),
]
LOANS = [
    ("Branch", "Jan", "Feb", "Mar", "Apr", "May", "Jun"),
    ("Central", 4200, 3900, 4400, 4100, 4600, 3800),
    ("Northfield", 1500, 1450, 1600, 1550, 1700, 1400),
    ("Millbrook", 800, 760, 820, 790, 850, 700),
    ("Eastgate", 2100, 2250, 2300, 2200, 2400, 2150),
    ("Harwood", 400, 380, 450, 420, 460, 390),
]
EVENTS = """Title,Branch,Date,Attendees,Price,Status
Author talk,Central,12 Feb 2025,45,Free,Held
Family history,Northfield,20 Feb 2025,18,£3,Held
Code club,Eastgate,8 Mar 2025,60,Free,Held
Poetry night,Central,15 Mar 2025,,£5,Cancelled
Story time,Millbrook,2 Apr 2025,12,Free,Held
Knit and natter,Harwood,19 Apr 2025,9,£2,Held
Summer reading launch,Eastgate,10 May 2025,,Free,Planned
Quiz night,Central,24 May 2025,,£5,Planned
"""
COMPUTERS = """<!doctype html>
<html><head><title>Public computers</title></head>
<body>
<h1>Public computers</h1>
<p>Every computer the public can book, by branch. Faulty machines are out of use until repaired.</p>
<table>
<thead><tr><th>PC</th><th>Branch</th><th>Model</th><th>Purchased</th><th>Faulty</th></tr></thead>
<tbody>
<tr><td>PC-101</td><td>Central</td><td>ThinkCentre M70</td><td>2019</td><td>No</td></tr>
<tr><td>PC-102</td><td>Central</td><td>ThinkCentre M70</td><td>2019</td><td>Yes</td></tr>
<tr><td>PC-103</td><td>Northfield</td><td>OptiPlex 3000</td><td>2021</td><td>No</td></tr>
<tr><td>PC-104</td><td>Millbrook</td><td>OptiPlex 3000</td><td>2021</td><td>No</td></tr>
<tr><td>PC-105</td><td>Eastgate</td><td>ThinkCentre M90</td><td>2023</td><td>No</td></tr>
<tr><td>PC-106</td><td>Harwood</td><td>OptiPlex 3000</td><td>2017</td><td>Yes</td></tr>
<tr><td>PC-107</td><td>Eastgate</td><td>ThinkCentre M90</td><td>2023</td><td>No</td></tr>
</tbody>
</table>
</body></html>
"""
VOLUNTEERS = """# Volunteers

Our regular volunteers and the hours they give.

| Name | Branch | Role | Hours per month | Since |
|---|---|---|---|---|
| Olu Adebayo | Central | Reading buddy | 12 | 2021-03-01 |
| Priya Nair | Eastgate | Code club mentor | 8 | 2023-09-15 |
| George Hall | Harwood | Shelver | 20 | 2018-05-10 |
| Maria Lopez | Central | Shelver | 6 | 2024-01-20 |
| Ken Ito | Northfield | Reading buddy | 10 | 2020-11-02 |

New volunteers start with a two-week trial.
"""
BUDGET = [
    "Rowan Library Trust - Budget 2026 (GBP)",
    "",
    "Approved by the trustees in March 2025.",
    "",
    "Branch        Books     Staff      Building",
    "Central       42000     310000     58000",
    "Northfield    15000     120000     21000",
    "Millbrook     9000      80000      17000",
    "Eastgate      21000     165000     26000",
    "Harwood       6000      55000      19000",
    "Total         93000     730000     141000",
]
HOURS = [
    ("Branch", "Weekdays", "Saturday", "Sunday"),
    ("Central", "9:00–19:00", "9:00–17:00", "11:00–15:00"),
    ("Northfield", "9:30–17:30", "10:00–13:00", "Closed"),
    ("Millbrook", "10:00–16:00", "Closed", "Closed"),
    ("Eastgate", "9:00–18:00", "10:00–16:00", "Closed"),
    ("Harwood", "13:00–17:00", "10:00–12:00", "Closed"),
]
CHALLENGE = [
    ("Age group", "Children", "Finished", "Completion rate"),
    ("Under 5", "120", "84", "70%"),
    ("5-7", "210", "168", "80%"),
    ("8-11", "260", "182", "70%"),
    ("12-14", "90", "45", "50%"),
]


def build(target: Path) -> list[Path]:
    from _table_docs import slide_table, word_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "branches.xlsx": workbook(
                {"Branches": BRANCHES, "Loans 2025": LOANS}, creator=TRUST, **dated
            ),
            "events.csv": EVENTS.encode(),
            "computers.html": COMPUTERS.encode(),
            "volunteers.md": VOLUNTEERS.encode(),
            "budget.pdf": build_pdf([BUDGET]),
            "opening-hours.pptx": slide_table(
                "Opening hours", HOURS, author=TRUST, last_modified_by=TRUST, **dated
            ),
            "reading-challenge.docx": word_table(
                "Summer reading challenge 2025",
                "Children who signed up, and how many read six books by September.",
                CHALLENGE,
                "Certificates were handed out at each branch.",
                author=TRUST,
                last_modified_by=TRUST,
                last_printed=FIXED_TIME,
                **dated,
            ),
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
