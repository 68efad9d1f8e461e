"""Build the thirteenth team-tables set (Hawthorn Brewing, a small brewery) into a folder.

    .venv/bin/python bench/team_tables/hawthorn/build.py OUTDIR

Seven documents of a fictional brewery, written after the twelfth set's rules: a workbook of
beers (ABV, launch dates, keg prices in pounds, a Year-round column, the head brewer) and a
sheet of the team keyed by Name rather than Head brewer, a CSV of pub orders with values in
pounds and thousands separators and an empty Delivered date while an order is on its way, a
Markdown table of the pubs that stock the beers with one empty cell, an HTML list of malts and
hops with stock and reorder levels, a Word table of tanks with written-out dates and an empty
tank, a wide slide of litres brewed per beer by month and a PDF text table of running costs by
month with a Total row. Every output is byte-for-byte the same on every run. The questions are
in `questions.json`, written before the set was first run: odd numbers tune, even numbers held
out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

BREWERY = "Hawthorn Brewing Co."
FIXED_TIME = datetime.datetime(2026, 7, 6, 9, 0, 0)
BEERS = [
    ("Beer", "Style", "ABV (%)", "Head brewer", "Launched", "Keg price (£)", "Year-round"),
    ("Hedgerow Pale", "Pale ale", 4.2, "Dan Whitlock", (2019, 3, 15), 98, "Yes"),
    ("Old Stile", "Best bitter", 3.9, "Priya Nair", (2018, 5, 1), 92, "Yes"),
    ("Blackthorn Stout", "Stout", 5.6, "Dan Whitlock", (2020, 10, 9), 115, "Yes"),
    ("Mayfly IPA", "IPA", 6.1, "Cara Boyle", (2021, 4, 23), 128, "Yes"),
    ("Harvest Moon", "Amber ale", 4.8, "Priya Nair", (2022, 9, 2), 105, "No"),
    ("Frostbite", "Porter", 7.4, "Cara Boyle", (2023, 11, 17), 132, "No"),
    ("Sunday Session", "Lager", 4.0, "Tom Reyes", (2024, 6, 7), 100, "Yes"),
]
TEAM = [
    ("Name", "Role", "Mobile", "Started", "Shift"),
    ("Priya Nair", "Head of brewing", "07700 900 210", (2017, 8, 14), "Early"),
    ("Dan Whitlock", "Brewer", "07700 900 214", (2019, 1, 7), "Early"),
    ("Cara Boyle", "Brewer", "07700 900 217", (2020, 6, 1), "Late"),
    ("Tom Reyes", "Assistant brewer", "07700 900 223", (2023, 2, 20), "Late"),
    ("Ellie Shaw", "Cellar manager", "07700 900 229", (2021, 9, 13), "Early"),
    ("Marek Nowak", "Packaging lead", "07700 900 231", (2022, 3, 28), "Late"),
]
ORDERS = """Order,Ordered,Customer,Beer,Kegs,Value,Delivered
HB-2101,2026-03-03,The Plough,Hedgerow Pale,6,£588,2026-03-05
HB-2102,2026-03-10,Fox & Hounds,Mayfly IPA,4,£512,2026-03-12
HB-2103,2026-03-17,The Plough,Old Stile,8,£736,2026-03-18
HB-2104,2026-03-24,Railway Tavern,Blackthorn Stout,10,"£1,150",2026-03-26
HB-2105,2026-04-02,The Crown,Hedgerow Pale,12,"£1,176",2026-04-03
HB-2106,2026-04-09,Fox & Hounds,Sunday Session,5,£500,2026-04-10
HB-2107,2026-04-16,Railway Tavern,Mayfly IPA,6,£768,
HB-2108,2026-04-23,Bay Horse,Blackthorn Stout,3,£345,
"""
PUBS = """# Stockists

The pubs that take our cask and keg beer, and how many of their hand pulls are ours.

| Pub | Town | Landlord | Stocking since | Hand pulls |
|---|---|---|---|---|
| The Plough | Malton | Gwen Harper | 2019-06-01 | 4 |
| Fox & Hounds | Pickering | Rob Ainsley | 2020-02-14 | 3 |
| Railway Tavern | York | Sunita Patel | 2018-11-30 | 6 |
| The Crown | Helmsley | Jack Dunmore | 2022-04-08 | 2 |
| The Old Mill | Thirsk | Alan Ferris | 2023-09-19 | |
| Bay Horse | Easingwold | Lucy Kettle | 2021-07-05 | 5 |

A blank means the pub has not confirmed its hand pulls yet.
"""
INGREDIENTS = """<!doctype html>
<html><head><title>Ingredients</title></head>
<body>
<h1>Malt and hops in stock</h1>
<p>Counted in the store on the first Monday of the month. Order more when the stock falls
under the reorder level.</p>
<table>
<thead><tr><th>Ingredient</th><th>Type</th><th>Supplier</th><th>Price per kg</th>
<th>In stock (kg)</th><th>Reorder level (kg)</th></tr></thead>
<tbody>
<tr><td>Maris Otter</td><td>Malt</td><td>Ryedale Maltings</td><td>£1.10</td><td>1,850</td><td>1,000</td></tr>
<tr><td>Crystal 150</td><td>Malt</td><td>Ryedale Maltings</td><td>£1.45</td><td>320</td><td>400</td></tr>
<tr><td>Chocolate malt</td><td>Malt</td><td>Wold Malt Co</td><td>£1.80</td><td>140</td><td>100</td></tr>
<tr><td>Cascade</td><td>Hops</td><td>Kentish Hop Co</td><td>£18.50</td><td>22</td><td>30</td></tr>
<tr><td>Citra</td><td>Hops</td><td>Hopyard Direct</td><td>£32.00</td><td>15</td><td>10</td></tr>
<tr><td>East Kent Goldings</td><td>Hops</td><td>Kentish Hop Co</td><td>£16.75</td><td>48</td><td>25</td></tr>
</tbody>
</table>
</body></html>
"""
TANKS = [
    ("Vessel", "Type", "Capacity (litres)", "Installed", "Last deep clean", "Beer in tank"),
    ("FV1", "Fermenter", "2,400", "12 March 2018", "6 April 2026", "Hedgerow Pale"),
    ("FV2", "Fermenter", "2,400", "12 March 2018", "20 April 2026", "Old Stile"),
    ("FV3", "Fermenter", "4,800", "3 May 2021", "14 April 2026", "Mayfly IPA"),
    ("FV4", "Fermenter", "4,800", "3 May 2021", "28 March 2026", ""),
    ("BT1", "Bright tank", "2,000", "19 January 2019", "9 April 2026", "Blackthorn Stout"),
    ("BT2", "Bright tank", "3,000", "7 October 2023", "22 April 2026", "Hedgerow Pale"),
]
BREWED = [
    ("Beer", "Jan", "Feb", "Mar", "Apr", "May", "Jun"),
    ("Hedgerow Pale", "7,200", "6,900", "9,400", "9,600", "11,800", "12,300"),
    ("Old Stile", "4,700", "4,800", "4,600", "2,400", "4,700", "2,300"),
    ("Blackthorn Stout", "4,800", "2,400", "2,300", "2,400", "0", "0"),
    ("Mayfly IPA", "2,300", "4,700", "4,800", "4,600", "7,100", "9,500"),
    ("Sunday Session", "0", "0", "2,400", "4,700", "4,800", "7,200"),
]
COSTS = [
    "Hawthorn Brewing Co. - Running costs, January to June 2026 (GBP)",
    "",
    "From the monthly management accounts; duty is the beer duty paid to HMRC.",
    "",
    "Month       Malt     Hops     Energy    Water    Beer duty",
    "January     3850     1920     2640      410      9880",
    "February    3420     2150     2510      380      8760",
    "March       4380     2460     2290      450      11240",
    "April       4510     2380     1980      470      11960",
    "May         5120     2890     1750      520      13450",
    "June        5230     3110     1690      560      14020",
    "Total       26510    14910    12860     2790     69310",
]


def build(target: Path) -> list[Path]:
    from _table_docs import dated_rows, slide_table, word_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "beers.xlsx": workbook(
                {"Beers": dated_rows(BEERS), "Team": dated_rows(TEAM)}, creator=BREWERY, **dated
            ),
            "orders.csv": ORDERS.encode(),
            "stockists.md": PUBS.encode(),
            "ingredients.html": INGREDIENTS.encode(),
            "tanks.docx": word_table(
                "Tanks",
                "Our fermenters and bright tanks as at 24 April 2026, and what is in each.",
                TANKS,
                "An empty Beer in tank means the vessel is clean and free for the next brew.",
                author=BREWERY,
                last_modified_by=BREWERY,
                last_printed=FIXED_TIME,
                **dated,
            ),
            "brewed.pptx": slide_table(
                "Litres brewed per month, January to June 2026",
                BREWED,
                author=BREWERY,
                last_modified_by=BREWERY,
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
