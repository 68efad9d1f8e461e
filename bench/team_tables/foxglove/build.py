"""Build the fifteenth team-tables set (Foxglove Theatre Company, a small touring theatre
company) into a folder.

    .venv/bin/python bench/team_tables/foxglove/build.py OUTDIR

Seven documents of a fictional theatre company, written after the fourteenth set's rules: a
workbook of productions (playwright, season, opening nights, performances, cast size, seats
sold with a blank for a show not yet open, the director) and a sheet of the company keyed by
Company member rather than Director, a CSV of grant applications with amounts in pounds and
thousands separators and empty Awarded and Decision cells while a decision is awaited, a
Markdown table of tour venues with a yes/no lighting rig column and an n/a, an HTML list of
workshops with a footnote mark on a fee, a Word table of the autumn tour with written-out
dates, a wide slide of tickets sold per venue by month over the 2025-26 season and a PDF text
table of production costs with a Total row. Every output is byte-for-byte the same on every
run. The questions are in `questions.json`, written before the set was first run: odd numbers
tune, even numbers held out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

COMPANY = "Foxglove Theatre Company"
FIXED_TIME = datetime.datetime(2026, 9, 7, 9, 0, 0)
PRODUCTIONS = [
    ("Production", "Playwright", "Season", "Opening night", "Performances", "Cast",
     "Seats sold", "Director"),
    ("The Winter's Tale", "William Shakespeare", "Autumn 2024", (2024, 10, 3), 14, 11, 2860,
     "Morwenna Hale"),
    ("Blithe Spirit", "Noel Coward", "Spring 2025", (2025, 3, 13), 12, 7, 2410, "Idris Fenn"),
    ("Salt & Thread", "Devised by the company", "Summer 2025", (2025, 6, 19), 9, 5, 1235,
     "Lucy Amadi"),
    ("An Inspector Calls", "J. B. Priestley", "Autumn 2025", (2025, 9, 25), 16, 8, 3540,
     "Morwenna Hale"),
    ("The Snow Queen", "adapted by Idris Fenn", "Christmas 2025", (2025, 12, 4), 22, 9, 4980,
     "Idris Fenn"),
    ("Educating Rita", "Willy Russell", "Spring 2026", (2026, 2, 26), 10, 2, 1690,
     "Sam Okonjo"),
    ("Much Ado About Nothing", "William Shakespeare", "Summer 2026", (2026, 6, 11), 12, 12,
     2975, "Lucy Amadi"),
    ("The 39 Steps", "Patrick Barlow", "Autumn 2026", (2026, 10, 1), 15, 4, None,
     "Morwenna Hale"),
]  # fmt: skip
MEMBERS = [
    ("Company member", "Role", "Phone", "Joined", "Paid or volunteer"),
    ("Morwenna Hale", "Artistic director", "07700 900 318", (2014, 5, 1), "Paid"),
    ("Idris Fenn", "Associate director", "07700 900 326", (2017, 9, 4), "Paid"),
    ("Lucy Amadi", "Director and workshop leader", "07700 900 331", (2019, 1, 14), "Paid"),
    ("Sam Okonjo", "Director, fight director", "07700 900 345", (2023, 8, 21), "Freelance"),
    ("Bethan Price", "Stage manager", "07700 900 352", (2016, 3, 7), "Paid"),
    ("Callum Reid", "Lighting and sound", "07700 900 367", (2020, 10, 12), "Volunteer"),
    ("Aoife Byrne", "Marketing and box office", "07700 900 374", (2022, 4, 25), "Paid"),
    ("Dilys Morgan", "Wardrobe", "07700 900 389", (2015, 11, 2), "Volunteer"),
]  # fmt: skip
GRANTS = """Ref,Funder,For,Submitted,Requested,Awarded,Decision
FG-031,Marches Arts Fund,Autumn 2025 tour,2025-02-10,"£14,800","£14,800",2025-04-22
FG-032,Wrekin Community Trust,Youth workshops,2025-03-03,"£3,500","£2,500",2025-05-06
FG-033,Kingsford Charitable Trust,Salt & Thread,2025-03-28,"£6,000",£0,2025-06-02
FG-034,Ludlow Town Council,Christmas show,2025-07-14,£950,£950,2025-08-29
FG-035,Marches Arts Fund,Spring 2026 tour,2025-09-15,"£12,500","£11,000",2025-11-20
FG-036,Hartley Lottery Fund,New lighting desk,2026-01-19,"£4,200","£4,200",2026-03-31
FG-037,Wrekin Community Trust,Youth workshops,2026-03-02,"£3,800",,
FG-038,Marches Arts Fund,Autumn 2026 tour,2026-05-11,"£15,500",,
"""
VENUES = """# Tour venues

The places we take our shows to, and what each of them offers. Check the get-in details with
the contact before every visit.

| Venue | Town | Seats | Our share of the box office | Lighting rig | Contact |
|---|---|---|---|---|---|
| Assembly Rooms | Ludlow | 280 | 70% | Yes | Helen Marsh |
| The Courtyard | Hereford | 388 | 65% | Yes | Paul Grainger |
| Quarry Studio | Shrewsbury | 150 | 75% | Yes | Nadia Rahman |
| Bishop's Castle Town Hall | Bishop's Castle | 120 | 80% | No | Geoff Tanner |
| Mayfair Centre | Church Stretton | 200 | 70% | No | Ann Pritchard |
| Wenlock Priory Gardens | Much Wenlock | 350 | 60% | n/a | Martin Cole |

Wenlock Priory Gardens is open air and we play in daylight there, so no rig is needed. Where
there is no rig we bring our own portable kit.
"""
WORKSHOPS = """<!doctype html>
<html><head><meta charset="utf-8"><title>Workshops</title></head>
<body>
<h1>Workshops, autumn term 2026</h1>
<p>Our weekly workshops at the rehearsal rooms, 14 September to 7 December. Bookings as at
4 September.</p>
<table>
<thead><tr><th>Workshop</th><th>Ages</th><th>Day</th><th>Leader</th><th>Places</th>
<th>Booked</th><th>Fee per term</th></tr></thead>
<tbody>
<tr><td>Junior Drama</td><td>7-10</td><td>Saturday</td><td>Lucy Amadi</td><td>20</td><td>18</td><td>£60</td></tr>
<tr><td>Youth Theatre</td><td>11-14</td><td>Tuesday</td><td>Lucy Amadi</td><td>24</td><td>24</td><td>£75</td></tr>
<tr><td>Senior Youth Theatre</td><td>15-18</td><td>Wednesday</td><td>Idris Fenn</td><td>18</td><td>12</td><td>£75</td></tr>
<tr><td>Stage Combat</td><td>14+</td><td>Thursday</td><td>Sam Okonjo</td><td>12</td><td>9</td><td>£90</td></tr>
<tr><td>Backstage Skills</td><td>14+</td><td>Saturday</td><td>Bethan Price</td><td>10</td><td>6</td><td>£45*</td></tr>
<tr><td>Adult Acting</td><td>18+</td><td>Monday</td><td>Morwenna Hale</td><td>16</td><td>15</td><td>£110</td></tr>
</tbody>
</table>
<p>* Free for anyone who crews one of our shows this season.</p>
</body></html>
"""
TOUR = [
    ("Venue", "Get-in", "First night", "Last night", "Performances", "Guarantee", "Digs"),
    ("Assembly Rooms", "30 September 2026", "1 October 2026", "3 October 2026", "4", "£600",
     "Not needed"),
    ("Quarry Studio", "7 October 2026", "8 October 2026", "10 October 2026", "3", "£400",
     "Booked"),
    ("The Courtyard", "14 October 2026", "15 October 2026", "17 October 2026", "4", "£900",
     "Booked"),
    ("Bishop's Castle Town Hall", "21 October 2026", "22 October 2026", "22 October 2026", "1",
     "none", "Not needed"),
    ("Mayfair Centre", "28 October 2026", "29 October 2026", "31 October 2026", "3", "£350",
     "Not booked yet"),
]  # fmt: skip
TICKETS = [
    ("Venue", "Sep 2025", "Oct 2025", "Nov 2025", "Dec 2025", "Jan 2026", "Feb 2026",
     "Mar 2026", "Apr 2026", "May 2026", "Jun 2026", "Jul 2026", "Aug 2026"),
    ("Assembly Rooms", "510", "480", "0", "0", "0", "0", "520", "0", "0", "0", "320", "0"),
    ("The Courtyard", "0", "1,240", "300", "4,160", "820", "0", "0", "0", "0", "0", "0", "0"),
    ("Quarry Studio", "0", "410", "0", "0", "0", "280", "300", "0", "0", "0", "0", "0"),
    ("Bishop's Castle Town Hall", "0", "0", "105", "0", "0", "0", "230", "0", "0", "0", "0",
     "0"),
    ("Mayfair Centre", "0", "330", "165", "0", "0", "0", "360", "0", "0", "0", "0", "0"),
    ("Wenlock Priory Gardens", "0", "0", "0", "0", "0", "0", "0", "0", "0", "1,640", "1,015",
     "0"),
]  # fmt: skip
COSTS = [
    "Foxglove Theatre Company - Production costs, 2025-26 season (GBP)",
    "",
    "What each show of the season cost us to make and run. Fees are the actors', the",
    "creative team's and the stage management's; venue hire is paid out of the box office.",
    "",
    "Production                Set     Costumes    Lighting    Marketing    Fees",
    "An Inspector Calls        2850    1420        640         1180         18400",
    "The Snow Queen            4300    3150        980         1650         24600",
    "Educating Rita            900     380         310         720          6200",
    "Much Ado About Nothing    1750    2680        0           1330         21300",
    "Total                     9800    7630        1930        4880         70500",
]  # fmt: skip


def build(target: Path) -> list[Path]:
    from _table_docs import dated_rows, slide_table, word_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "productions.xlsx": workbook(
                {"Productions": dated_rows(PRODUCTIONS), "Company": dated_rows(MEMBERS)},
                creator=COMPANY,
                **dated,
            ),
            "grants.csv": GRANTS.encode(),
            "venues.md": VENUES.encode(),
            "workshops.html": WORKSHOPS.encode(),
            "autumn-tour.docx": word_table(
                "Autumn tour 2026: The 39 Steps",
                "Where we take The 39 Steps this autumn, as confirmed on 7 September 2026.",
                TOUR,
                "The guarantee is the least the venue pays us whatever the box office; at "
                "Bishop's Castle we take our share of the door only.",
                author=COMPANY,
                last_modified_by=COMPANY,
                last_printed=FIXED_TIME,
                **dated,
            ),
            "tickets.pptx": slide_table(
                "Tickets sold per venue by month, 2025-26 season",
                TICKETS,
                author=COMPANY,
                last_modified_by=COMPANY,
                **dated,
            ),
            "production-costs.pdf": build_pdf([COSTS]),
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
