"""Build the sixth team-tables set (Osprey Cloud) into a folder.

    .venv/bin/python bench/team_tables/osprey/build.py OUTDIR

Six documents of a fictional software company, written after the fifth set's rules: a workbook
of cloud costs with one column per month (a wide table) and a sheet of the services' owners, a
CSV of incidents with an empty cell for one still open, a Markdown table of releases with dates
written "12 Jan 2026", a Word table of the on-call rota, a PDF with a text table of service
levels (target and achieved side by side) and a slide of the teams. Every output is
byte-for-byte the same on every run. The questions are in `questions.json`, written before the
set was first run: odd numbers tune, even numbers held out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

COMPANY = "Osprey Cloud"
FIXED_TIME = datetime.datetime(2026, 5, 4, 9, 0, 0)
COSTS = [
    ("Service", "Jan", "Feb", "Mar", "Apr"),
    ("Search", 4200, 4650, 5100, 4900),
    ("Billing", 2300, 2250, 2400, 2600),
    ("Storage", 7800, 8100, 8350, 8900),
    ("Auth", 1100, 1050, 1200, 1150),
    ("Mail", 900, 1300, 950, 1000),
]
OWNERS = [
    ("Service", "Team", "Owner"),
    ("Search", "Discovery", "Priya Nair"),
    ("Billing", "Payments", "Lukas Weber"),
    ("Storage", "Platform", "Ana Costa"),
    ("Auth", "Identity", "Mei Chen"),
    ("Mail", "Platform", "Ana Costa"),
]
INCIDENTS = """Incident,Service,Severity,Opened,Resolved,Minutes down
INC-201,Search,P2,2026-01-14,2026-01-14,45
INC-202,Storage,P1,2026-01-29,2026-01-30,190
INC-203,Billing,P3,2026-02-08,2026-02-09,0
INC-204,Auth,P1,2026-02-21,2026-02-21,75
INC-205,Search,P1,2026-03-05,2026-03-06,120
INC-206,Mail,P2,2026-03-18,2026-03-18,30
INC-207,Storage,P2,2026-04-02,2026-04-03,60
INC-208,Billing,P2,2026-04-19,,15
"""
RELEASES = """# Releases

Every release of the Osprey platform this year.

| Version | Released | Features | Bugs fixed | Lead |
|---|---|---|---|---|
| 3.4.0 | 12 Jan 2026 | 6 | 14 | Priya Nair |
| 3.4.1 | 26 Jan 2026 | 0 | 5 | Lukas Weber |
| 3.5.0 | 23 Feb 2026 | 9 | 11 | Ana Costa |
| 3.6.0 | 30 Mar 2026 | 4 | 22 | Mei Chen |
| 3.6.1 | 13 Apr 2026 | 1 | 7 | Priya Nair |

Patch releases carry fixes only, unless a feature was held back.
"""
ONCALL = [
    ("Week of", "Primary", "Secondary"),
    ("6 Apr 2026", "Omar Haddad", "Mei Chen"),
    ("13 Apr 2026", "Ana Costa", "Lukas Weber"),
    ("20 Apr 2026", "Priya Nair", "Omar Haddad"),
    ("27 Apr 2026", "Lukas Weber", "Ana Costa"),
]
SLOS = [
    "Osprey Cloud - Service levels, April 2026",
    "",
    "Availability per service against its target.",
    "",
    "Service    Target (%)   Achieved (%)   Budget left (min)",
    "Search     99.9         99.85          21",
    "Billing    99.95        99.97          18",
    "Storage    99.9         99.78          0",
    "Auth       99.99        99.99          4",
    "Mail       99.5         99.71          150",
    "",
    "Budget left is the downtime still allowed this quarter.",
]
TEAMS = [
    ("Team", "Engineers", "Open roles", "Location"),
    ("Discovery", "8", "2", "Lisbon"),
    ("Payments", "6", "1", "Berlin"),
    ("Platform", "11", "3", "Lisbon"),
    ("Identity", "4", "0", "Dublin"),
    ("Growth", "5", "2", "Berlin"),
]


def build(target: Path) -> list[Path]:
    from _table_docs import slide_table, word_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "cloud_costs.xlsx": workbook(
                {"Costs (EUR)": COSTS, "Owners": OWNERS}, creator=COMPANY, **dated
            ),
            "incidents.csv": INCIDENTS.encode(),
            "releases.md": RELEASES.encode(),
            "oncall.docx": word_table(
                "On-call rota",
                "Who answers pages each week, April 2026.",
                ONCALL,
                "Swaps are agreed in the team channel.",
                author=COMPANY,
                last_modified_by=COMPANY,
                last_printed=FIXED_TIME,
                **dated,
            ),
            "slos.pdf": build_pdf([SLOS]),
            "teams.pptx": slide_table(
                "Engineering teams", TEAMS, author=COMPANY, last_modified_by=COMPANY, **dated
            ),
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
