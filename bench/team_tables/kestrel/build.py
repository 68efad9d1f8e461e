"""Build the fourteenth team-tables set (Kestrel Community Energy, a community solar
co-operative) into a folder.

    .venv/bin/python bench/team_tables/kestrel/build.py OUTDIR

Seven documents of a fictional solar co-operative, written after the thirteenth set's rules: a
workbook of solar arrays (capacity in kWp, panels, commissioning dates, install costs in pounds,
a battery size with n/a where there is none, the site lead) and a sheet of volunteers keyed by
Volunteer rather than Site lead, a CSV of invoices to the host buildings with amounts in pounds
and thousands separators and an empty Paid on date while an invoice is unpaid, a Markdown table
of share members with a yes/no newsletter column and an n/a, an HTML maintenance log with costs,
a yes/no warranty column and a footnote mark, a Word table of roof leases with written-out
dates, a wide slide of kWh generated per site by month for 2025 and a PDF text table of income
and costs by month with a Total row. Every output is byte-for-byte the same on every run. The
questions are in `questions.json`, written before the set was first run: odd numbers tune, even
numbers held out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

COOP = "Kestrel Community Energy"
FIXED_TIME = datetime.datetime(2026, 8, 3, 9, 0, 0)
ARRAYS = [
    ("Site", "Host building", "Capacity (kWp)", "Panels", "Commissioned", "Install cost (£)",
     "Battery (kWh)", "Site lead"),
    ("Mill Lane Hall", "Mill Lane village hall", 30, 75, (2018, 6, 12), 38500, 13.5,
     "Ruth Okafor"),
    ("St Aidan's School", "St Aidan's Primary School", 50, 125, (2019, 4, 2), 61000, "n/a",
     "Gareth Pryce"),
    ("Brookside Surgery", "Brookside Medical Practice", 20, 50, (2020, 9, 18), 26400, "n/a",
     "Ruth Okafor"),
    ("Harrow Farm", "Harrow Farm dairy barn", 120, 300, (2021, 5, 27), 118000, 40,
     "Tomasz Wilk"),
    ("Leisure Centre", "Kestrel Valley Leisure Centre", 80, 200, (2022, 3, 15), 92500, 27,
     "Gareth Pryce"),
    ("Fire Station", "Ashby Fire Station", 15, 38, (2023, 10, 4), 21800, "n/a", "Nia Evans"),
    ("Library", "Ashby Library", 25, 63, (2024, 7, 9), 33800, "n/a", "Nia Evans"),
]  # fmt: skip
VOLUNTEERS = [
    ("Volunteer", "Role", "Phone", "Joined", "Rota day"),
    ("Ruth Okafor", "Chair", "07700 900 412", (2017, 11, 20), "Saturday"),
    ("Gareth Pryce", "Technical lead", "07700 900 435", (2018, 2, 5), "Sunday"),
    ("Tomasz Wilk", "Site lead", "07700 900 447", (2020, 8, 14), "Saturday"),
    ("Nia Evans", "Treasurer", "07700 900 458", (2019, 3, 11), "Wednesday"),
    ("Hamid Qureshi", "Membership secretary", "07700 900 463", (2021, 6, 30), "Wednesday"),
    ("Beth Lomax", "Schools outreach", "07700 900 471", (2023, 1, 16), "Saturday"),
]  # fmt: skip
INVOICES = """Invoice,Issued,Site,kWh,Amount,Paid on
KCE-0412,2026-04-03,Mill Lane Hall,2140,£321,2026-04-17
KCE-0413,2026-04-03,St Aidan's School,5460,£819,2026-04-28
KCE-0414,2026-04-03,Leisure Centre,8200,"£1,230",2026-04-24
KCE-0415,2026-05-05,Harrow Farm,9800,"£1,470",2026-05-19
KCE-0416,2026-05-05,Brookside Surgery,2300,£345,2026-05-29
KCE-0417,2026-05-05,Leisure Centre,9400,"£1,410",2026-06-02
KCE-0418,2026-06-02,St Aidan's School,6120,£918,
KCE-0419,2026-06-02,Harrow Farm,11600,"£1,740",2026-06-16
KCE-0420,2026-06-02,Fire Station,1580,£237,2026-06-25
"""
MEMBERS = """# Share members

Members who hold shares in the co-operative. Every member has one vote, whatever they hold.

| Member no. | Name | Village | Joined | Shares (£) | Newsletter by post |
|---|---|---|---|---|---|
| M-001 | Ruth Okafor | Ashby | 2017-11-20 | 2,000 | No |
| M-014 | Alan Hughes | Ashby | 2017-12-04 | 5,000 | Yes |
| M-027 | Priya Desai | Kestrel Bridge | 2018-03-19 | 1,500 | No |
| M-033 | Frank Doyle | Mill Lane | 2018-06-12 | 250 | Yes |
| M-058 | Sian Roberts | Ashby | 2019-09-30 | 10,000 | No |
| M-071 | Owen Thomas | Harrow | 2021-05-27 | 500 | Yes |
| M-086 | Grace Bell | Kestrel Bridge | 2023-02-14 | 750 | Yes |
| M-102 | Dev Patel | Harrow | 2024-11-08 | 3,000 | No |
| M-115 | Ashby Parish Council | Ashby | 2025-04-01 | 8,000 | n/a |

The parish council gets its papers by email to the clerk.
"""
MAINTENANCE = """<!doctype html>
<html><head><title>Maintenance log</title></head>
<body>
<h1>Maintenance log 2026</h1>
<p>Every call-out and planned job on our arrays this year, with what the contractor charged.</p>
<table>
<thead><tr><th>Date</th><th>Site</th><th>Work done</th><th>Contractor</th><th>Cost</th>
<th>Under warranty</th></tr></thead>
<tbody>
<tr><td>2026-01-14</td><td>Harrow Farm</td><td>Replaced inverter fan</td><td>Volt Solar Services</td><td>£0</td><td>Yes</td></tr>
<tr><td>2026-02-09</td><td>Mill Lane Hall</td><td>Panel clean</td><td>ClearView Cleaning</td><td>£120</td><td>No</td></tr>
<tr><td>2026-02-23</td><td>Leisure Centre</td><td>Battery firmware update</td><td>Volt Solar Services</td><td>£95</td><td>No</td></tr>
<tr><td>2026-03-18</td><td>St Aidan's School</td><td>Bird mesh fitted</td><td>Pennine Roofing</td><td>£640</td><td>No</td></tr>
<tr><td>2026-04-07</td><td>Brookside Surgery</td><td>Isolator replaced*</td><td>Volt Solar Services</td><td>£210</td><td>No</td></tr>
<tr><td>2026-04-29</td><td>Harrow Farm</td><td>Panel clean</td><td>ClearView Cleaning</td><td>£380</td><td>No</td></tr>
<tr><td>2026-05-21</td><td>Fire Station</td><td>Annual inspection</td><td>Volt Solar Services</td><td>£150</td><td>No</td></tr>
<tr><td>2026-06-11</td><td>Leisure Centre</td><td>Cracked panel swapped</td><td>Volt Solar Services</td><td>£0</td><td>Yes</td></tr>
</tbody>
</table>
<p>* After the storm on 5 April; we have claimed it back on the insurance.</p>
</body></html>
"""
LEASES = [
    ("Site", "Roof owner", "Lease signed", "Lease ends", "Rent per year", "Next roof survey"),
    ("Mill Lane Hall", "Mill Lane Village Hall Trust", "2 May 2018", "1 May 2043", "£150",
     "12 September 2026"),
    ("St Aidan's School", "Diocese of Ashby", "15 January 2019", "14 January 2039", "nil",
     "3 October 2026"),
    ("Brookside Surgery", "Brookside Partners LLP", "20 July 2020", "19 July 2040", "£300",
     "18 November 2026"),
    ("Harrow Farm", "J. & M. Harrow", "1 March 2021", "28 February 2046", "£1,200",
     "7 August 2026"),
    ("Leisure Centre", "Ashby District Council", "10 December 2021", "9 December 2041", "£800",
     "22 January 2027"),
    ("Fire Station", "Northshire Fire Authority", "6 June 2023", "5 June 2043", "£250",
     "30 March 2027"),
    ("Library", "Ashby District Council", "14 March 2024", "13 March 2044", "£200",
     "15 May 2027"),
]  # fmt: skip
GENERATED = [
    ("Site", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"),
    ("Mill Lane Hall", "790", "1,340", "2,210", "2,950", "3,620", "3,480", "3,550", "2,910",
     "2,460", "1,850", "1,060", "770"),
    ("St Aidan's School", "1,320", "2,280", "3,650", "4,870", "5,940", "5,710", "5,890",
     "4,990", "4,120", "3,080", "1,760", "1,290"),
    ("Brookside Surgery", "520", "910", "1,460", "2,010", "2,390", "2,300", "2,360", "1,950",
     "1,610", "1,240", "700", "510"),
    ("Harrow Farm", "3,180", "5,460", "8,710", "11,650", "14,320", "13,890", "14,470",
     "11,920", "9,840", "7,430", "4,260", "3,150"),
    ("Leisure Centre", "2,110", "3,580", "5,840", "7,860", "9,470", "9,210", "9,550", "7,990",
     "6,480", "5,020", "2,840", "2,090"),
    ("Fire Station", "400", "690", "1,100", "1,470", "1,780", "1,720", "1,770", "1,500",
     "1,230", "930", "530", "380"),
    ("Library", "660", "1,140", "1,830", "2,440", "2,980", "2,870", "2,950", "2,490", "2,030",
     "1,560", "890", "650"),
]  # fmt: skip
ACCOUNTS = [
    "Kestrel Community Energy - Income and costs, January to June 2026 (GBP)",
    "",
    "Sales to hosts are the invoices issued that month; export is the Smart Export",
    "Guarantee paid by the supplier for power we put into the grid.",
    "",
    "Month        Sales to hosts    Export    Insurance    Maintenance    Grants",
    "January      1180              410       185          0              0",
    "February     1560              690       185          215            1500",
    "March        1940              1120      185          640            0",
    "April        2370              1580      185          590            2500",
    "May          3225              1960      185          150            0",
    "June         2895              2160      185          0              1000",
    "Total        13170             7920      1110         1595           5000",
]  # fmt: skip


def build(target: Path) -> list[Path]:
    from _table_docs import dated_rows, slide_table, word_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "arrays.xlsx": workbook(
                {"Arrays": dated_rows(ARRAYS), "Volunteers": dated_rows(VOLUNTEERS)},
                creator=COOP,
                **dated,
            ),
            "invoices.csv": INVOICES.encode(),
            "members.md": MEMBERS.encode(),
            "maintenance.html": MAINTENANCE.encode(),
            "leases.docx": word_table(
                "Roof leases",
                "The leases for the roofs our panels sit on, as at 3 August 2026.",
                LEASES,
                "Rent is paid each year on the anniversary of signing; nil means the owner "
                "takes free electricity instead.",
                author=COOP,
                last_modified_by=COOP,
                last_printed=FIXED_TIME,
                **dated,
            ),
            "generation.pptx": slide_table(
                "kWh generated per site by month, 2025",
                GENERATED,
                author=COOP,
                last_modified_by=COOP,
                **dated,
            ),
            "income-and-costs.pdf": build_pdf([ACCOUNTS]),
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
