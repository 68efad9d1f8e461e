"""Build the team-tables evaluation set into a folder.

    .venv/bin/python bench/team_tables/build.py OUTDIR

Five documents of a fictional company (Halvard Marine) whose facts live in tables: a workbook
with two sheets (sites, and budgets keyed by site), a slide deck with a table of projects, a CSV
export of the fleet, a Markdown page with a table of training courses, and a PDF with a table of
incidents. Every output is byte-for-byte the same on every run. The questions are in
`questions.json`, each in the `tune` or the `held` half.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "bench"))

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


def workbook() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Sites"
    for row in SITES:
        sheet.append(row)
    budgets = book.create_sheet("Budgets")
    for row in BUDGETS:
        budgets.append(row)
    book.properties.creator = "Halvard Marine"
    raw = io.BytesIO()
    book.save(raw)
    return raw.getvalue()


def deck() -> bytes:
    from pptx import Presentation
    from pptx.util import Inches

    presentation = Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[5])
    slide.shapes.title.text = "Digital projects 2026"
    shape = slide.shapes.add_table(
        len(PROJECTS), len(PROJECTS[0]), Inches(0.5), Inches(1.5), Inches(9), Inches(3)
    )
    for r, row in enumerate(PROJECTS):
        for c, value in enumerate(row):
            shape.table.cell(r, c).text = str(value)
    presentation.core_properties.author = "Halvard Marine"
    raw = io.BytesIO()
    presentation.save(raw)
    return raw.getvalue()


def build(target: Path) -> list[Path]:
    from team_docs.build import _fixed_zip_times

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    target.mkdir(parents=True, exist_ok=True)
    files = {
        "sites.xlsx": _fixed_zip_times(workbook()),
        "projects.pptx": _fixed_zip_times(deck()),
        "fleet.csv": FLEET.encode(),
        "training.md": TRAINING.encode(),
        "incidents.pdf": build_pdf([INCIDENTS]),
    }
    written = []
    for name, data in files.items():
        path = target / name
        path.write_bytes(data)
        written.append(path)
    return sorted(written)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
