"""Build the team-tables evaluation set into a folder.

    .venv/bin/python bench/team_tables/build.py OUTDIR

Five documents of a fictional company (Halvard Marine) whose facts live in tables: a workbook
with two sheets (sites, and budgets keyed by site), a slide deck with a table of projects, a CSV
export of the fleet, a Markdown page with a table of training courses, and a PDF with a table of
incidents. Every output is byte-for-byte the same on every run. The questions are in
`questions.json`, each in the `tune` or the `held` half.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "bench"))

COMPANY = "Halvard Marine"
SITES = [
    ("Site", "Country", "Staff", "Opened", "Lead"),
    ("Bergen", "Norway", 212, 1998, "Ingrid Solberg"),
    ("Aberdeen", "United Kingdom", 148, 2004, "Callum Reid"),
    ("Rotterdam", "Netherlands", 175, 2009, "Femke de Vries"),
    ("Gdansk", "Poland", 96, 2015, "Piotr Zielinski"),
    ("Esbjerg", "Denmark", 64, 2018, "Mads Kjaer"),
    ("Vigo", "Spain", 41, 2021, "Lucia Otero"),
    ("Stavanger", "Norway", 129, 2011, "Eirik Haugen"),
]
BUDGETS = [
    ("Site", "Budget 2026 (EUR)", "Hiring plan"),
    ("Bergen", "4,250,000", 12),
    ("Aberdeen", "2,980,000", 5),
    ("Rotterdam", "3,400,000", 9),
    ("Gdansk", "1,720,000", 14),
    ("Esbjerg", "1,150,000", 3),
    ("Vigo", "760,000", 6),
    ("Stavanger", "2,310,000", 4),
]
PROJECTS = [
    ("Project", "Owner", "Status", "Due date"),
    ("Hull sensors", "Nadia Berg", "Done", "15 March 2026"),
    ("Port scheduling", "Tomas Lind", "In progress", "30 June 2026"),
    ("Crew app", "Nadia Berg", "Not started", "1 October 2026"),
    ("Fuel telemetry", "Oskar Dahl", "In progress", "12 May 2026"),
    ("Dock cameras", "Sofie Aas", "Done", "28 February 2026"),
]
FLEET = """Vessel,Captain,Home port,Departs,Capacity (t)
Nordkapp,Hanne Lie,Bergen,2026-04-02,5400
Skagerrak,Jon Eide,Stavanger,2026-03-18,7200
Doggerbank,Ruth Moss,Aberdeen,2026-05-09,3900
Kattegat,Lars Holm,Esbjerg,2026-03-27,6100
Biscaya,Ana Pardo,Vigo,2026-04-21,2800
Waddenzee,Joost Bakker,Rotterdam,2026-06-03,8300
"""
TRAINING = """# Training catalogue 2026

Courses every crew member can book through the learning portal.

| Course | Trainer | Hours | Seats | Level |
|---|---|---|---|---|
| Sea survival | Erik Vold | 16 | 12 | Basic |
| Crane operation | Maria Sand | 24 | 8 | Advanced |
| First aid at sea | Kari Nes | 8 | 20 | Basic |
| Fire fighting | Erik Vold | 12 | 15 | Basic |
| Bridge resource management | Olav Strand | 32 | 6 | Advanced |
| Dynamic positioning | Maria Sand | 40 | 6 | Expert |

Bookings close two weeks before a course starts.
"""
INCIDENTS = [
    "Halvard Marine - Systems incident log, first quarter 2026",
    "",
    "Every incident that stopped a system for more than five minutes.",
    "",
    "Date          System            Severity    Minutes down",
    "2026-01-07    Booking portal    High        95",
    "2026-01-22    Crew app          Low         12",
    "2026-02-03    Port scheduler    Critical    240",
    "2026-02-17    Booking portal    Medium      40",
    "2026-03-05    Payroll           Low         18",
    "2026-03-26    Port scheduler    High        75",
    "",
    "Root causes are reviewed in the monthly operations meeting.",
]


def build(target: Path) -> list[Path]:
    from _table_docs import slide_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    return write_set(
        target,
        {
            "sites.xlsx": workbook({"Sites": SITES, "Budgets": BUDGETS}, creator=COMPANY),
            "projects.pptx": slide_table("Digital projects 2026", PROJECTS, author=COMPANY),
            "fleet.csv": FLEET.encode(),
            "training.md": TRAINING.encode(),
            "incidents.pdf": build_pdf([INCIDENTS]),
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
