"""Build the twelfth team-tables set (Larkspur Software, a small software studio) into a folder.

    .venv/bin/python bench/team_tables/larkspur/build.py OUTDIR

Seven documents of a fictional software studio, written after the eleventh set's rules: a
workbook of projects (start dates, deadlines, budgets in euros, a status) and a sheet of hours
logged per project by month, a CSV of bugs with severities and an empty Resolved date while a
bug is open, a Markdown table of the team with day rates, a PDF text table of invoices with a
Paid column and a Total row, an HTML table of servers with monthly costs in dollars, a slide of
releases, and a Word table of training courses. Every output is byte-for-byte the same on every
run. The questions are in `questions.json`, written before the set was first run: odd numbers
tune, even numbers held out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

STUDIO = "Larkspur Software"
FIXED_TIME = datetime.datetime(2026, 5, 4, 9, 0, 0)
PROJECTS = [
    ("Project", "Client", "Lead", "Start", "Deadline", "Budget (€)", "Status"),
    ("Harbour app", "Port of Vigo", "Elena Ruiz", "2025-09-01", "2026-06-30", 180000, "Active"),
    ("Ledger sync", "Banco Norte", "Marc Dubois", "2025-11-15", "2026-04-30", 95000, "Active"),
    ("Clinic portal", "Salud Ya", "Elena Ruiz", "2025-03-10", "2025-12-19", 140000, "Delivered"),
    ("Fleet tracker", "TransIber", "Kofi Mensah", "2026-01-12", "2026-09-30", 120000, "Active"),
    ("Menu kiosk", "Tapas Co", "Marc Dubois", "2025-06-02", "2025-10-31", 40000, "Delivered"),
    ("Archive search", "Museo Real", "Kofi Mensah", "2026-02-02", "2026-11-27", 75000, "On hold"),
]
HOURS = [
    ("Project", "Jan", "Feb", "Mar", "Apr"),
    ("Harbour app", 420, 460, 510, 480),
    ("Ledger sync", 300, 340, 360, 290),
    ("Fleet tracker", 120, 260, 310, 350),
    ("Archive search", 0, 80, 140, 60),
]
BUGS = """Bug,Project,Severity,Reported,Resolved,Assignee
LS-101,Harbour app,Critical,2026-03-02,2026-03-03,Ana Costa
LS-102,Ledger sync,High,2026-03-05,,Tomás Vidal
LS-103,Harbour app,Low,2026-03-09,2026-03-20,Ana Costa
LS-104,Fleet tracker,Medium,2026-03-14,,Yuki Sato
LS-105,Ledger sync,Critical,2026-03-21,2026-03-22,Tomás Vidal
LS-106,Archive search,High,2026-04-02,2026-04-10,Yuki Sato
LS-107,Harbour app,High,2026-04-08,,Ana Costa
LS-108,Fleet tracker,Low,2026-04-15,,Yuki Sato
"""
TEAM = """# Team

Everyone at the studio, with the day rate we bill clients for their time.

| Name | Role | Team | Joined | Day rate (€) |
|---|---|---|---|---|
| Elena Ruiz | Tech lead | Mobile | 2017-02-06 | 950 |
| Marc Dubois | Tech lead | Backend | 2019-09-02 | 900 |
| Kofi Mensah | Tech lead | Data | 2021-01-11 | 900 |
| Ana Costa | Developer | Mobile | 2022-05-16 | 700 |
| Tomás Vidal | Developer | Backend | 2020-10-05 | 750 |
| Yuki Sato | Developer | Data | 2023-03-01 | 650 |
| Inés Mora | Designer | Mobile | 2024-07-22 | 600 |

Contractors are billed separately.
"""
INVOICES = [
    "Larkspur Software - Invoices, first quarter 2026 (EUR)",
    "",
    "Payment terms: 30 days from the date of issue.",
    "",
    "Invoice     Client           Issued        Amount     Paid",
    "INV-301     Port of Vigo     2026-01-15    36000      Yes",
    "INV-302     Banco Norte      2026-01-31    24000      Yes",
    "INV-303     TransIber        2026-02-14    18000      No",
    "INV-304     Port of Vigo     2026-02-28    36000      Yes",
    "INV-305     Museo Real       2026-03-13    12500      No",
    "INV-306     Banco Norte      2026-03-31    24000      No",
    "Total                                      150500",
]
SERVERS = """<!doctype html>
<html><head><title>Servers</title></head>
<body>
<h1>Servers</h1>
<p>Cloud servers we run for clients and for ourselves, with what each costs a month.</p>
<table>
<thead><tr><th>Server</th><th>Region</th><th>vCPUs</th><th>RAM (GB)</th><th>Monthly cost</th></tr></thead>
<tbody>
<tr><td>web-01</td><td>eu-west</td><td>4</td><td>16</td><td>$140</td></tr>
<tr><td>web-02</td><td>eu-west</td><td>4</td><td>16</td><td>$140</td></tr>
<tr><td>db-01</td><td>eu-central</td><td>8</td><td>64</td><td>$520</td></tr>
<tr><td>ci-01</td><td>us-east</td><td>16</td><td>32</td><td>$380</td></tr>
<tr><td>search-01</td><td>eu-central</td><td>8</td><td>32</td><td>$290</td></tr>
</tbody>
</table>
</body></html>
"""
RELEASES = [
    ("Version", "Released", "New features", "Bug fixes"),
    ("4.0", "2026-01-20", "9", "14"),
    ("4.1", "2026-02-17", "3", "21"),
    ("4.2", "2026-03-24", "5", "8"),
    ("4.3", "2026-04-28", "2", "17"),
]
TRAINING = [
    ("Course", "Provider", "Days", "Cost per person", "Attendees"),
    ("Kubernetes basics", "CloudSkills", "3", "€1,200", "4"),
    ("Accessibility audit", "A11y Lab", "2", "€850", "3"),
    ("Rust for backends", "Ferris Academy", "5", "€2,100", "2"),
    ("Product discovery", "Lean Works", "1", "€400", "6"),
]


def build(target: Path) -> list[Path]:
    from _table_docs import slide_table, word_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "projects.xlsx": workbook(
                {"Projects": PROJECTS, "Hours 2026": HOURS}, creator=STUDIO, **dated
            ),
            "bugs.csv": BUGS.encode(),
            "team.md": TEAM.encode(),
            "invoices.pdf": build_pdf([INVOICES]),
            "servers.html": SERVERS.encode(),
            "releases.pptx": slide_table(
                "Releases 2026", RELEASES, author=STUDIO, last_modified_by=STUDIO, **dated
            ),
            "training.docx": word_table(
                "Training courses 2026",
                "Courses the studio paid for this year, and how many of us went.",
                TRAINING,
                "Ask your tech lead before booking a course.",
                author=STUDIO,
                last_modified_by=STUDIO,
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
