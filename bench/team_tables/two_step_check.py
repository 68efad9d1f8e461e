"""Check the two-step probe (two_step.json) against the team-tables data.

    python3 bench/team_tables/two_step_check.py

Every set's build.py is imported by path (nothing is built or written); each answerable
question's answer is recomputed from that module's lists and strings and compared with the
answers in two_step.json. Each unanswerable question gets a check of why the documents cannot
answer it (the row does not exist, the column is missing, the cell is blank). The file's shape
is checked too: 64 questions, ids, halves, kinds and sets.
"""

from __future__ import annotations

import csv
import datetime
import importlib.util
import io
import json
import re
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETS = ["halvard", "lumen", "brightwater", "tessera", "marlow", "osprey", "juniper", "fenwick",
        "rowan", "alder", "saltmarsh", "larkspur", "hawthorn", "kestrel", "foxglove",
        "greyfriars", "ironwood"]  # fmt: skip
KINDS = {"lookup-join": 12, "extreme-lookup": 12, "filter-join": 8, "aggregate-join": 10,
         "role-lookup": 8, "compare-join": 6, "unanswerable": 8}  # fmt: skip


def load(name: str):
    path = HERE / "build.py" if name == "halvard" else HERE / name / "build.py"
    spec = importlib.util.spec_from_file_location(f"team_tables_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- reading the tables in the form build.py holds them ------------------------------------


def table(rows) -> list[dict]:
    """A list of tuples with a header row -> list of dicts."""
    head = list(rows[0])
    return [dict(zip(head, row)) for row in rows[1:]]


def csv_table(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def md_table(text: str) -> list[dict]:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("|")]
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    head, body = cells[0], [c for c in cells[1:] if not set("".join(c)) <= set("-: ")]
    return [dict(zip(head, row)) for row in body]


def html_table(text: str) -> list[dict]:
    rows = re.findall(r"<tr>(.*?)</tr>", text, re.S)
    cells = [[re.sub(r"<.*?>", "", c).strip() for c in re.findall(r"<t[hd]>(.*?)</t[hd]>", r, re.S)]
             for r in rows]  # fmt: skip
    return [dict(zip(cells[0], row)) for row in cells[1:]]


def pdf_table(lines: list[str], first_header: str) -> list[dict]:
    """A text table in a PDF's lines: the header line starts with first_header, the body runs
    to the next blank line or the end; columns are split on two or more spaces."""
    start = next(i for i, ln in enumerate(lines) if ln.startswith(first_header))
    head = re.split(r"\s{2,}", lines[start].strip())
    out = []
    for ln in lines[start + 1 :]:
        if not ln.strip():
            break
        out.append(dict(zip(head, re.split(r"\s{2,}", ln.strip()))))
    return out


def num(value):
    """A cell as a number: currency signs, thousands separators, % and footnote marks go."""
    if isinstance(value, (int, float)):
        return value
    s = re.sub(r"\[\d+\]|\*", "", str(value)).strip()
    s = s.replace(",", "").replace("£", "").replace("€", "").replace("$", "").replace("%", "")
    return float(s) if "." in s else int(s)


MONTHS = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"])}  # fmt: skip


def date(value) -> datetime.date:
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, tuple):
        return datetime.date(*value)
    s = str(value).strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
        return datetime.date.fromisoformat(s)
    day, month, year = s.split()
    month = next(n for m, n in MONTHS.items() if m.startswith(month.lower()))
    return datetime.date(int(year), month, int(day))


def fmt(value) -> str:
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def not_total(rows: list[dict]) -> list[dict]:
    return [r for r in rows if next(iter(r.values())) != "Total"]


# --- the answers --------------------------------------------------------------------------

D = {name: load(name) for name in SETS}


def registry():
    """Return a dict of question ids to functions, and the decorator that fills it."""
    found: dict = {}

    def register(qid):
        def deco(fn):
            found[qid] = fn
            return fn

        return deco

    return found, register


ANSWERS, answer = registry()
UNANSWERABLE, unanswerable = registry()


def one(rows):
    assert len(rows) == 1, rows
    return rows[0]


# halvard
H = D["halvard"]
H_SITES, H_BUDGETS, H_FLEET = table(H.SITES), table(H.BUDGETS), csv_table(H.FLEET)


@answer("ts01")
def _():
    port = one([v for v in H_FLEET if v["Vessel"] == "Waddenzee"])["Home port"]
    return [one([s for s in H_SITES if s["Site"] == port])["Lead"]]


@answer("ts13")
def _():
    last = max(H_FLEET, key=lambda v: date(v["Departs"]))
    return [
        fmt(num(one([b for b in H_BUDGETS if b["Site"] == last["Home port"]])["Budget 2026 (EUR)"]))
    ]


@answer("ts25")
def _():
    norway = {s["Site"] for s in H_SITES if s["Country"] == "Norway"}
    return [v["Vessel"] for v in H_FLEET if v["Home port"] in norway]


@unanswerable("ts57")
def _():
    site = one([s for s in H_SITES if s["Lead"] == "Piotr Zielinski"])["Site"]
    return not [v for v in H_FLEET if v["Home port"] == site]


# lumen
L = D["lumen"]
L_TICKETS, L_AGENTS, L_LAPTOPS = table(L.TICKETS), table(L.AGENTS), csv_table(L.LAPTOPS)


@answer("ts02")
def _():
    agent = one([t for t in L_TICKETS if t["Ticket"] == "T-104"])["Agent"]
    return [one([p for p in L_LAPTOPS if p["Owner"] == agent])["Model"]]


@answer("ts15")
def _():
    first = min(L_AGENTS, key=lambda a: a["Started"])
    assert sum(a["Started"] == first["Started"] for a in L_AGENTS) == 1
    return [one([p for p in L_LAPTOPS if p["Owner"] == first["Agent"]])["Status"]]


@answer("ts27")
def _():
    billing = {a["Agent"] for a in L_AGENTS if a["Team"] == "Billing"}
    return [t["Ticket"] for t in L_TICKETS if t["Agent"] in billing]


@answer("ts33")
def _():
    berlin = {a["Agent"] for a in L_AGENTS if a["Location"] == "Berlin"}
    return [fmt(sum(num(p["Price (USD)"]) for p in L_LAPTOPS if p["Owner"] in berlin))]


# brightwater
B = D["brightwater"]
B_EVENTS, B_VENUES = table(B.EVENTS), table(B.VENUES)


@answer("ts14")
def _():
    last = max(B_EVENTS, key=lambda e: date(e["Date"]))
    return [one([v for v in B_VENUES if v["Venue"] == last["Venue"]])["Manager"]]


@answer("ts35")
def _():
    venue = one([v for v in B_VENUES if v["Manager"] == "Tiago Alves"])["Venue"]
    return [fmt(sum(e["Attendees"] for e in B_EVENTS if e["Venue"] == venue))]


@answer("ts51")
def _():
    venues = [one([e for e in B_EVENTS if e["Event"] == name])["Venue"]
              for name in ("Tech Summit", "Design Week")]  # fmt: skip
    rents = {v: num(one([r for r in B_VENUES if r["Venue"] == v])["Rent (EUR)"]) for v in venues}
    return [max(rents, key=rents.get)]


@unanswerable("ts59")
def _():
    return not [e for e in B_EVENTS if e["Event"] == "Summer Fair"]


# tessera
T = D["tessera"]
T_SHIP, T_CARR, T_WARE = table(T.SHIPMENTS), table(T.CARRIERS), table(T.WAREHOUSES)


@answer("ts03")
def _():
    city = one([s for s in T_SHIP if s["Shipment"] == "S-1005"])["Destination"]
    return [one([w for w in T_WARE if w["City"] == city])["Manager"]]


@answer("ts17")
def _():
    light = min(T_SHIP, key=lambda s: s["Weight (kg)"])
    return [one([c for c in T_CARR if c["Carrier"] == light["Carrier"]])["Contact"]]


@answer("ts34")
def _():
    danish = one([c for c in T_CARR if c["Country"] == "Denmark"])["Carrier"]
    return [fmt(sum(s["Weight (kg)"] for s in T_SHIP if s["Carrier"] == danish))]


@answer("ts52")
def _():
    carriers = [one([s for s in T_SHIP if s["Shipment"] == sid])["Carrier"]
                for sid in ("S-1002", "S-1006")]  # fmt: skip
    rate = {c: one([r for r in T_CARR if r["Carrier"] == c])["On-time rate (%)"] for c in carriers}
    return [max(rate, key=rate.get)]


# marlow
M = D["marlow"]
M_COURSES, M_TEACHERS, M_FEES = table(M.COURSES), table(M.TEACHERS), not_total(html_table(M.FEES))


@answer("ts04")
def _():
    course = one([c for c in M_COURSES if c["Teacher"] == "Victor Nunes"])["Course"]
    return [fmt(num(one([f for f in M_FEES if f["Course"] == course])["Fee"]))]


@answer("ts19")
def _():
    first = min(M_COURSES, key=lambda c: date(c["Starts"]))
    return [fmt(num(one([f for f in M_FEES if f["Course"] == first["Course"]])["Exam fee"]))]


@answer("ts37")
def _():
    teacher = one([t for t in M_TEACHERS if t["Hired"] == 2015])["Teacher"]
    return [fmt(sum(c["Enrolled"] for c in M_COURSES if c["Teacher"] == teacher))]


# osprey
OSP = D["osprey"]
O_OWNERS, O_INC, O_TEAMS = table(OSP.OWNERS), csv_table(OSP.INCIDENTS), table(OSP.TEAMS)
O_SLOS, O_COSTS = pdf_table(OSP.SLOS, "Service"), table(OSP.COSTS)


@answer("ts21")
def _():
    least = min(O_SLOS, key=lambda s: num(s["Budget left (min)"]))
    assert sum(num(s["Budget left (min)"]) == num(least["Budget left (min)"]) for s in O_SLOS) == 1
    team = one([o for o in O_OWNERS if o["Service"] == least["Service"]])["Team"]
    return [one([t for t in O_TEAMS if t["Team"] == team])["Engineers"]]


@answer("ts29")
def _():
    services = {i["Service"] for i in O_INC if i["Severity"] == "P1"}
    return sorted({o["Owner"] for o in O_OWNERS if o["Service"] in services})


@answer("ts39")
def _():
    services = {o["Service"] for o in O_OWNERS if o["Owner"] == "Ana Costa"}
    return [fmt(sum(num(i["Minutes down"]) for i in O_INC if i["Service"] in services))]


@unanswerable("ts61")
def _():
    assert [o for o in O_OWNERS if o["Team"] == "Identity"]
    return "May" not in OSP.COSTS[0]


# juniper
J = D["juniper"]
J_REST, J_INSP, J_STAFF = table(J.RESTAURANTS), csv_table(J.INSPECTIONS), md_table(J.STAFF)
J_REV = pdf_table(J.REVENUE, "Restaurant")


@answer("ts05")
def _():
    rest = one([s for s in J_STAFF if s["Name"] == "Marta Sousa"])["Restaurant"]
    return [one([r for r in J_REV if r["Restaurant"] == rest])["Actual (k EUR)"]]


@answer("ts18")
def _():
    scored = [i for i in J_INSP if i["Score"].strip()]
    worst = min(scored, key=lambda i: num(i["Score"]))
    return [one([r for r in J_REST if r["Restaurant"] == worst["Restaurant"]])["Head chef"]]


@answer("ts43")
def _():
    rest = one([s for s in J_STAFF if s["Role"] == "Sommelier"])["Restaurant"]
    return [fmt(one([r for r in J_REST if r["Restaurant"] == rest])["Opened"])]


# fenwick
F = D["fenwick"]
F_BUILD, F_RENT, F_LEASES = table(F.BUILDINGS), table(F.RENT), csv_table(F.LEASES)
F_REPAIRS, F_COMM, F_ENERGY = (
    html_table(F.REPAIRS),
    md_table(F.COMMITTEE),
    pdf_table(F.ENERGY, "Building"),
)


@answer("ts28")
def _():
    band_b = {e["Building"] for e in F_ENERGY if e["EPC"] == "B"}
    return [lease["Tenant"] for lease in F_LEASES if lease["Building"] in band_b]


@answer("ts40")
def _():
    buildings = {b["Building"] for b in F_BUILD if b["Caretaker"] == "Grace Okafor"}
    paid = [r for r in F_REPAIRS if r["Building"] in buildings and r["Cost"] != "—"]
    return [fmt(sum(num(r["Cost"]) for r in paid))]


@answer("ts45")
def _():
    building = one([c for c in F_COMM if c["Role"] == "Chair"])["Building"]
    return [one([b for b in F_BUILD if b["Building"] == building])["Caretaker"]]


@answer("ts53")
def _():
    buildings = [
        one([c for c in F_COMM if c["Name"] == n])["Building"] for n in ("Colin Hart", "Mei Lin")
    ]
    march = {b: one([r for r in F_RENT if r["Building"] == b])["March"] for b in buildings}
    return [max(march, key=march.get)]


@unanswerable("ts63")
def _():
    assert one([b for b in F_BUILD if b["Building"] == "Damson Place"])
    # no table of the set has a phone column
    heads = [F.BUILDINGS[0], F.RENT[0], F.CONTRACTORS[0], F.POLICIES[0],
             list(F_LEASES[0]), list(F_REPAIRS[0]), list(F_COMM[0]), list(F_ENERGY[0])]  # fmt: skip
    return not any("phone" in h.lower() or "mobile" in h.lower() for head in heads for h in head)


# rowan
R = D["rowan"]
R_BR, R_LOANS, R_EVENTS = table(R.BRANCHES), table(R.LOANS), csv_table(R.EVENTS)
R_BUDGET = not_total(pdf_table(R.BUDGET, "Branch"))


@answer("ts06")
def _():
    branch = one([e for e in R_EVENTS if e["Title"] == "Code club"])["Branch"]
    return [one([b for b in R_BR if b["Branch"] == branch])["Manager"]]


@answer("ts20")
def _():
    newest = max(R_BR, key=lambda b: b["Opened"])
    return [one([b for b in R_BUDGET if b["Branch"] == newest["Branch"]])["Books"]]


@answer("ts26")
def _():
    no_step = {b["Branch"] for b in R_BR if b["Step-free access"] == "No"}
    return [e["Title"] for e in R_EVENTS if e["Branch"] in no_step]


@answer("ts36")
def _():
    branches = {b["Branch"] for b in R_BR if b["Manager"] == "Jane Doyle"}
    return [fmt(sum(r["Mar"] for r in R_LOANS if r["Branch"] in branches))]


# alder
A = D["alder"]
A_CLIN, A_APPT, A_PAT = table(A.CLINICS), table(A.APPOINTMENTS), csv_table(A.PATIENTS)
A_STAFF, A_COSTS = md_table(A.STAFF), not_total(pdf_table(A.COSTS, "Clinic"))


@answer("ts07")
def _():
    clinic = one([p for p in A_PAT if p["Patient"] == "Rex"])["Clinic"]
    return [one([c for c in A_CLIN if c["Clinic"] == clinic])["Lead vet"]]


@answer("ts38")
def _():
    clinics = {c["Clinic"] for c in A_CLIN if c["Lead vet"] == "Omar Haddad"}
    return [fmt(sum(a["Oct"] for a in A_APPT if a["Clinic"] in clinics))]


@answer("ts44")
def _():
    clinic = one([s for s in A_STAFF if s["Role"] == "Receptionist"])["Clinic"]
    return [one([c for c in A_COSTS if c["Clinic"] == clinic])["Rent"]]


@unanswerable("ts58")
def _():
    clinic = one([c for c in A_CLIN if c["Lead vet"] == "Ravi Menon"])["Clinic"]
    return not [p for p in A_PAT if p["Clinic"] == clinic and p["Species"] == "Dog"]


# saltmarsh
S = D["saltmarsh"]
S_HOTELS, S_OCC, S_BOOK = table(S.HOTELS), table(S.OCCUPANCY), csv_table(S.BOOKINGS)
S_RAT, S_STAFF = table(S.RATINGS), html_table(S.STAFF)


@answer("ts08")
def _():
    hotel = one([b for b in S_BOOK if b["Guest"] == "Leo Marsh"])["Hotel"]
    return [one([h for h in S_HOTELS if h["Hotel"] == hotel])["General manager"]]


@answer("ts22")
def _():
    longest = max(S_BOOK, key=lambda b: int(b["Nights"]))
    assert sum(int(b["Nights"]) == int(longest["Nights"]) for b in S_BOOK) == 1
    return [fmt(num(one([o for o in S_OCC if o["Hotel"] == longest["Hotel"]])["Q1"]))]


@answer("ts46")
def _():
    hotel = one([s for s in S_STAFF if s["Department"] == "Maintenance"])["Hotel"]
    return [fmt(one([h for h in S_HOTELS if h["Hotel"] == hotel])["Rooms"])]


@answer("ts54")
def _():
    overall = {}
    for guest in ("Tom Hale", "Paul Reid"):
        hotel = one([b for b in S_BOOK if b["Guest"] == guest])["Hotel"]
        overall[guest] = num(one([r for r in S_RAT if r["Hotel"] == hotel])["Overall"])
    return [max(overall, key=overall.get)]


# larkspur
K = D["larkspur"]
K_PROJ, K_BUGS, K_TEAM = table(K.PROJECTS), csv_table(K.BUGS), md_table(K.TEAM)
K_INV = not_total(pdf_table(K.INVOICES, "Invoice"))


@answer("ts09")
def _():
    person = one([b for b in K_BUGS if b["Bug"] == "LS-102"])["Assignee"]
    return [one([t for t in K_TEAM if t["Name"] == person])["Team"]]


@answer("ts23")
def _():
    latest = max(K_BUGS, key=lambda b: date(b["Reported"]))
    return [one([t for t in K_TEAM if t["Name"] == latest["Assignee"]])["Day rate (€)"]]


@answer("ts41")
def _():
    client = one([p for p in K_PROJ if p["Project"] == "Ledger sync"])["Client"]
    return [fmt(sum(num(i["Amount"]) for i in K_INV if i["Client"] == client))]


@answer("ts47")
def _():
    person = one([t for t in K_TEAM if t["Role"] == "Developer" and t["Team"] == "Backend"])["Name"]
    return [b["Bug"] for b in K_BUGS if b["Assignee"] == person]


# hawthorn
W = D["hawthorn"]
W_BEERS, W_ORDERS, W_PUBS, W_TANKS = (
    table(W.BEERS),
    csv_table(W.ORDERS),
    md_table(W.PUBS),
    table(W.TANKS),
)


@answer("ts11")
def _():
    beer = one([t for t in W_TANKS if t["Vessel"] == "FV2"])["Beer in tank"]
    return [one([b for b in W_BEERS if b["Beer"] == beer])["Style"]]


@answer("ts24")
def _():
    latest = max(W_ORDERS, key=lambda o: date(o["Ordered"]))
    return [one([b for b in W_BEERS if b["Beer"] == latest["Beer"]])["Head brewer"]]


@answer("ts30")
def _():
    beers = {b["Beer"] for b in W_BEERS if b["Head brewer"] == "Cara Boyle"}
    return list(dict.fromkeys(o["Customer"] for o in W_ORDERS if o["Beer"] in beers))


@unanswerable("ts62")
def _():
    return one([p for p in W_PUBS if p["Landlord"] == "Alan Ferris"])["Hand pulls"] == ""


# kestrel
E = D["kestrel"]
E_ARR, E_INV, E_LEASES = table(E.ARRAYS), csv_table(E.INVOICES), table(E.LEASES)
E_MAINT = html_table(E.MAINTENANCE)


@answer("ts10")
def _():
    site = one([m for m in E_MAINT if m["Work done"].startswith("Isolator replaced")])["Site"]
    return [one([lease for lease in E_LEASES if lease["Site"] == site])["Roof owner"]]


@answer("ts42")
def _():
    sites = {a["Site"] for a in E_ARR if a["Site lead"] == "Gareth Pryce"}
    return [fmt(sum(num(i["Amount"]) for i in E_INV if i["Site"] in sites))]


@answer("ts55")
def _():
    kwp = {p: sum(a["Capacity (kWp)"] for a in E_ARR if a["Site lead"] == p)
           for p in ("Ruth Okafor", "Nia Evans")}  # fmt: skip
    return [max(kwp, key=kwp.get)]


# foxglove
X = D["foxglove"]
X_PROD, X_MEM, X_VEN, X_TOUR = (
    table(X.PRODUCTIONS),
    table(X.MEMBERS),
    md_table(X.VENUES),
    table(X.TOUR),
)


@answer("ts12")
def _():
    venue = one([t for t in X_TOUR if date(t["Get-in"]) == datetime.date(2026, 10, 14)])["Venue"]
    return [fmt(num(one([v for v in X_VEN if v["Venue"] == venue])["Our share of the box office"]))]


@answer("ts49")
def _():
    person = one([m for m in X_MEM if m["Role"] == "Associate director"])["Company member"]
    return [p["Production"] for p in X_PROD if p["Director"] == person]


@unanswerable("ts64")
def _():
    contact = one([v for v in X_VEN if v["Venue"] == "Quarry Studio"])["Contact"]
    assert "Phone" not in X_VEN[0]
    return not [m for m in X_MEM if m["Company member"] == contact]


# greyfriars
G = D["greyfriars"]
G_FLEET, G_TEAM, G_REFURB = table(G.FLEET), table(G.TEAM), html_table(G.REFURBS)


@answer("ts16")
def _():
    hired = [b for b in G_FLEET if b["Hires in 2025"] is not None]
    top = max(hired, key=lambda b: b["Hires in 2025"])
    assert sum(b["Hires in 2025"] == top["Hires in 2025"] for b in hired) == 1
    return [
        fmt(date(one([t for t in G_TEAM if t["Team member"] == top["Looked after by"]])["Started"]))
    ]


@answer("ts31")
def _():
    staff = {t["Team member"] for t in G_TEAM if t["Status"] == "Staff"}
    return [
        r["Bike"] for r in G_REFURB if r["Status"] == "For sale" and r["Refurbished by"] in staff
    ]


@answer("ts48")
def _():
    person = one([t for t in G_TEAM if t["Role"] == "E-bike technician"])["Team member"]
    return [b["Bike"] for b in G_FLEET if b["Looked after by"] == person]


# ironwood
IRW = D["ironwood"]
I_EQ, I_STAFF, I_CLIN = table(IRW.EQUIPMENT), table(IRW.STAFF), table(IRW.CLINICS)


@answer("ts32")
def _():
    not_full = {s["Staff member"] for s in I_STAFF if s["Status"] != "Full-time"}
    return [e["Item"] for e in I_EQ if e["Vet in charge"] in not_full]


@answer("ts50")
def _():
    nurse = one([s for s in I_STAFF if s["Role"] == "Head nurse"])["Staff member"]
    return [fmt(date(c["Clinic date"])) for c in I_CLIN if c["Nurse"] == nurse]


@answer("ts56")
def _():
    started = {}
    for day in (datetime.date(2026, 6, 6), datetime.date(2026, 6, 20)):
        vet = one([c for c in I_CLIN if date(c["Clinic date"]) == day])["Vet"]
        started[vet] = date(one([s for s in I_STAFF if s["Staff member"] == vet])["Started"])
    return [min(started, key=started.get)]


@unanswerable("ts60")
def _():
    return not [c for c in I_CLIN if date(c["Clinic date"]) == datetime.date(2026, 7, 18)]


# --- the checks ---------------------------------------------------------------------------


def main() -> None:
    questions = json.loads((HERE / "two_step.json").read_text(encoding="utf-8"))["questions"]
    assert len(questions) == 64, len(questions)
    assert [q["id"] for q in questions] == [f"ts{i:02d}" for i in range(1, 65)]
    for i, q in enumerate(questions, 1):
        assert set(q) == {"id", "set", "kind", "question", "answers", "half"}, q["id"]
        assert q["half"] == ("tune" if i % 2 else "held"), q["id"]
        assert q["set"] in SETS and q["kind"] in KINDS, q["id"]
        assert all(isinstance(a, str) and a for a in q["answers"]), q["id"]
    for a, b in zip(questions[::2], questions[1::2]):
        assert a["kind"] == b["kind"], (a["id"], b["id"])
    assert Counter(q["kind"] for q in questions) == Counter(KINDS)
    per_set = Counter(q["set"] for q in questions)
    assert len(per_set) >= 12 and all(3 <= n <= 5 for n in per_set.values()), per_set
    assert len({q["question"] for q in questions}) == 64

    failures = []
    for q in questions:
        if q["kind"] == "unanswerable":
            if q["answers"] != [] or not UNANSWERABLE[q["id"]]():
                failures.append((q["id"], "should be unanswerable"))
            continue
        got = [fmt(v) for v in ANSWERS[q["id"]]()]
        if sorted(got) != sorted(q["answers"]) or len(got) != len(q["answers"]):
            failures.append((q["id"], got, q["answers"]))
    assert set(ANSWERS) | set(UNANSWERABLE) == {q["id"] for q in questions}
    for failure in failures:
        print("FAIL", failure)
    assert not failures, f"{len(failures)} answers differ"
    print(f"ok: {len(ANSWERS)} answers recomputed, {len(UNANSWERABLE)} unanswerable confirmed")
    print("kinds:", dict(Counter(q["kind"] for q in questions)))
    print("sets:", dict(per_set))


if __name__ == "__main__":
    main()
