"""Build the second team-tables set (Lumen Labs) into a folder.

    .venv/bin/python bench/team_tables/lumen/build.py OUTDIR

Five documents of a fictional software company whose facts live in tables of other kinds than
the first set's: a workbook of support tickets (real dates) with a sheet of the agents who
handle them, an HTML page of plans and prices, a Word document with a table of meeting rooms, a
slide with a wide table of revenue by region and quarter, and a CSV inventory of laptops with an
empty cell. Every output is byte-for-byte the same on every run. The questions are in
`questions.json`, each in the `tune` or the `held` half, written before the set was first run.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

COMPANY = "Lumen Labs"
FIXED_TIME = datetime.datetime(2026, 1, 2, 9, 0, 0)
TICKETS = [
    ("Ticket", "Customer", "Priority", "Opened", "Closed", "Agent"),
    ("T-101", "Fjord Bank", "High", (2026, 1, 5), (2026, 1, 6), "Amir Haddad"),
    ("T-102", "Nordic Rail", "Low", (2026, 1, 9), (2026, 1, 20), "Lena Park"),
    ("T-103", "Fjord Bank", "Medium", (2026, 1, 14), (2026, 1, 16), "Lena Park"),
    ("T-104", "Polar Foods", "Critical", (2026, 2, 2), (2026, 2, 2), "Amir Haddad"),
    ("T-105", "Nordic Rail", "High", (2026, 2, 11), (2026, 2, 13), "Jonas Weber"),
    ("T-106", "Atlas Energy", "Low", (2026, 2, 25), (2026, 3, 10), "Jonas Weber"),
    ("T-107", "Polar Foods", "Medium", (2026, 3, 3), (2026, 3, 5), "Lena Park"),
    ("T-108", "Fjord Bank", "Critical", (2026, 3, 19), (2026, 3, 19), "Amir Haddad"),
]
AGENTS = [
    ("Agent", "Team", "Location", "Started"),
    ("Amir Haddad", "Platform", "Oslo", 2019),
    ("Lena Park", "Billing", "Berlin", 2022),
    ("Jonas Weber", "Platform", "Berlin", 2017),
]
PRICES = """<!doctype html>
<html><head><title>Plans and prices</title></head>
<body>
<h1>Plans and prices</h1>
<p>Every plan is billed monthly and can be cancelled at any time.</p>
<table>
<thead><tr><th>Plan</th><th>Monthly price (USD)</th><th>Users included</th>
<th>Storage (GB)</th><th>Support</th></tr></thead>
<tbody>
<tr><td>Starter</td><td>$29</td><td>5</td><td>50</td><td>Email</td></tr>
<tr><td>Team</td><td>$99</td><td>20</td><td>500</td><td>Email and chat</td></tr>
<tr><td>Business</td><td>$249</td><td>75</td><td>2,000</td><td>24/7 phone</td></tr>
<tr><td>Enterprise</td><td>$799</td><td>300</td><td>10,000</td><td>Dedicated manager</td></tr>
</tbody>
</table>
<p>Prices exclude sales tax.</p>
</body></html>
"""
ROOMS = [
    ("Room", "Building", "Floor", "Seats", "Video"),
    ("Fjellet", "North", "3", "12", "Yes"),
    ("Havet", "North", "1", "6", "No"),
    ("Skogen", "South", "2", "20", "Yes"),
    ("Elva", "South", "4", "4", "No"),
    ("Isbreen", "North", "5", "30", "Yes"),
]
REVENUE = [
    ("Region", "Q1", "Q2", "Q3", "Q4"),
    ("Nordics", "420", "465", "510", "598"),
    ("DACH", "380", "402", "395", "441"),
    ("Benelux", "210", "228", "260", "275"),
    ("UK & Ireland", "305", "298", "330", "362"),
]
LAPTOPS = """Asset,Model,Owner,Purchased,Price (USD),Status
L-01,ThinkPad T14,Amir Haddad,2023-05-10,1450,In use
L-02,MacBook Air 13,Lena Park,2024-02-01,1199,In use
L-03,ThinkPad T14,Jonas Weber,2022-09-15,1380,Repair
L-04,Dell Latitude 7440,,2024-06-20,1620,Spare
L-05,MacBook Pro 14,Mia Strand,2025-01-08,2399,In use
L-06,Dell Latitude 7440,Oskar Lund,2023-11-30,1620,Retired
"""


def build(target: Path) -> list[Path]:
    from _table_docs import slide_table, word_table, workbook, write_set

    tickets = [[datetime.date(*v) if isinstance(v, tuple) else v for v in row] for row in TICKETS]
    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "support.xlsx": workbook(
                {"Tickets": tickets, "Agents": AGENTS}, creator=COMPANY, **dated
            ),
            "prices.html": PRICES.encode(),
            "rooms.docx": word_table(
                "Meeting rooms",
                "Book a room in the calendar; rooms with video have a camera and a screen.",
                ROOMS,
                "Rooms on the fifth floor need a badge after 18:00.",
                author=COMPANY,
                last_modified_by=COMPANY,
                created=FIXED_TIME,
                modified=FIXED_TIME,
                last_printed=FIXED_TIME,
            ),
            "revenue.pptx": slide_table(
                "Revenue by region 2025 (thousand USD)",
                REVENUE,
                author=COMPANY,
                last_modified_by=COMPANY,
                **dated,
            ),
            "laptops.csv": LAPTOPS.encode(),
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
