"""Build the third team-tables set (Brightwater Events) into a folder.

    .venv/bin/python bench/team_tables/brightwater/build.py OUTDIR

Five documents of a fictional events company: a workbook of events (dates, attendees, the
venue of each) with a sheet of venues (capacity, manager, rent), a Markdown page of suppliers,
a PDF with a text table of staff, a CSV of ticket sales by month with two amount columns, and a
slide with a table of planned and actual costs. Every output is byte-for-byte the same on every
run. The questions are in `questions.json`, written before the set was first run: odd numbers
tune, even numbers held out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

COMPANY = "Brightwater Events"
EVENTS = [
    ("Event", "City", "Date", "Attendees", "Venue"),
    ("Spring Gala", "Lisbon", (2026, 4, 18), 420, "Harbour Hall"),
    ("Tech Summit", "Porto", (2026, 5, 27), 1150, "Riverside Arena"),
    ("Food Festival", "Lisbon", (2026, 7, 4), 2300, "Praça Park"),
    ("Design Week", "Porto", (2026, 9, 14), 640, "Old Mill"),
    ("Autumn Fair", "Braga", (2026, 10, 10), 980, "Riverside Arena"),
    ("Charity Run", "Lisbon", (2026, 11, 22), 750, "Praça Park"),
]
VENUES = [
    ("Venue", "Capacity", "Manager", "Rent (EUR)"),
    ("Harbour Hall", 450, "Rita Gomes", "6,500"),
    ("Riverside Arena", 1500, "Tiago Alves", "18,000"),
    ("Praça Park", 5000, "Joana Reis", "4,000"),
    ("Old Mill", 700, "Pedro Santos", "8,200"),
]
SUPPLIERS = """# Suppliers

The suppliers we hold a framework contract with. Renewals go through procurement.

| Supplier | Service | Contract ends | Annual fee (EUR) | Rating |
|---|---|---|---|---|
| Nordlys Catering | Catering | 2027-03-31 | 48,000 | 5 |
| SafeGuard Iberia | Security | 2026-12-31 | 36,500 | 4 |
| Lumina AV | Sound and light | 2027-06-30 | 52,000 | 5 |
| CleanCo | Cleaning | 2026-09-30 | 18,000 | 3 |
| PrintHub | Printing | 2027-01-15 | 9,500 | 4 |

Ratings are from the last post-event review (5 is best).
"""
STAFF = [
    "Brightwater Events - Staff list",
    "",
    "Everyone on the permanent payroll, with their contracted hours.",
    "",
    "Name            Role           Joined    Hours per week",
    "Ana Ferreira    Director       2014      40",
    "Bruno Costa     Coordinator    2019      35",
    "Carla Dias      Coordinator    2021      30",
    "Duarte Lopes    Designer       2017      24",
    "Eva Martins     Coordinator    2023      20",
    "",
    "Freelancers are listed in the bookings system, not here.",
]
SALES = """Month,Online,Box office
January,1200,300
February,1450,280
March,1600,410
April,2100,520
May,2650,610
June,1900,480
"""
COSTS = [
    ("Item", "Planned (EUR)", "Actual (EUR)"),
    ("Venues", "40,000", "38,500"),
    ("Catering", "55,000", "61,200"),
    ("Security", "18,000", "21,000"),
    ("Marketing", "25,000", "22,800"),
    ("Transport", "12,000", "12,900"),
]


def build(target: Path) -> list[Path]:
    from _table_docs import slide_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    events = [[datetime.date(*v) if isinstance(v, tuple) else v for v in row] for row in EVENTS]
    return write_set(
        target,
        {
            "events.xlsx": workbook({"Events": events, "Venues": VENUES}, creator=COMPANY),
            "suppliers.md": SUPPLIERS.encode(),
            "staff.pdf": build_pdf([STAFF]),
            "ticket-sales.csv": SALES.encode(),
            "costs.pptx": slide_table("Event costs 2025: plan and actual", COSTS, author=COMPANY),
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
