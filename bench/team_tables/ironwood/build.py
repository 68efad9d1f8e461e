"""Build the seventeenth team-tables set (Ironwood Veterinary Practice, a small two-site vets)
into a folder.

    .venv/bin/python bench/team_tables/ironwood/build.py OUTDIR

Seven documents of a fictional veterinary practice, written after the sixteenth set's rules by
a helper session that did not read the answering code: a workbook of the practice's equipment
(type, the site it is kept at, the day it was bought, what it cost, uses and days out of action
in 2025 with blanks for a machine bought in 2026, the charge per use, the vet in charge) and a
sheet of the staff keyed by Staff member rather than Vet in charge, with desk extensions, days
per week and Full-time, Part-time or Locum, a CSV of pet insurance claims with amounts in pounds
and thousands separators and empty Paid and Paid on cells while an insurer has not paid, a
Markdown table of referral partners with a yes/no out-of-hours column and an n/a, an HTML price
list with a price for each site, a footnote mark on a price and a "Not offered", a Word table of
the summer vaccination clinics with written-out dates and a "TBC", a wide slide of consultations
per month over the 2025-26 financial year with thousands separators in one row and a PDF text
table of running costs by month with a Total row. Every output is byte-for-byte the same on
every run. The questions are in `questions.json`, written before the set was first run: odd
numbers tune, even numbers held out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

PRACTICE = "Ironwood Veterinary Practice"
FIXED_TIME = datetime.datetime(2026, 6, 1, 9, 0, 0)
EQUIPMENT = [
    ("Item", "Type", "Site", "Bought", "Cost (£)", "Uses in 2025",
     "Days out of action in 2025", "Charge per use (£)", "Vet in charge"),
    ("Digital X-ray", "Imaging", "Ironwood Road", (2017, 5, 22), 42000, 486, 4, 85,
     "Gareth Pryce"),
    ("Ultrasound scanner", "Imaging", "Ironwood Road", (2019, 11, 8), 18500, 328, 2, 70,
     "Naomi Okafor"),
    ("Dental unit", "Dental", "Ironwood Road", (2020, 3, 2), 9800, 204, 9, 60, "Fiona Blake"),
    ("Blood analyser", "Laboratory", "Millbrook", (2021, 7, 19), 14200, 1130, 3, 45,
     "Tomasz Wilk"),
    ("Video endoscope", "Imaging", "Ironwood Road", (2022, 1, 24), 23600, 58, 12, 150,
     "Gareth Pryce"),
    ("Laser therapy unit", "Therapy", "Millbrook", (2022, 9, 13), 7400, 265, 0, 35,
     "Naomi Okafor"),
    ("Portable X-ray", "Imaging", "Millbrook", (2023, 4, 3), 16900, 174, 5, 80, "Tomasz Wilk"),
    ("Pet ambulance", "Vehicle", "Ironwood Road", (2024, 6, 17), 31500, 96, 11, 55,
     "Fiona Blake"),
    ("Anaesthetic machine", "Theatre", "Millbrook", (2026, 1, 26), 12750, None, None, 40,
     "Gareth Pryce"),
]  # fmt: skip
STAFF = [
    ("Staff member", "Role", "Extension", "Started", "Days per week", "Status"),
    ("Fiona Blake", "Clinical director", 201, (2009, 9, 1), 5, "Full-time"),
    ("Gareth Pryce", "Senior vet", 204, (2013, 4, 15), 5, "Full-time"),
    ("Naomi Okafor", "Vet", 207, (2019, 8, 5), 4, "Part-time"),
    ("Tomasz Wilk", "Vet", 211, (2022, 2, 14), 3, "Locum"),
    ("Ruth Ellison", "Head nurse", 215, (2011, 6, 20), 5, "Full-time"),
    ("Carys Hughes", "Veterinary nurse", 218, (2020, 10, 12), 4, "Part-time"),
    ("Imran Siddiqui", "Practice manager", 220, (2016, 1, 11), 5, "Full-time"),
    ("Lily Marsh", "Receptionist", 223, (2024, 3, 4), 3, "Part-time"),
    ("Sofia Reyes", "Out-of-hours vet", 226, (2025, 11, 3), 2, "Locum"),
]  # fmt: skip
CLAIMS = """Ref,Pet,Owner,Insurer,Treatment,Submitted,Claimed,Paid,Paid on
IC-1041,Bramble,Jenny Tate,Petplan,Cruciate surgery,2026-01-08,"£3,240","£3,240",2026-02-03
IC-1042,Otis,Dan Rowe,Animal Friends,Skin allergy treatment,2026-01-15,£685,£610,2026-02-11
IC-1043,Pepper,Kirsty Lund,Agria,Fractured leg,2026-01-29,"£2,870","£2,870",2026-03-04
IC-1044,Ziggy,Asif Khan,Petplan,Swallowed foreign body,2026-02-12,"£1,955","£1,855",2026-03-12
IC-1045,Mabel,Pauline Gill,ManyPets,Dental extractions,2026-03-02,£940,,
IC-1046,Hector,Stuart Burns,Agria,MRI scan,2026-03-19,"£4,310","£4,310",2026-04-22
IC-1047,Luna,Rosie Ford,Animal Friends,Diabetes care,2026-04-07,"£1,120",,
IC-1048,Rolo,Tom Evans,Petplan,Lump removal,2026-05-14,£780,,
"""
REFERRALS = """# Referral partners

Where we send cases we cannot treat ourselves. Always ring the contact before the owner sets
off, and send the history the same day.

| Partner | Town | What we refer | Miles from Ironwood Road | Usual wait (days) | Out-of-hours | Contact |
|---|---|---|---|---|---|---|
| Fernside Referrals | Kelby | Orthopaedics | 24 | 7 | Yes | Helen Arkwright |
| Northvale Eye Clinic | Stanmoor | Eyes | 38 | 14 | No | Peter Lowe |
| Westmere Cancer Centre | Westmere | Oncology | 52 | 10 | No | Amara Idowu |
| Brackenhill Emergency Vets | Ashbury | Emergencies and intensive care | 6 | 0 | Yes | Joel Harding |
| Linthorpe Cardiology | Linthorpe | Hearts | 31 | 12 | Yes | Sarah Quayle |
| Orrin Dermatology | Stanmoor | Skin and ears | 38 | 21 | No | Megan Fairley |
| Vetpath Laboratories | Kelby | Histology and lab tests | 24 | 3 | n/a | Graham Tully |

Vetpath only takes samples, which go by courier, so out-of-hours does not come into it; its
wait is the days until we have the results.
"""
PRICES = """<!doctype html>
<html><head><meta charset="utf-8"><title>Prices</title></head>
<body>
<h1>Our prices</h1>
<p>What we charge for our everyday services at each surgery, from 1 June 2026. All prices
include VAT; medicines are charged on top.</p>
<table>
<thead><tr><th>Service</th><th>Ironwood Road</th><th>Millbrook</th><th>Minutes</th>
<th>Done by</th></tr></thead>
<tbody>
<tr><td>Consultation</td><td>£52</td><td>£48</td><td>15</td><td>Vet</td></tr>
<tr><td>Nurse clinic</td><td>£28</td><td>£25</td><td>20</td><td>Nurse</td></tr>
<tr><td>Dog booster vaccination</td><td>£64</td><td>£60</td><td>15</td><td>Vet</td></tr>
<tr><td>Cat booster vaccination</td><td>£58</td><td>£55</td><td>15</td><td>Vet</td></tr>
<tr><td>Microchipping</td><td>£22</td><td>£22</td><td>10</td><td>Nurse</td></tr>
<tr><td>Nail clip</td><td>£14</td><td>£12</td><td>10</td><td>Nurse</td></tr>
<tr><td>Cat spay</td><td>£135</td><td>£125</td><td>60</td><td>Vet</td></tr>
<tr><td>Dog castration (up to 20 kg)</td><td>£295</td><td>£285</td><td>90</td><td>Vet</td></tr>
<tr><td>Dental scale and polish</td><td>£340*</td><td>Not offered</td><td>90</td><td>Vet</td></tr>
</tbody>
</table>
<p>* Extractions and dental X-rays are charged on top. Dental work is only done at Ironwood
Road, where the dental unit is.</p>
</body></html>
"""
CLINICS = [
    ("Clinic date", "Site", "Time", "Vet", "Nurse", "Slots", "Booked"),
    ("6 June 2026", "Ironwood Road", "9am to 12 noon", "Naomi Okafor", "Carys Hughes", "24",
     "21"),
    ("13 June 2026", "Millbrook", "9am to 11am", "Tomasz Wilk", "Ruth Ellison", "16", "16"),
    ("20 June 2026", "Ironwood Road", "9am to 12 noon", "Gareth Pryce", "Carys Hughes", "24",
     "18"),
    ("27 June 2026", "Millbrook", "9am to 11am", "Naomi Okafor", "Carys Hughes", "16", "9"),
    ("4 July 2026", "Ironwood Road", "9am to 12 noon", "Fiona Blake", "Ruth Ellison", "24",
     "12"),
    ("11 July 2026", "Millbrook", "9am to 11am", "Tomasz Wilk", "TBC", "16", "4"),
]  # fmt: skip
CONSULTATIONS = [
    ("Consultations", "Apr 2025", "May 2025", "Jun 2025", "Jul 2025", "Aug 2025", "Sep 2025",
     "Oct 2025", "Nov 2025", "Dec 2025", "Jan 2026", "Feb 2026", "Mar 2026"),
    ("Ironwood Road", "1,248", "1,312", "1,286", "1,354", "1,197", "1,263", "1,331", "1,275",
     "1,142", "1,308", "1,219", "1,347"),
    ("Millbrook", "702", "748", "731", "689", "655", "717", "764", "726", "618", "693", "671",
     "739"),
    ("Home visits", "38", "41", "36", "33", "29", "40", "44", "47", "52", "49", "43", "39"),
    ("Out-of-hours calls", "54", "61", "58", "66", "72", "57", "49", "63", "81", "70", "52",
     "61"),
]  # fmt: skip
COSTS = [
    "Ironwood Veterinary Practice - Running costs by month, 2025-26 financial year (GBP)",
    "",
    "Both surgeries together. Drugs is what we bought from the wholesaler and locum cover",
    "is the locum vets' fees; wages and rent are not in here.",
    "",
    "Month      Drugs      Lab fees   Locum cover   Utilities   Waste",
    "Apr 2025   18420      2140       3200          1480        410",
    "May 2025   19150      2310       2800          1320        410",
    "Jun 2025   18870      2260       4100          1190        430",
    "Jul 2025   19630      2480       5600          1150        430",
    "Aug 2025   17940      1990       6200          1170        430",
    "Sep 2025   18360      2220       3000          1260        440",
    "Oct 2025   19020      2350       2400          1540        440",
    "Nov 2025   18710      2290       2600          1820        440",
    "Dec 2025   17580      1870       4800          2060        450",
    "Jan 2026   18940      2410       3600          2140        450",
    "Feb 2026   18250      2180       2200          1930        450",
    "Mar 2026   19170      2330       2900          1710        460",
    "Total      224040     26830      43400         18770       5240",
]  # fmt: skip


def build(target: Path) -> list[Path]:
    from _table_docs import dated_rows, slide_table, word_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "equipment.xlsx": workbook(
                {"Equipment": dated_rows(EQUIPMENT), "Staff": dated_rows(STAFF)},
                creator=PRACTICE,
                **dated,
            ),
            "insurance-claims.csv": CLAIMS.encode(),
            "referral-partners.md": REFERRALS.encode(),
            "prices.html": PRICES.encode(),
            "vaccination-clinics.docx": word_table(
                "Vaccination clinics, summer 2026",
                "Our Saturday morning vaccination clinics for June and July, as booked on "
                "1 June 2026.",
                CLINICS,
                "A slot is one pet's vaccination. TBC means we have not yet found a nurse for "
                "that morning; ask Imran if you can cover it.",
                author=PRACTICE,
                last_modified_by=PRACTICE,
                last_printed=FIXED_TIME,
                **dated,
            ),
            "consultations.pptx": slide_table(
                "Consultations per month, April 2025 to March 2026",
                CONSULTATIONS,
                author=PRACTICE,
                last_modified_by=PRACTICE,
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
