"""Build the seventh team-tables set (Juniper & Co, a restaurant group) into a folder.

    .venv/bin/python bench/team_tables/juniper/build.py OUTDIR

Six documents of a fictional restaurant group, written after the sixth set's rules: a workbook
of restaurants and a sheet of covers served per quarter with a totals row, a CSV of hygiene
inspections with one result still pending (its score empty), an HTML menu with prices in euros,
a Word table of suppliers with lead times in days and weeks, a Markdown table of staff with
start dates, a PDF text table of revenue targets and actuals whose names hold a space, and a
slide of delivery partners. Every output is byte-for-byte the same on every run. The questions
are in `questions.json`, written before the set was first run: odd numbers tune, even numbers
held out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

COMPANY = "Juniper & Co"
FIXED_TIME = datetime.datetime(2026, 1, 12, 9, 0, 0)
RESTAURANTS = [
    ("Restaurant", "City", "Seats", "Opened", "Head chef"),
    ("Juniper Quay", "Porto", 80, 2016, "Rui Mendes"),
    ("Juniper Garden", "Lisbon", 120, 2019, "Sofia Lopes"),
    ("Juniper Loft", "Lisbon", 45, 2021, "Hugo Alves"),
    ("Juniper Market", "Braga", 95, 2014, "Clara Dias"),
    ("Juniper Dunes", "Faro", 60, 2023, "Tiago Reis"),
]
COVERS = [
    ("Restaurant", "Q1", "Q2", "Q3", "Q4"),
    ("Juniper Quay", 6200, 7100, 8900, 6400),
    ("Juniper Garden", 9800, 11200, 12500, 10100),
    ("Juniper Loft", 3100, 3300, 3600, 3900),
    ("Juniper Market", 7400, 7900, 8100, 7600),
    ("Juniper Dunes", 2100, 4800, 7300, 2600),
    ("Total", 28600, 34300, 40400, 30600),
]
INSPECTIONS = """Inspection,Restaurant,Inspector,Date,Score,Result
H-301,Juniper Quay,M. Ferreira,2025-02-11,91,Pass
H-302,Juniper Garden,M. Ferreira,2025-03-04,84,Pass
H-303,Juniper Loft,J. Santos,2025-05-20,68,Fail
H-304,Juniper Market,J. Santos,2025-06-17,88,Pass
H-305,Juniper Dunes,M. Ferreira,2025-07-09,79,Pass
H-306,Juniper Loft,J. Santos,2025-08-26,82,Pass
H-307,Juniper Quay,A. Costa,2025-11-03,,Pending
"""
MENU = """<!doctype html>
<html><head><title>Menu</title></head>
<body>
<h1>Menu, winter 2026</h1>
<p>The same menu in every Juniper restaurant. Prices include VAT.</p>
<table>
<thead><tr><th>Dish</th><th>Category</th><th>Price</th><th>Vegetarian</th></tr></thead>
<tbody>
<tr><td>Grilled octopus</td><td>Main</td><td>€24.50</td><td>No</td></tr>
<tr><td>Mushroom risotto</td><td>Main</td><td>€18.00</td><td>Yes</td></tr>
<tr><td>Cod fritters</td><td>Starter</td><td>€8.50</td><td>No</td></tr>
<tr><td>Tomato soup</td><td>Starter</td><td>€6.00</td><td>Yes</td></tr>
<tr><td>Custard tart</td><td>Dessert</td><td>€4.50</td><td>Yes</td></tr>
<tr><td>Chocolate mousse</td><td>Dessert</td><td>€6.50</td><td>Yes</td></tr>
<tr><td>Steak frites</td><td>Main</td><td>€27.00</td><td>No</td></tr>
</tbody>
</table>
</body></html>
"""
SUPPLIERS = [
    ("Supplier", "Supplies", "Lead time", "Minimum order"),
    ("Atlantic Fish", "Seafood", "1 day", "€300"),
    ("Quinta Verde", "Vegetables", "2 days", "€150"),
    ("Douro Wines", "Wine", "2 weeks", "€800"),
    ("Moinho Bakery", "Bread", "1 day", "€60"),
    ("Serra Meats", "Meat", "4 days", "€400"),
]
STAFF = """# Staff

Everyone on a permanent contract, January 2026.

| Name | Role | Restaurant | Started | Hours per week |
|---|---|---|---|---|
| Rui Mendes | Head chef | Juniper Quay | 2016-03-01 | 45 |
| Sofia Lopes | Head chef | Juniper Garden | 2019-06-15 | 45 |
| Hugo Alves | Head chef | Juniper Loft | 2021-09-01 | 40 |
| Clara Dias | Head chef | Juniper Market | 2014-04-10 | 45 |
| Tiago Reis | Head chef | Juniper Dunes | 2023-05-02 | 40 |
| Inês Moura | Sommelier | Juniper Garden | 2020-02-03 | 30 |
| Pedro Neves | Manager | Juniper Quay | 2018-11-12 | 40 |
| Marta Sousa | Manager | Juniper Market | 2022-01-17 | 38 |

Seasonal staff are listed by each restaurant's manager.
"""
REVENUE = [
    "Juniper & Co - Revenue 2025",
    "",
    "Each restaurant's revenue against the target set in January.",
    "",
    "Restaurant       Target (k EUR)   Actual (k EUR)   Rating",
    "Juniper Quay     1450             1520             4.6",
    "Juniper Garden   2100             1980             4.4",
    "Juniper Loft     700              735              4.8",
    "Juniper Market   1600             1590             4.3",
    "Juniper Dunes    650              720              4.5",
    "",
    "Rating is the average guest review, out of 5.",
]
PARTNERS = [
    ("Partner", "Orders (2025)", "Commission (%)", "Avg delivery (min)"),
    ("Bolt Food", "4200", "25", "31"),
    ("Glovo", "6800", "28", "35"),
    ("Uber Eats", "5100", "30", "29"),
    ("Own couriers", "1900", "0", "42"),
]


def build(target: Path) -> list[Path]:
    from _table_docs import slide_table, word_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "restaurants.xlsx": workbook(
                {"Restaurants": RESTAURANTS, "Covers 2025": COVERS}, creator=COMPANY, **dated
            ),
            "inspections.csv": INSPECTIONS.encode(),
            "menu.html": MENU.encode(),
            "suppliers.docx": word_table(
                "Suppliers",
                "Who delivers what, and how long an order takes to arrive.",
                SUPPLIERS,
                "Orders below the minimum are charged delivery.",
                author=COMPANY,
                last_modified_by=COMPANY,
                last_printed=FIXED_TIME,
                **dated,
            ),
            "staff.md": STAFF.encode(),
            "revenue.pdf": build_pdf([REVENUE]),
            "delivery.pptx": slide_table(
                "Delivery partners", PARTNERS, author=COMPANY, last_modified_by=COMPANY, **dated
            ),
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
