"""Build the eleventh team-tables set (Saltmarsh Hotels, a small hotel group) into a folder.

    .venv/bin/python bench/team_tables/saltmarsh/build.py OUTDIR

Seven documents of a fictional hotel group, written after the tenth set's rules: a workbook of
hotels (with a Yes/No column) and a sheet of occupancy by quarter in percentages, a CSV of
bookings with check-in and check-out dates and amounts in euros with thousands separators, a
Markdown maintenance log where open jobs have no Fixed date, a PDF text table of revenue
against budget with a Total row, a slide of guest ratings out of ten, a Word table of supplier
contracts (one "Rolling") and an HTML list of staff. Every output is byte-for-byte the same on
every run. The questions are in `questions.json`, written before the set was first run: odd
numbers tune, even numbers held out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

GROUP = "Saltmarsh Hotels"
FIXED_TIME = datetime.datetime(2026, 1, 12, 9, 0, 0)
HOTELS = [
    ("Hotel", "City", "Rooms", "Stars", "General manager", "Spa", "Opened"),
    ("Saltmarsh Quay", "Porto", 120, 4, "Inês Costa", "Yes", 2008),
    ("Saltmarsh Old Town", "Lisbon", 85, 5, "Rui Almeida", "Yes", 2014),
    ("Saltmarsh Riverside", "Porto", 60, 3, "Marta Silva", "No", 2019),
    ("Saltmarsh Dunes", "Faro", 140, 4, "Rui Almeida", "No", 2001),
    ("Saltmarsh Gardens", "Braga", 45, 3, "João Pires", "No", 2022),
]
OCCUPANCY = [
    ("Hotel", "Q1", "Q2", "Q3", "Q4"),
    ("Saltmarsh Quay", "64%", "78%", "91%", "70%"),
    ("Saltmarsh Old Town", "71%", "83%", "88%", "76%"),
    ("Saltmarsh Riverside", "52%", "69%", "85%", "58%"),
    ("Saltmarsh Dunes", "38%", "74%", "96%", "45%"),
    ("Saltmarsh Gardens", "49%", "61%", "72%", "55%"),
]
BOOKINGS = """Booking,Hotel,Guest,Check-in,Check-out,Nights,Channel,Amount,Status
B-1001,Saltmarsh Quay,Anna Berg,2025-03-14,2025-03-17,3,Direct,€540,Confirmed
B-1002,Saltmarsh Dunes,Tom Hale,2025-07-02,2025-07-09,7,Booking.com,"€1,610",Confirmed
B-1003,Saltmarsh Old Town,Mia Wong,2025-05-20,2025-05-22,2,Expedia,€480,Cancelled
B-1004,Saltmarsh Riverside,Leo Marsh,2025-08-11,2025-08-15,4,Direct,€520,Confirmed
B-1005,Saltmarsh Quay,Sara Lind,2025-09-01,2025-09-06,5,Booking.com,€950,No-show
B-1006,Saltmarsh Gardens,Paul Reid,2025-10-10,2025-10-12,2,Direct,€210,Confirmed
B-1007,Saltmarsh Dunes,Anna Berg,2025-08-20,2025-08-30,10,Direct,"€2,300",Confirmed
"""
MAINTENANCE = """# Maintenance log 2025

Every repair job across the group. A job with no Fixed date is still open.

| Job | Hotel | Area | Reported | Fixed | Cost (€) |
|---|---|---|---|---|---|
| M-01 | Saltmarsh Quay | Lift | 2025-02-03 | 2025-02-05 | 1,200 |
| M-02 | Saltmarsh Dunes | Pool pump | 2025-06-18 | 2025-06-25 | 3,400 |
| M-03 | Saltmarsh Old Town | Boiler | 2025-11-02 | | 2,100 |
| M-04 | Saltmarsh Riverside | Roof | 2025-04-09 | 2025-04-30 | 5,800 |
| M-05 | Saltmarsh Quay | Air conditioning | 2025-07-21 | | 900 |
| M-06 | Saltmarsh Gardens | Wi-Fi | 2025-09-15 | 2025-09-16 | 350 |

Costs include parts and labour.
"""
REVENUE = [
    "Saltmarsh Hotels - Revenue 2025 (EUR thousands)",
    "",
    "Budget set in December 2024; actual figures from the year-end accounts.",
    "",
    "Hotel                  Budget    Actual",
    "Saltmarsh Quay         4200      4450",
    "Saltmarsh Old Town     3900      3720",
    "Saltmarsh Riverside    1800      1910",
    "Saltmarsh Dunes        5100      4880",
    "Saltmarsh Gardens      1200      1260",
    "Total                  16200     16220",
]
RATINGS = [
    ("Hotel", "Cleanliness", "Service", "Value", "Overall"),
    ("Saltmarsh Quay", "9.1", "8.8", "7.9", "8.6"),
    ("Saltmarsh Old Town", "9.4", "9.2", "7.5", "8.9"),
    ("Saltmarsh Riverside", "8.2", "8.5", "8.8", "8.4"),
    ("Saltmarsh Dunes", "8.7", "8.1", "8.0", "8.3"),
    ("Saltmarsh Gardens", "8.9", "9.0", "9.1", "9.0"),
]
SUPPLIERS = [
    ("Supplier", "Service", "Contract ends", "Annual fee"),
    ("CleanCo", "Laundry", "2026-03-31", "€48,000"),
    ("FreshFarm", "Breakfast produce", "2025-12-31", "€36,500"),
    ("Lumio", "Wi-Fi", "2027-06-30", "€12,000"),
    ("AquaCare", "Pool maintenance", "2026-09-30", "€18,200"),
    ("SafeGuard", "Security", "Rolling", "€27,000"),
]
STAFF = """<!doctype html>
<html><head><title>Staff</title></head>
<body>
<h1>Staff</h1>
<p>Everyone employed directly by the group, by hotel. Agency staff are not listed.</p>
<table>
<thead><tr><th>Name</th><th>Hotel</th><th>Department</th><th>Contract</th><th>Hours per week</th></tr></thead>
<tbody>
<tr><td>Carla Dias</td><td>Saltmarsh Quay</td><td>Front desk</td><td>Full-time</td><td>40</td></tr>
<tr><td>Nuno Reis</td><td>Saltmarsh Dunes</td><td>Housekeeping</td><td>Part-time</td><td>20</td></tr>
<tr><td>Beatriz Lopes</td><td>Saltmarsh Old Town</td><td>Kitchen</td><td>Full-time</td><td>40</td></tr>
<tr><td>Hugo Martins</td><td>Saltmarsh Quay</td><td>Housekeeping</td><td>Full-time</td><td>38</td></tr>
<tr><td>Sofia Ramos</td><td>Saltmarsh Riverside</td><td>Front desk</td><td>Part-time</td><td>24</td></tr>
<tr><td>Tiago Neves</td><td>Saltmarsh Gardens</td><td>Maintenance</td><td>Full-time</td><td>40</td></tr>
</tbody>
</table>
</body></html>
"""


def build(target: Path) -> list[Path]:
    from _table_docs import slide_table, word_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "hotels.xlsx": workbook(
                {"Hotels": HOTELS, "Occupancy 2025": OCCUPANCY}, creator=GROUP, **dated
            ),
            "bookings.csv": BOOKINGS.encode(),
            "maintenance.md": MAINTENANCE.encode(),
            "revenue.pdf": build_pdf([REVENUE]),
            "guest-ratings.pptx": slide_table(
                "Guest ratings 2025", RATINGS, author=GROUP, last_modified_by=GROUP, **dated
            ),
            "supplier-contracts.docx": word_table(
                "Supplier contracts",
                "Contracts the group holds with its suppliers, with the fee paid each year.",
                SUPPLIERS,
                "Rolling contracts continue until either side gives three months' notice.",
                author=GROUP,
                last_modified_by=GROUP,
                last_printed=FIXED_TIME,
                **dated,
            ),
            "staff.html": STAFF.encode(),
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
