"""Build the eighth team-tables set (Fenwick Homes, a housing association) into a folder.

    .venv/bin/python bench/team_tables/fenwick/build.py OUTDIR

Seven documents of a fictional housing association, written after the seventh set's rules: a
workbook of buildings and a sheet of rent collected per month with a Total column, a CSV of
leases (rents with thousands separators, some leases rolling with no end date), an HTML list of
repair tickets (costs in pounds, a dash while a repair is unpaid), a Word table of contractors
with response times in hours and days and an Approved Yes/No column, a Markdown table of the
residents' committee, a PDF text table of energy use with letter bands, and a slide of
insurance policies. Every output is byte-for-byte the same on every run. The questions are in
`questions.json`, written before the set was first run: odd numbers tune, even numbers held out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

COMPANY = "Fenwick Homes"
FIXED_TIME = datetime.datetime(2026, 4, 2, 9, 0, 0)
BUILDINGS = [
    ("Building", "District", "Units", "Floors", "Built", "Caretaker"),
    ("Alder House", "Northgate", 24, 6, 1998, "Dev Patel"),
    ("Birch Court", "Riverside", 40, 8, 2009, "Grace Okafor"),
    ("Cedar Mews", "Old Town", 12, 3, 1936, "Dev Patel"),
    ("Damson Place", "Northgate", 30, 5, 2017, "Lena Fischer"),
    ("Elm Row", "Harbour", 18, 4, 1974, "Grace Okafor"),
]
RENT = [
    ("Building", "January", "February", "March", "Total"),
    ("Alder House", 21600, 21600, 22800, 66000),
    ("Birch Court", 38400, 39200, 39200, 116800),
    ("Cedar Mews", 11400, 10450, 11400, 33250),
    ("Damson Place", 30000, 30000, 31000, 91000),
    ("Elm Row", 14400, 15300, 15300, 45000),
]
LEASES = """Lease,Unit,Building,Tenant,Monthly rent (£),Start,End
L-1001,A-3,Alder House,Priya Shah,950,2023-04-01,2026-03-31
L-1002,A-7,Alder House,Tom Walsh,975,2024-09-01,2026-08-31
L-1003,B-12,Birch Court,Amara Nwosu,"1,020",2025-01-15,2027-01-14
L-1004,B-31,Birch Court,Jonas Berg,"1,100",2022-06-01,rolling
L-1005,C-2,Cedar Mews,Elena Rossi,"1,150",2021-11-01,rolling
L-1006,C-5,Cedar Mews,Sam Carter,890,2025-07-01,2026-06-30
L-1007,D-4,Damson Place,Lucía Gómez,"1,250",2024-02-01,2026-01-31
L-1008,D-18,Damson Place,Kwame Mensah,"1,180",2025-10-01,2026-09-30
L-1009,E-1,Elm Row,Hannah Lee,820,2020-05-01,rolling
L-1010,E-9,Elm Row,Oskar Nilsson,860,2025-03-01,2026-02-28
"""
REPAIRS = """<!doctype html>
<html><head><title>Repairs</title></head>
<body>
<h1>Repair tickets, first quarter 2026</h1>
<p>Every repair reported by a tenant or a caretaker. A cost is entered when the invoice is paid.</p>
<table>
<thead><tr><th>Ticket</th><th>Building</th><th>Issue</th><th>Reported</th><th>Priority</th><th>Status</th><th>Cost</th></tr></thead>
<tbody>
<tr><td>R-501</td><td>Birch Court</td><td>Lift out of service</td><td>2026-01-05</td><td>High</td><td>Closed</td><td>£2,400</td></tr>
<tr><td>R-502</td><td>Alder House</td><td>Leaking roof</td><td>2026-01-19</td><td>High</td><td>Awaiting parts</td><td>—</td></tr>
<tr><td>R-503</td><td>Cedar Mews</td><td>Broken door entry</td><td>2026-02-02</td><td>Medium</td><td>Closed</td><td>£380</td></tr>
<tr><td>R-504</td><td>Elm Row</td><td>Damp in stairwell</td><td>2026-02-10</td><td>Medium</td><td>Open</td><td>—</td></tr>
<tr><td>R-505</td><td>Damson Place</td><td>Faulty smoke alarm</td><td>2026-02-14</td><td>High</td><td>Closed</td><td>£95</td></tr>
<tr><td>R-506</td><td>Birch Court</td><td>Blocked drain</td><td>2026-02-27</td><td>Low</td><td>Closed</td><td>£210</td></tr>
<tr><td>R-507</td><td>Alder House</td><td>Graffiti on gate</td><td>2026-03-03</td><td>Low</td><td>Open</td><td>—</td></tr>
<tr><td>R-508</td><td>Elm Row</td><td>Boiler failure</td><td>2026-03-08</td><td>High</td><td>Closed</td><td>£1,150</td></tr>
</tbody>
</table>
</body></html>
"""
CONTRACTORS = [
    ("Contractor", "Trade", "Call-out fee", "Response time", "Approved"),
    ("Northgate Plumbing", "Plumbing", "£85", "4 hours", "Yes"),
    ("Spark Electrical", "Electrical", "£70", "1 day", "Yes"),
    ("Liftwise", "Lifts", "£150", "6 hours", "Yes"),
    ("City Roofing", "Roofing", "£120", "3 days", "No"),
    ("Keyline Locksmiths", "Locks and doors", "£60", "2 hours", "Yes"),
]
COMMITTEE = """# Residents' committee

The committee meets monthly; members are elected by the tenants of their building.

| Name | Building | Role | Joined | Meetings attended (2025) |
|---|---|---|---|---|
| Ruth Adeyemi | Birch Court | Chair | 2019-09-12 | 11 |
| Colin Hart | Alder House | Secretary | 2021-01-20 | 10 |
| Mei Lin | Damson Place | Treasurer | 2022-05-03 | 12 |
| Farid Haddad | Elm Row | Member | 2023-03-14 | 7 |
| Agnes Byrne | Cedar Mews | Member | 2020-10-01 | 9 |
| Jonas Berg | Birch Court | Member | 2024-02-08 | 5 |

Minutes of each meeting are kept by the secretary.
"""
ENERGY = [
    "Fenwick Homes - Energy use 2025",
    "",
    "Metered use of each building's common areas and heating plant.",
    "",
    "Building       Electricity (kWh)   Gas (kWh)   EPC",
    "Alder House    41200               96500       C",
    "Birch Court    78300               120400      B",
    "Cedar Mews     19800               61200       E",
    "Damson Place   52600               70100       B",
    "Elm Row        30400               88900       D",
    "",
    "EPC is the energy performance certificate band, from A (best) to G.",
]
POLICIES = [
    ("Policy", "Insurer", "Cover", "Premium (£ per year)", "Renews"),
    ("P-11", "Harbour Mutual", "Buildings", "18,400", "2026-06-30"),
    ("P-12", "Harbour Mutual", "Public liability", "3,200", "2026-06-30"),
    ("P-13", "Lindqvist Re", "Lifts and plant", "2,750", "2026-09-01"),
    ("P-14", "Crown Assurance", "Terrorism", "1,100", "2027-01-15"),
]


def build(target: Path) -> list[Path]:
    from _table_docs import slide_table, word_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "properties.xlsx": workbook(
                {"Buildings": BUILDINGS, "Rent collected 2026": RENT}, creator=COMPANY, **dated
            ),
            "leases.csv": LEASES.encode(),
            "repairs.html": REPAIRS.encode(),
            "contractors.docx": word_table(
                "Contractors",
                "Who we call for each trade, and how quickly they come out.",
                CONTRACTORS,
                "Only approved contractors may be called without a manager's sign-off.",
                author=COMPANY,
                last_modified_by=COMPANY,
                last_printed=FIXED_TIME,
                **dated,
            ),
            "committee.md": COMMITTEE.encode(),
            "energy.pdf": build_pdf([ENERGY]),
            "insurance.pptx": slide_table(
                "Insurance policies", POLICIES, author=COMPANY, last_modified_by=COMPANY, **dated
            ),
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
