"""Check the one-table probe (one_table.json) against the team-tables data.

    python3 bench/team_tables/one_table_check.py

Every set's build.py is imported by path (nothing is built or written), through the readers
of two_step_check.py, which is imported by path too. Each answerable question's answer is
recomputed from one table of that module's lists and strings and compared, in order, with the
answers in one_table.json (lists of rows in the table's order, rankings in rank order). Each
unanswerable question gets a check of why the documents cannot answer it (the row does not
exist, the column is missing, the period is not covered). The file's shape is checked too:
96 questions, ids, halves, kinds and sets.
"""

from __future__ import annotations

import datetime
import importlib.util
import json
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _import(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TS = _import("team_tables_two_step_check", HERE / "two_step_check.py")
SETS, D = TS.SETS, TS.D
table, csv_table, md_table, html_table = TS.table, TS.csv_table, TS.md_table, TS.html_table
pdf_table, num, date, fmt, not_total, one = (
    TS.pdf_table,
    TS.num,
    TS.date,
    TS.fmt,
    TS.not_total,
    TS.one,
)

KINDS = {"count-filter": 12, "sum-avg": 12, "extreme": 12, "top-order": 8, "date-filter": 8,
         "compare-two": 8, "group": 8, "list-filter": 8, "unanswerable": 8, "lookup": 12}  # fmt: skip
ANSWERS, answer = TS.registry()
UNANSWERABLE, unanswerable = TS.registry()


def r2(value) -> str:
    """A number rounded to two places, without trailing zeros; refuses a value on a .xx5 edge."""
    scaled = value * 100
    assert abs(abs(scaled - int(scaled)) - 0.5) > 1e-6, value
    return f"{value:.2f}".rstrip("0").rstrip(".")


def unique_best(rows, key, pick=max):
    """The one row with the most (or least) of key; a tie is an error."""
    best = pick(rows, key=key)
    assert sum(key(r) == key(best) for r in rows) == 1, best
    return best


def ranked(rows, key, k=None):
    """Rows by key, highest first; a tie within the first k (or anywhere) is an error."""
    order = sorted(rows, key=key, reverse=True)
    upto = order if k is None else order[: k + 1]
    keys = [key(r) for r in upto]
    assert len(set(keys)) == len(keys), keys
    return order if k is None else order[:k]


def day(y, m, d) -> datetime.date:
    return datetime.date(y, m, d)


# halvard
H = D["halvard"]
H_SITES, H_BUDGETS, H_FLEET = table(H.SITES), table(H.BUDGETS), csv_table(H.FLEET)
H_PROJECTS, H_TRAINING = table(H.PROJECTS), md_table(H.TRAINING)


@answer("ot01")
def _():
    return [len([s for s in H_SITES if s["Staff"] > 100])]


@answer("ot18")
def _():
    return [sum(b["Hiring plan"] for b in H_BUDGETS)]


@answer("ot35")
def _():
    return [unique_best(H_FLEET, lambda v: int(v["Capacity (t)"]))["Captain"]]


@answer("ot52")
def _():
    return [p["Project"] for p in H_PROJECTS if date(p["Due date"]) < day(2026, 6, 1)]


@answer("ot69")
def _():
    return [c["Course"] for c in H_TRAINING if c["Level"] == "Basic"]


@answer("ot86")
def _():
    return [one([s for s in H_SITES if s["Site"] == "Esbjerg"])["Lead"]]


# lumen
L = D["lumen"]
L_ROOMS, L_REVENUE, L_LAPTOPS = table(L.ROOMS), table(L.REVENUE), csv_table(L.LAPTOPS)
L_PRICES = html_table(L.PRICES)


@answer("ot02")
def _():
    return [len([r for r in L_ROOMS if r["Video"] == "Yes"])]


@answer("ot19")
def _():
    return [sum(num(r["Q4"]) for r in L_REVENUE)]


@answer("ot36")
def _():
    return [unique_best(L_REVENUE, lambda r: num(r["Q3"]), min)["Region"]]


@answer("ot53")
def _():
    q2 = {r["Region"]: num(r["Q2"]) for r in L_REVENUE if r["Region"] in ("DACH", "UK & Ireland")}
    assert len(set(q2.values())) == 2
    return [max(q2, key=q2.get)]


@answer("ot70")
def _():
    return [p["Asset"] for p in L_LAPTOPS if p["Status"] == "In use"]


@answer("ot87")
def _():
    return [one([p for p in L_PRICES if p["Plan"] == "Business"])["Users included"]]


# brightwater
B = D["brightwater"]
B_EVENTS, B_SUPPLIERS = table(B.EVENTS), md_table(B.SUPPLIERS)
B_STAFF, B_SALES = pdf_table(B.STAFF, "Name"), csv_table(B.SALES)


@answer("ot03")
def _():
    assert all(date(e["Date"]).year == 2026 for e in B_EVENTS)
    return [len([e for e in B_EVENTS if 500 <= e["Attendees"] <= 1000])]


@answer("ot20")
def _():
    hours = [num(s["Hours per week"]) for s in B_STAFF if s["Role"] == "Coordinator"]
    return [r2(sum(hours) / len(hours))]


@answer("ot37")
def _():
    return [m["Month"] for m in ranked(B_SALES, lambda m: num(m["Online"]), 3)]


@answer("ot54")
def _():
    box = {m["Month"]: num(m["Box office"]) for m in B_SALES if m["Month"] in ("March", "June")}
    assert len(set(box.values())) == 2
    return [max(box, key=box.get)]


@answer("ot71")
def _():
    return [s["Supplier"] for s in B_SUPPLIERS if s["Rating"] == "5"]


@answer("ot88")
def _():
    return [one([s for s in B_STAFF if s["Name"] == "Duarte Lopes"])["Joined"]]


# tessera
T = D["tessera"]
T_WARE, T_FLEET = table(T.WAREHOUSES), md_table(T.FLEET)
T_ROUTES, T_FUEL = pdf_table(T.ROUTES, "Route"), csv_table(T.FUEL)


@answer("ot04")
def _():
    return [len([r for r in T_ROUTES if "Hamburg" in r["Route"]])]


@answer("ot21")
def _():
    return [sum(num(w["Pallet spaces"]) for w in T_WARE)]


@answer("ot38")
def _():
    return [r["Route"] for r in ranked(T_ROUTES, lambda r: num(r["Distance (km)"]))]


@answer("ot55")
def _():
    litres = {m["Month"]: num(m["Litres"]) for m in T_FUEL}
    return [litres["May"] - litres["February"]]


@answer("ot72")
def _():
    return [t["Truck"] for t in T_FLEET if num(t["Year"]) < 2020]


@answer("ot89")
def _():
    return [one([r for r in T_ROUTES if r["Route"] == "Antwerp-Calais"])["Stops"]]


# marlow
M = D["marlow"]
M_COURSES, M_TEACHERS, M_FEES = table(M.COURSES), table(M.TEACHERS), not_total(html_table(M.FEES))
M_ROOMS, M_LOANS = md_table(M.ROOMS), csv_table(M.LOANS)


@answer("ot05")
def _():
    return [len([c for c in M_COURSES if c["Level"] == "Beginner"])]


@answer("ot22")
def _():
    return [sum(c["Enrolled"] for c in M_COURSES)]


@answer("ot39")
def _():
    return [f["Course"] for f in ranked(M_FEES, lambda f: num(f["Fee"]), 2)]


@answer("ot56")
def _():
    books = {
        m["Month"]: num(m["Books lent"]) for m in M_LOANS if m["Month"] in ("January", "April")
    }
    assert len(set(books.values())) == 2
    return [max(books, key=books.get)]


@answer("ot73")
def _():
    return [r["Room"] for r in M_ROOMS if r["Projector"] == "Yes"]


@answer("ot90")
def _():
    return [one([t for t in M_TEACHERS if t["Teacher"] == "Omar Farouk"])["Office"]]


# osprey
OSP = D["osprey"]
O_COSTS, O_INC, O_ONCALL = table(OSP.COSTS), csv_table(OSP.INCIDENTS), table(OSP.ONCALL)
O_SLOS, O_TEAMS = pdf_table(OSP.SLOS, "Service"), table(OSP.TEAMS)


@answer("ot06")
def _():
    return [len([i for i in O_INC if i["Severity"] == "P2"])]


@answer("ot23")
def _():
    storage = one([c for c in O_COSTS if c["Service"] == "Storage"])
    return [sum(storage[m] for m in ("Jan", "Feb", "Mar", "Apr"))]


@answer("ot40")
def _():
    return [c["Service"] for c in ranked(O_COSTS, lambda c: c["Mar"], 3)]


@answer("ot57")
def _():
    roles = {
        t["Team"]: num(t["Open roles"]) for t in O_TEAMS if t["Team"] in ("Payments", "Growth")
    }
    assert len(set(roles.values())) == 2
    return [max(roles, key=roles.get)]


@answer("ot74")
def _():
    return [s["Service"] for s in O_SLOS if num(s["Achieved (%)"]) < num(s["Target (%)"])]


@answer("ot91")
def _():
    return [one([w for w in O_ONCALL if date(w["Week of"]) == day(2026, 4, 20)])["Secondary"]]


# juniper
J = D["juniper"]
J_MENU, J_SUPPLIERS, J_PARTNERS = html_table(J.MENU), table(J.SUPPLIERS), table(J.PARTNERS)
J_REV = pdf_table(J.REVENUE, "Restaurant")


@answer("ot07")
def _():
    return [len([d for d in J_MENU if d["Vegetarian"] == "Yes"])]


@answer("ot24")
def _():
    mains = [num(d["Price"]) for d in J_MENU if d["Category"] == "Main"]
    return [r2(sum(mains) / len(mains))]


@answer("ot41")
def _():
    return [p["Partner"] for p in ranked(J_PARTNERS, lambda p: num(p["Orders (2025)"]), 2)]


@answer("ot58")
def _():
    mins = {
        p["Partner"]: num(p["Avg delivery (min)"])
        for p in J_PARTNERS
        if p["Partner"] in ("Bolt Food", "Uber Eats")
    }
    assert len(set(mins.values())) == 2
    return [min(mins, key=mins.get)]


@answer("ot75")
def _():
    return [r["Restaurant"] for r in J_REV if num(r["Actual (k EUR)"]) > num(r["Target (k EUR)"])]


@answer("ot92")
def _():
    return [one([s for s in J_SUPPLIERS if s["Supplier"] == "Serra Meats"])["Lead time"]]


# fenwick
F = D["fenwick"]
F_BUILD, F_REPAIRS, F_CONTRACTORS = table(F.BUILDINGS), html_table(F.REPAIRS), table(F.CONTRACTORS)
F_COMM, F_ENERGY = md_table(F.COMMITTEE), pdf_table(F.ENERGY, "Building")


@answer("ot08")
def _():
    return [len([r for r in F_REPAIRS if r["Status"] == "Closed"])]


@answer("ot25")
def _():
    return [unique_best(F_BUILD, lambda b: b["Built"], min)["Caretaker"]]


@answer("ot42")
def _():
    return [e["Building"] for e in ranked(F_ENERGY, lambda e: num(e["Electricity (kWh)"]))]


@answer("ot59")
def _():
    met = {
        c["Name"]: num(c["Meetings attended (2025)"])
        for c in F_COMM
        if c["Name"] in ("Farid Haddad", "Agnes Byrne")
    }
    assert len(set(met.values())) == 2
    return [max(met, key=met.get)]


@answer("ot76")
def _():
    return [c["Contractor"] for c in F_CONTRACTORS if num(c["Call-out fee"]) < 100]


@answer("ot93")
def _():
    return [one([e for e in F_ENERGY if e["Building"] == "Cedar Mews"])["EPC"]]


# rowan
R = D["rowan"]
R_BR, R_LOANS, R_PCS = table(R.BRANCHES), table(R.LOANS), html_table(R.COMPUTERS)
R_BUDGET, R_HOURS = not_total(pdf_table(R.BUDGET, "Branch")), table(R.HOURS)


@answer("ot09")
def _():
    return [len([p for p in R_PCS if p["Faulty"] == "Yes"])]


@answer("ot26")
def _():
    return [unique_best(R_BR, lambda b: b["Staff"])["Manager"]]


@answer("ot43")
def _():
    return [b["Branch"] for b in ranked(R_BUDGET, lambda b: num(b["Building"]), 3)]


@answer("ot60")
def _():
    apr = {r["Branch"]: r["Apr"] for r in R_LOANS}
    return [apr["Eastgate"] - apr["Northfield"]]


@unanswerable("ot77")
def _():
    assert one([r for r in R_LOANS if r["Branch"] == "Harwood"])
    return "Jul" not in R.LOANS[0] and "July" not in R.LOANS[0]


@answer("ot94")
def _():
    return [one([h for h in R_HOURS if h["Branch"] == "Northfield"])["Saturday"]]


# alder
A = D["alder"]
A_CLIN, A_APPT, A_PAT = table(A.CLINICS), table(A.APPOINTMENTS), csv_table(A.PATIENTS)
A_MEDS, A_SURVEY = html_table(A.MEDICINES), table(A.SURVEY)


@answer("ot10")
def _():
    return [len([m for m in A_MEDS if num(m["In stock"]) < num(m["Reorder at"])])]


@answer("ot27")
def _():
    return [unique_best(A_APPT, lambda a: a["Aug"], min)["Clinic"]]


@answer("ot44")
def _():
    return [c["Clinic"] for c in reversed(ranked(A_CLIN, lambda c: c["Opened"]))]


@answer("ot61")
def _():
    return [len({c["Town"] for c in A_CLIN})]


@unanswerable("ot78")
def _():
    assert one([a for a in A_APPT if a["Clinic"] == "Hillcrest"])
    # the appointments sheet runs July to December; no other table counts appointments
    return "Jun" not in A.APPOINTMENTS[0] and "June" not in A.APPOINTMENTS[0]


@answer("ot95")
def _():
    return [fmt(num(one([s for s in A_SURVEY if s["Area"] == "Waiting time"])["Satisfaction"]))]


# saltmarsh
S = D["saltmarsh"]
S_BOOK, S_MAINT, S_REV = (
    csv_table(S.BOOKINGS),
    md_table(S.MAINTENANCE),
    pdf_table(S.REVENUE, "Hotel"),
)
S_RAT, S_SUPP, S_STAFF = table(S.RATINGS), table(S.SUPPLIERS), html_table(S.STAFF)
S_OCC = table(S.OCCUPANCY)


@answer("ot11")
def _():
    return [len([b for b in S_BOOK if b["Channel"] == "Direct"])]


@answer("ot28")
def _():
    return [unique_best(S_RAT, lambda r: num(r["Value"]))["Hotel"]]


@answer("ot45")
def _():
    return [
        m["Job"] for m in S_MAINT if day(2025, 7, 1) <= date(m["Reported"]) <= day(2025, 12, 31)
    ]


@answer("ot62")
def _():
    return [len([s for s in S_STAFF if s["Department"] == "Housekeeping"])]


@unanswerable("ot79")
def _():
    assert one([r for r in S_REV if r["Hotel"] == "Saltmarsh Gardens"])
    # the revenue PDF is 2025 only (Budget and Actual); the other tables hold no revenue
    heads = [list(S_REV[0]), S.HOTELS[0], S.OCCUPANCY[0], list(S_BOOK[0]), list(S_MAINT[0]),
             S.RATINGS[0], S.SUPPLIERS[0], list(S_STAFF[0])]  # fmt: skip
    # (its note says the budget was set in December 2024: a date, not 2024's figures)
    return (
        "Revenue 2025" in S.REVENUE[0]
        and list(S_REV[0]) == ["Hotel", "Budget", "Actual"]
        and not any("revenue" in h.lower() for head in heads for h in head)
    )


@answer("ot96")
def _():
    return [one([s for s in S_SUPP if s["Supplier"] == "Lumio"])["Contract ends"]]


# larkspur
K = D["larkspur"]
K_PROJ, K_HOURS, K_TEAM = table(K.PROJECTS), table(K.HOURS), md_table(K.TEAM)
K_INV, K_SERVERS = not_total(pdf_table(K.INVOICES, "Invoice")), html_table(K.SERVERS)


@answer("ot12")
def _():
    return [len([s for s in K_SERVERS if num(s["Monthly cost"]) < 300])]


@answer("ot29")
def _():
    return [unique_best(K_PROJ, lambda p: p["Budget (€)"])["Lead"]]


@answer("ot46")
def _():
    return [i["Invoice"] for i in K_INV if date(i["Issued"]).month == 2]


@answer("ot63")
def _():
    return [len([t for t in K_TEAM if t["Team"] == "Mobile"])]


@unanswerable("ot80")
def _():
    assert one([p for p in K_PROJ if p["Project"] == "Clinic portal"])
    return not [h for h in K_HOURS if h["Project"] == "Clinic portal"]


# hawthorn
W = D["hawthorn"]
W_BEERS, W_ORDERS, W_TANKS = table(W.BEERS), csv_table(W.ORDERS), table(W.TANKS)
W_COSTS, W_BREWED = not_total(pdf_table(W.COSTS, "Month")), table(W.BREWED)


@answer("ot13")
def _():
    return [sum(int(o["Kegs"]) for o in W_ORDERS)]


@answer("ot30")
def _():
    return [unique_best(W_COSTS, lambda c: num(c["Energy"]))["Month"]]


@answer("ot47")
def _():
    return [o["Order"] for o in W_ORDERS if date(o["Ordered"]).month == 4]


@answer("ot64")
def _():
    return [len([t for t in W_TANKS if t["Type"] == "Fermenter"])]


@unanswerable("ot81")
def _():
    named = [W_BEERS, W_BREWED, [{"Beer": o["Beer"]} for o in W_ORDERS],
             [{"Beer": t["Beer in tank"]} for t in W_TANKS]]  # fmt: skip
    return not [r for rows in named for r in rows if "Kingfisher" in r["Beer"]]


# kestrel
E = D["kestrel"]
E_ARR, E_MEMBERS, E_LEASES = table(E.ARRAYS), md_table(E.MEMBERS), table(E.LEASES)
E_GEN, E_MAINT, E_INV = table(E.GENERATED), html_table(E.MAINTENANCE), csv_table(E.INVOICES)


@answer("ot14")
def _():
    return [sum(num(m["Shares (£)"]) for m in E_MEMBERS)]


@answer("ot31")
def _():
    return [unique_best(E_GEN, lambda g: num(g["Dec"]), min)["Site"]]


@answer("ot48")
def _():
    return [unique_best(E_LEASES, lambda lease: date(lease["Next roof survey"]), min)["Site"]]


@answer("ot65")
def _():
    counts = Counter(m["Village"] for m in E_MEMBERS).most_common()
    assert counts[0][1] > counts[1][1], counts
    return [counts[0][0]]


@unanswerable("ot82")
def _():
    sites = [r["Site"] for rows in (E_ARR, E_LEASES, E_GEN, E_MAINT, E_INV) for r in rows]
    hosts = [a["Host building"] for a in E_ARR]
    return not any("Town Hall" in s for s in sites + hosts)


# foxglove
X = D["foxglove"]
X_PROD, X_GRANTS, X_WORK = table(X.PRODUCTIONS), csv_table(X.GRANTS), html_table(X.WORKSHOPS)
X_TOUR, X_TICKETS = table(X.TOUR), table(X.TICKETS)


@answer("ot15")
def _():
    fees = [num(w["Fee per term"]) for w in X_WORK]
    return [r2(sum(fees) / len(fees))]


@answer("ot32")
def _():
    sold = [p for p in X_PROD if p["Seats sold"] is not None]
    return [unique_best(sold, lambda p: p["Seats sold"])["Production"]]


@answer("ot49")
def _():
    return [p["Production"] for p in X_PROD if date(p["Opening night"]).year == 2025]


@answer("ot66")
def _():
    counts = Counter(g["Funder"] for g in X_GRANTS).most_common()
    assert counts[0][1] > counts[1][1], counts
    return [counts[0][0]]


@unanswerable("ot83")
def _():
    assert one([t for t in X_TICKETS if t["Venue"] == "The Courtyard"])
    return "Sep 2026" not in X.TICKETS[0] and X.TICKETS[0][-1] == "Aug 2026"


# greyfriars
G = D["greyfriars"]
G_CONTRACTS, G_SUPP, G_REFURB = csv_table(G.CONTRACTS), md_table(G.SUPPLIERS), html_table(G.REFURBS)
G_BIKE = table(G.BIKEABILITY)


@answer("ot16")
def _():
    return [sum(num(c["Value"]) for c in G_CONTRACTS if date(c["Signed"]).year == 2025)]


@answer("ot33")
def _():
    return [unique_best(G_SUPP, lambda s: num(s["Trade discount"]))["Contact"]]


@answer("ot50")
def _():
    return [len([b for b in G_BIKE if date(b["First session"]).month == 6])]


@answer("ot67")
def _():
    return [len({r["Type"] for r in G_REFURB})]


@unanswerable("ot84")
def _():
    assert one([s for s in G_SUPP if s["Supplier"] == "Velotrade"])
    heads = [G.FLEET[0], G.TEAM[0], list(G_CONTRACTS[0]), list(G_SUPP[0]), list(G_REFURB[0]),
             G.BIKEABILITY[0], G.REPAIRS[0]]  # fmt: skip
    text = G.SUPPLIERS + G.REFURBS
    return not any("mail" in h.lower() for head in heads for h in head) and "@" not in text


# ironwood
IRW = D["ironwood"]
I_EQ, I_STAFF, I_CLAIMS = table(IRW.EQUIPMENT), table(IRW.STAFF), csv_table(IRW.CLAIMS)


@answer("ot17")
def _():
    return [sum(num(c["Paid"]) for c in I_CLAIMS if c["Paid"].strip())]


@answer("ot34")
def _():
    used = [e for e in I_EQ if e["Days out of action in 2025"] is not None]
    return [unique_best(used, lambda e: e["Days out of action in 2025"])["Item"]]


@answer("ot51")
def _():
    return [c["Ref"] for c in I_CLAIMS if date(c["Submitted"]).month == 1]


@answer("ot68")
def _():
    return [len([s for s in I_STAFF if s["Status"] == "Locum"])]


@answer("ot85")
def _():
    return [one([s for s in I_STAFF if s["Staff member"] == "Carys Hughes"])["Extension"]]


# --- the checks ---------------------------------------------------------------------------


def main(path: Path = HERE / "one_table.json") -> None:
    questions = json.loads(path.read_text(encoding="utf-8"))["questions"]
    assert len(questions) == 96, len(questions)
    assert [q["id"] for q in questions] == [f"ot{i:02d}" for i in range(1, 97)]
    for i, q in enumerate(questions, 1):
        assert set(q) == {"id", "set", "kind", "question", "answers", "half"}, q["id"]
        assert q["half"] == ("tune" if i % 2 else "held"), q["id"]
        assert q["set"] in SETS and q["kind"] in KINDS, q["id"]
        assert all(isinstance(a, str) and a for a in q["answers"]), q["id"]
        assert (q["answers"] == []) == (q["kind"] == "unanswerable"), q["id"]
    for a, b in zip(questions[::2], questions[1::2]):
        assert a["kind"] == b["kind"], (a["id"], b["id"])
    assert Counter(q["kind"] for q in questions) == Counter(KINDS)
    per_set = Counter(q["set"] for q in questions)
    assert set(per_set) == set(SETS) and all(5 <= n <= 6 for n in per_set.values()), per_set
    assert len({q["question"] for q in questions}) == 96
    two_step = json.loads((HERE / "two_step.json").read_text(encoding="utf-8"))["questions"]
    assert not {q["question"] for q in two_step} & {q["question"] for q in questions}

    failures = []
    for q in questions:
        if q["kind"] == "unanswerable":
            if not UNANSWERABLE[q["id"]]():
                failures.append((q["id"], "should be unanswerable"))
            continue
        got = [fmt(v) for v in ANSWERS[q["id"]]()]
        if got != q["answers"]:
            failures.append((q["id"], got, q["answers"]))
    assert set(ANSWERS) | set(UNANSWERABLE) == {q["id"] for q in questions}
    assert not set(ANSWERS) & set(UNANSWERABLE)
    for failure in failures:
        print("FAIL", failure)
    assert not failures, f"{len(failures)} answers differ"
    print(f"ok: {len(ANSWERS)} answers recomputed, {len(UNANSWERABLE)} unanswerable confirmed")
    print("kinds:", dict(Counter(q["kind"] for q in questions)))
    print("sets:", dict(per_set))


if __name__ == "__main__":
    import sys

    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "one_table.json")
