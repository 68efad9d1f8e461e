"""Build the sixteenth team-tables set (Greyfriars Cycle Works, a community bike repair and
hire workshop) into a folder.

    .venv/bin/python bench/team_tables/greyfriars/build.py OUTDIR

Seven documents of a fictional bike workshop, written after the fifteenth set's rules by a
helper session that did not read the answering code: a workbook of the hire fleet (type, the
day it was bought, the price paid, hires and days out in 2025 with blanks for a bike bought in
2026, the day rate, who looks after it) and a sheet of the team keyed by Team member rather
than Looked after by, a CSV of contracts with amounts in pounds and thousands separators and
empty Paid and Paid on cells while nothing has been paid, a Markdown table of parts suppliers
with a yes/no next-day delivery column and an n/a, an HTML list of refurbished bikes for sale
with a footnote mark on a price, a Word table of the summer term's Bikeability courses with
written-out dates and a "none", a wide slide of repair jobs per month over the 2025-26
financial year and a PDF text table of running costs by quarter with a Total row. Every output
is byte-for-byte the same on every run. The questions are in `questions.json`, written before
the set was first run: odd numbers tune, even numbers held out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

WORKSHOP = "Greyfriars Cycle Works"
FIXED_TIME = datetime.datetime(2026, 5, 11, 9, 0, 0)
FLEET = [
    ("Bike", "Type", "Bought", "Price paid (£)", "Hires in 2025", "Days out in 2025",
     "Day rate (£)", "Looked after by"),
    ("Dawes Galaxy", "Touring", (2019, 4, 12), 650, 38, 112, 18, "Priya Nair"),
    ("Ridgeback Tandem", "Tandem", (2020, 5, 3), 1150, 14, 31, 30, "Tom Ashworth"),
    ("Brompton M6L", "Folding", (2021, 3, 22), 1095, 52, 96, 20, "Priya Nair"),
    ("Urban Arrow Family", "Cargo", (2022, 6, 8), 4200, 27, 58, 35, "Kofi Mensah"),
    ("Frog 55", "Children's", (2022, 7, 19), 320, 41, 47, 10, "Ellen Doyle"),
    ("Giant Talon 3", "Mountain", (2023, 2, 14), 580, 33, 61, 20, "Tom Ashworth"),
    ("Raleigh Motus", "Electric", (2023, 9, 5), 1899, 66, 143, 28, "Kofi Mensah"),
    ("Pashley Britannia", "Town", (2024, 4, 30), 795, 33, 70, 15, "Ellen Doyle"),
    ("Tern GSD", "Electric cargo", (2026, 2, 17), 4650, None, None, 40, "Kofi Mensah"),
]  # fmt: skip
TEAM = [
    ("Team member", "Role", "Mobile", "Started", "Hours per week", "Status"),
    ("Priya Nair", "Workshop manager", "07700 900 512", (2015, 3, 2), 37, "Staff"),
    ("Tom Ashworth", "Senior mechanic", "07700 900 527", (2016, 8, 15), 30, "Staff"),
    ("Kofi Mensah", "E-bike technician", "07700 900 534", (2020, 1, 6), 24, "Staff"),
    ("Ellen Doyle", "Mechanic and hire desk", "07700 900 548", (2021, 5, 10), 16, "Staff"),
    ("Rhys Calloway", "Refurbishing", "07700 900 553", (2018, 9, 22), 6, "Volunteer"),
    ("Marta Kowalczyk", "Bookkeeper", "07700 900 561", (2019, 11, 4), 8, "Staff"),
    ("Joe Whitlock", "Mechanic, ride leader", "07700 900 576", (2023, 4, 17), 10,
     "Volunteer"),
    ("Hannah Iqbal", "Bikeability instructor", "07700 900 589", (2024, 9, 2), 12, "Staff"),
]  # fmt: skip
CONTRACTS = """Ref,Client,Service,Signed,Value,Paid,Paid on
GC-201,Northgate Primary School,Bikeability training,2025-08-18,"£3,600","£3,600",2025-10-31
GC-202,Castlebridge Council,Pool bike maintenance,2025-09-02,"£7,250","£7,250",2025-12-19
GC-203,St Mary's Hospital,Staff bike checks,2025-10-14,"£1,480","£1,480",2025-11-28
GC-204,Riverside Housing Trust,Cargo bike loan scheme,2025-11-06,"£12,900","£6,450",2026-02-27
GC-205,Castlebridge University,Abandoned bike collection,2026-01-12,£850,£850,2026-02-06
GC-206,Northgate Primary School,Bikeability training,2026-02-23,"£3,900",,
GC-207,Castlebridge Council,E-bike fleet servicing,2026-03-16,"£9,400",,
GC-208,Greyfriars Surgery,Dr Bike sessions,2026-04-01,£720,£720,2026-04-30
"""
SUPPLIERS = """# Parts suppliers

Who we buy parts and stock from. Orders go in on Monday and Thursday mornings; ask Priya
before ordering anything over £500.

| Supplier | Based in | What we buy | Trade discount | Minimum order (£) | Next-day delivery | Contact |
|---|---|---|---|---|---|---|
| Chainline Distribution | Leeds | Chains, cassettes and cables | 30% | 150 | Yes | Gary Holt |
| Northern Spokes | Sheffield | Wheels and spokes | 25% | 100 | Yes | Sophie Lang |
| Velotrade | Milton Keynes | Tools and workshop kit | 20% | 250 | No | Dan Whitfield |
| Bramley Tyres | Bradford | Tyres and inner tubes | 35% | 80 | Yes | Anita Shah |
| Ohm Cycle Power | Coventry | E-bike batteries and motors | 15% | 300 | No | Lewis Grant |
| Castlebridge Salvage | Castlebridge | Donor frames and wheels | 10% | 0 | n/a | Mick Dunne |

We collect from Castlebridge Salvage ourselves in the van, so delivery does not come into it.
"""
REFURBS = """<!doctype html>
<html><head><meta charset="utf-8"><title>Refurbished bikes</title></head>
<body>
<h1>Refurbished bikes for sale</h1>
<p>Donated bikes we have done up in the workshop, as at 11 May 2026. Every one comes with a
lock, lights and three months' free adjustments.</p>
<table>
<thead><tr><th>Stock no.</th><th>Bike</th><th>Type</th><th>Frame</th><th>Refurbished by</th>
<th>Hours</th><th>Price</th><th>Status</th></tr></thead>
<tbody>
<tr><td>R-301</td><td>Raleigh Pioneer</td><td>Hybrid</td><td>19 in</td><td>Joe Whitlock</td><td>5</td><td>£140</td><td>Sold</td></tr>
<tr><td>R-302</td><td>Specialized Rockhopper</td><td>Mountain</td><td>17 in</td><td>Tom Ashworth</td><td>8</td><td>£220</td><td>For sale</td></tr>
<tr><td>R-303</td><td>Dawes Kingpin</td><td>Folding</td><td>One size</td><td>Rhys Calloway</td><td>4</td><td>£95</td><td>Reserved</td></tr>
<tr><td>R-304</td><td>Carrera Virtuoso</td><td>Road</td><td>54 cm</td><td>Joe Whitlock</td><td>6</td><td>£185</td><td>For sale</td></tr>
<tr><td>R-305</td><td>Islabikes Beinn 20</td><td>Children's</td><td>20 in wheels</td><td>Ellen Doyle</td><td>3</td><td>£120</td><td>Sold</td></tr>
<tr><td>R-306</td><td>Claud Butler Urban</td><td>Hybrid</td><td>21 in</td><td>Rhys Calloway</td><td>5</td><td>£130</td><td>For sale</td></tr>
<tr><td>R-307</td><td>Peugeot Carbolite</td><td>Road</td><td>56 cm</td><td>Tom Ashworth</td><td>9</td><td>£160*</td><td>For sale</td></tr>
<tr><td>R-308</td><td>Ridgeback Speed</td><td>Hybrid</td><td>15 in</td><td>Joe Whitlock</td><td>8</td><td>£110</td><td>Reserved</td></tr>
</tbody>
</table>
<p>* Sold with the rack and panniers it was donated with.</p>
</body></html>
"""
BIKEABILITY = [
    ("School", "Level", "First session", "Last session", "Children", "Instructor",
     "Bikes we lend"),
    ("Northgate Primary School", "Level 2", "20 April 2026", "24 April 2026", "24",
     "Hannah Iqbal", "4"),
    ("St Mary's CE Primary", "Level 1", "5 May 2026", "7 May 2026", "30", "Hannah Iqbal", "6"),
    ("Castlebridge Academy", "Level 3", "18 May 2026", "22 May 2026", "12", "Tom Ashworth",
     "none"),
    ("Abbey Fields Primary", "Level 2", "8 June 2026", "12 June 2026", "28", "Hannah Iqbal",
     "5"),
    ("Greyfriars Junior School", "Level 2", "22 June 2026", "26 June 2026", "26",
     "Joe Whitlock", "3"),
    ("Riverside Primary", "Level 1", "6 July 2026", "8 July 2026", "20", "Hannah Iqbal", "8"),
]  # fmt: skip
REPAIRS = [
    ("Job", "Apr 2025", "May 2025", "Jun 2025", "Jul 2025", "Aug 2025", "Sep 2025",
     "Oct 2025", "Nov 2025", "Dec 2025", "Jan 2026", "Feb 2026", "Mar 2026"),
    ("Punctures", "42", "55", "61", "68", "59", "47", "38", "33", "21", "26", "29", "40"),
    ("Brakes", "18", "22", "25", "27", "24", "20", "23", "26", "15", "19", "17", "21"),
    ("Gears", "15", "19", "22", "24", "21", "17", "14", "12", "8", "10", "11", "16"),
    ("Wheel trues", "6", "8", "9", "11", "10", "7", "5", "4", "2", "3", "4", "6"),
    ("Full services", "24", "31", "29", "22", "18", "35", "27", "19", "12", "9", "14", "38"),
    ("E-bike repairs", "7", "9", "11", "12", "13", "10", "9", "8", "6", "7", "8", "10"),
]  # fmt: skip
COSTS = [
    "Greyfriars Cycle Works - Running costs, 2025-26 financial year (GBP)",
    "",
    "What it cost to keep the workshop open, quarter by quarter. Parts and stock is what",
    "we bought in; the hire bikes themselves are not in here.",
    "",
    "Cost line          Apr-Jun    Jul-Sep    Oct-Dec    Jan-Mar",
    "Rent               3150       3150       3150       3150",
    "Wages              14200      14600      13900      14400",
    "Parts and stock    4820       5310       3960       3480",
    "Insurance          610        610        610        610",
    "Utilities          540        390        720        860",
    "Tools              380        150        920        240",
    "Total              23700      24210      23260      22740",
]  # fmt: skip


def build(target: Path) -> list[Path]:
    from _table_docs import dated_rows, slide_table, word_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "hire-fleet.xlsx": workbook(
                {"Hire fleet": dated_rows(FLEET), "Team": dated_rows(TEAM)},
                creator=WORKSHOP,
                **dated,
            ),
            "contracts.csv": CONTRACTS.encode(),
            "suppliers.md": SUPPLIERS.encode(),
            "refurbished-bikes.html": REFURBS.encode(),
            "bikeability.docx": word_table(
                "Bikeability courses, summer term 2026",
                "The schools we are training this term, as booked on 11 May 2026.",
                BIKEABILITY,
                "Bikes we lend are hire bikes and refurbs taken off sale for the week; none "
                "means every child brings their own.",
                author=WORKSHOP,
                last_modified_by=WORKSHOP,
                last_printed=FIXED_TIME,
                **dated,
            ),
            "repairs.pptx": slide_table(
                "Repair jobs per month, April 2025 to March 2026",
                REPAIRS,
                author=WORKSHOP,
                last_modified_by=WORKSHOP,
                **dated,
            ),
            "running-costs.pdf": build_pdf([COSTS]),
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
