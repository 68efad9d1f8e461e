"""Build the tenth team-tables set (Alder Vets, a group of veterinary clinics) into a folder.

    .venv/bin/python bench/team_tables/alder/build.py OUTDIR

Seven documents of a fictional group of vets, written after the ninth set's rules: a workbook
of clinics (with a Yes/No column) and a sheet of appointments by month from July to December
under abbreviated month names, a CSV of patients with an empty cell, an "n/a" and weights in
kilograms, an HTML list of medicines with stock, reorder levels and prices in pounds, a Markdown
table of staff, a PDF text table of running costs with a Total row, a slide of procedure prices
by species with one "n/a", and a Word table of a client survey with percentages. Every output is
byte-for-byte the same on every run. The questions are in `questions.json`, written before the
set was first run: odd numbers tune, even numbers held out.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO_ROOT / "bench"))

GROUP = "Alder Vets"
FIXED_TIME = datetime.datetime(2026, 1, 5, 9, 0, 0)
CLINICS = [
    ("Clinic", "Town", "Vets", "Nurses", "Opened", "Lead vet", "Out-of-hours"),
    ("Alder Park", "Kingsbridge", 5, 8, 2003, "Helen Shaw", "Yes"),
    ("Riverside", "Kingsbridge", 3, 4, 2012, "Omar Haddad", "No"),
    ("Hillcrest", "Dunmore", 2, 3, 1998, "Lucy Bell", "No"),
    ("Meadowbank", "Ashby", 4, 6, 2016, "Omar Haddad", "Yes"),
    ("Stonebridge", "Ashby", 1, 2, 2021, "Ravi Menon", "No"),
]
APPOINTMENTS = [
    ("Clinic", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"),
    ("Alder Park", 620, 580, 640, 660, 610, 540),
    ("Riverside", 310, 290, 330, 340, 300, 280),
    ("Hillcrest", 210, 190, 220, 230, 205, 180),
    ("Meadowbank", 450, 470, 480, 500, 460, 430),
    ("Stonebridge", 120, 130, 150, 160, 155, 140),
]
PATIENTS = """Patient,Species,Breed,Owner,Clinic,Registered,Weight (kg),Vaccinations
Biscuit,Dog,Labrador,Amy Clarke,Alder Park,2021-05-14,31.5,Up to date
Mittens,Cat,Tabby,Joe Brown,Riverside,2022-11-02,4.1,Due
Pepper,Rabbit,Lop,Sara Ahmed,Hillcrest,2023-03-20,2.3,Up to date
Rex,Dog,German Shepherd,Tom Evans,Meadowbank,2019-08-09,38.0,Overdue
Luna,Cat,Siamese,Amy Clarke,Alder Park,2024-01-30,3.6,Up to date
Nibbles,Guinea pig,,Lily Chen,Stonebridge,2024-06-11,0.9,n/a
Bella,Dog,Beagle,Sara Ahmed,Riverside,2020-02-17,11.2,Due
Oscar,Cat,Maine Coon,Ben Ford,Meadowbank,2018-10-05,7.6,Up to date
"""
MEDICINES = """<!doctype html>
<html><head><title>Medicines</title></head>
<body>
<h1>Medicines</h1>
<p>What the dispensary holds. Order more when the stock falls below the reorder level.</p>
<table>
<thead><tr><th>Medicine</th><th>Type</th><th>In stock</th><th>Reorder at</th><th>Unit price</th><th>Supplier</th></tr></thead>
<tbody>
<tr><td>Amoxicillin 250mg</td><td>Antibiotic</td><td>140</td><td>100</td><td>£0.45</td><td>VetPharm</td></tr>
<tr><td>Meloxicam 1.5mg/ml</td><td>Pain relief</td><td>18</td><td>20</td><td>£14.90</td><td>Northern Medical</td></tr>
<tr><td>Frontline Spot On</td><td>Parasite control</td><td>65</td><td>40</td><td>£6.20</td><td>VetPharm</td></tr>
<tr><td>Clavamox 50mg</td><td>Antibiotic</td><td>30</td><td>50</td><td>£0.80</td><td>Northern Medical</td></tr>
<tr><td>Metacam 0.5mg/ml</td><td>Pain relief</td><td>25</td><td>15</td><td>£11.40</td><td>VetPharm</td></tr>
<tr><td>Milbemax</td><td>Parasite control</td><td>12</td><td>30</td><td>£3.75</td><td>Ashby Supplies</td></tr>
</tbody>
</table>
</body></html>
"""
STAFF = """# Staff

Everyone on the payroll, with the clinic they mostly work at.

| Name | Role | Clinic | Started | Hours per week |
|---|---|---|---|---|
| Helen Shaw | Vet | Alder Park | 2003-09-01 | 40 |
| Omar Haddad | Vet | Meadowbank | 2010-04-12 | 36 |
| Grace Kim | Nurse | Riverside | 2019-06-03 | 30 |
| Dan Moss | Receptionist | Hillcrest | 2022-01-10 | 20 |
| Lucy Bell | Vet | Hillcrest | 1998-05-18 | 32 |
| Ravi Menon | Vet | Stonebridge | 2021-02-01 | 40 |
| Fay Turner | Nurse | Alder Park | 2015-11-23 | 38 |

Locum vets are not listed.
"""
COSTS = [
    "Alder Vets - Running costs 2025 (GBP)",
    "",
    "Signed off by the practice manager in January 2026.",
    "",
    "Clinic        Rent      Salaries    Equipment",
    "Alder Park    48000     410000      36000",
    "Riverside     30000     220000      18000",
    "Hillcrest     22000     150000      9000",
    "Meadowbank    36000     300000      27000",
    "Stonebridge   18000     95000       12000",
    "Total         154000    1175000     102000",
]
PRICES = [
    ("Procedure", "Dog", "Cat", "Rabbit"),
    ("Consultation", "£42", "£42", "£38"),
    ("Vaccination", "£55", "£48", "£40"),
    ("Neutering", "£260", "£120", "£95"),
    ("Dental clean", "£320", "£280", "n/a"),
    ("Microchip", "£20", "£20", "£20"),
]
SURVEY = [
    ("Area", "Responses", "Satisfied", "Satisfaction"),
    ("Booking", "340", "289", "85%"),
    ("Waiting time", "332", "199", "60%"),
    ("Vet care", "351", "337", "96%"),
    ("Prices", "328", "164", "50%"),
    ("Follow-up", "210", "168", "80%"),
]


def build(target: Path) -> list[Path]:
    from _table_docs import slide_table, word_table, workbook, write_set

    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    dated = {"created": FIXED_TIME, "modified": FIXED_TIME}
    return write_set(
        target,
        {
            "clinics.xlsx": workbook(
                {"Clinics": CLINICS, "Appointments 2025": APPOINTMENTS}, creator=GROUP, **dated
            ),
            "patients.csv": PATIENTS.encode(),
            "medicines.html": MEDICINES.encode(),
            "staff.md": STAFF.encode(),
            "running-costs.pdf": build_pdf([COSTS]),
            "procedure-prices.pptx": slide_table(
                "Procedure prices", PRICES, author=GROUP, last_modified_by=GROUP, **dated
            ),
            "client-survey.docx": word_table(
                "Client survey 2025",
                "How satisfied clients were with each part of their visit.",
                SURVEY,
                "Clients could skip any part of the survey.",
                author=GROUP,
                last_modified_by=GROUP,
                last_printed=FIXED_TIME,
                **dated,
            ),
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)
