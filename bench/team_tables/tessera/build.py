"""Build the fourth team-tables set (Tessera Freight) into a folder.

    .venv/bin/python bench/team_tables/tessera/build.py OUTDIR

Six documents of a fictional freight company, written after the third set's rules: a workbook
of shipments (weights, shipping and delivery dates, the carrier of each) with a sheet of
carriers, a Word table of warehouses, a Markdown table of trucks, a PDF with a text table of
routes, a CSV of fuel by month and a slide of quarterly figures with one row per measure. Every
output is byte-for-byte the same on every run. The questions are in `questions.json`, written
before the set was first run: odd numbers tune, even numbers held out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

COMPANY = "Tessera Freight"
FIXED_TIME = datetime.datetime(2026, 4, 1, 8, 30, 0)
SHIPMENTS = [
    ("Shipment", "Customer", "Destination", "Weight (kg)", "Shipped", "Delivered", "Carrier"),
    ("S-1001", "Kestrel Foods", "Rotterdam", 1250, (2026, 2, 3), (2026, 2, 6), "NordLine"),
    ("S-1002", "Atlas Paper", "Hamburg", 860, (2026, 2, 10), (2026, 2, 12), "Baltic Haul"),
    ("S-1003", "Kestrel Foods", "Antwerp", 2100, (2026, 2, 17), (2026, 2, 23), "NordLine"),
    ("S-1004", "Vireo Pharma", "Rotterdam", 430, (2026, 3, 2), (2026, 3, 4), "Cargo Swift"),
    ("S-1005", "Atlas Paper", "Le Havre", 1720, (2026, 3, 9), (2026, 3, 13), "Baltic Haul"),
    ("S-1006", "Kestrel Foods", "Hamburg", 990, (2026, 3, 16), (2026, 3, 18), "Cargo Swift"),
    ("S-1007", "Vireo Pharma", "Rotterdam", 380, (2026, 3, 25), (2026, 3, 27), "NordLine"),
]
CARRIERS = [
    ("Carrier", "Country", "Contact", "On-time rate (%)"),
    ("NordLine", "Denmark", "Freja Holm", 96),
    ("Baltic Haul", "Poland", "Marek Nowak", 91),
    ("Cargo Swift", "Netherlands", "Sanne de Vries", 88),
]
WAREHOUSES = [
    ("Warehouse", "City", "Pallet spaces", "Manager", "Opened"),
    ("Alpha", "Rotterdam", "4,800", "Daan Bakker", "2009"),
    ("Bravo", "Hamburg", "3,200", "Lea Schulz", "2016"),
    ("Delta", "Antwerp", "6,500", "Tom Peeters", "2012"),
    ("Echo", "Le Havre", "2,100", "Camille Roux", "2021"),
]
FLEET = """# Fleet

Our own trucks. Leased trailers are tracked by the carriers.

| Truck | Model | Year | Mileage (km) | Driver |
|---|---|---|---|---|
| T-01 | Volvo FH | 2018 | 412,000 | Jonas Berg |
| T-02 | Scania R450 | 2020 | 268,500 | Ewa Kowalska |
| T-03 | DAF XF | 2021 | 190,200 | Pieter Jansen |
| T-04 | MAN TGX | 2017 | 498,750 | Ole Madsen |
| T-05 | Volvo FH | 2023 | 64,300 | Nina Vos |

Mileage as read at the last service.
"""
ROUTES = [
    "Tessera Freight - Regular routes",
    "",
    "The routes we drive every week with our own trucks.",
    "",
    "Route                Distance (km)   Stops   Duration (h)",
    "Rotterdam-Hamburg    470             3       6.5",
    "Rotterdam-Antwerp    100             1       1.5",
    "Hamburg-Copenhagen   340             2       5.0",
    "Antwerp-Calais       280             2       3.5",
    "Hamburg-Gdansk       700             5       9.5",
    "",
    "Durations are driving time without breaks.",
]
FUEL = """Month,Litres,Cost (EUR)
January,18400,29440
February,17100,27702
March,19650,31047
April,20300,32886
May,21800,34444
June,19900,32238
"""
KPIS = [
    ("Measure", "Q1", "Q2", "Q3"),
    ("On-time deliveries (%)", "92", "94", "95"),
    ("Damaged parcels", "38", "29", "31"),
    ("Complaints", "57", "44", "36"),
    ("New customers", "12", "17", "9"),
]


def build(target: Path) -> list[Path]:
    from _table_docs import slide_table, word_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    shipments = [
        [datetime.date(*v) if isinstance(v, tuple) else v for v in row] for row in SHIPMENTS
    ]
    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "shipments.xlsx": workbook(
                {"Shipments": shipments, "Carriers": CARRIERS}, creator=COMPANY, **dated
            ),
            "warehouses.docx": word_table(
                "Warehouses",
                "The warehouses we run, with the pallet spaces each can hold.",
                WAREHOUSES,
                "Echo was extended in 2024.",
                author=COMPANY,
                last_modified_by=COMPANY,
                last_printed=FIXED_TIME,
                **dated,
            ),
            "fleet.md": FLEET.encode(),
            "routes.pdf": build_pdf([ROUTES]),
            "fuel.csv": FUEL.encode(),
            "kpis.pptx": slide_table(
                "Quarterly figures 2026", KPIS, author=COMPANY, last_modified_by=COMPANY, **dated
            ),
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
