"""The offline table parser with its trained weights: questions that need several rows of a
team's table (a count, a total, the most, a filter, the first, a comparison) get the program
that computes them, in more than one phrasing."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import by_answer, followed
from knowledge.tables.parser import Candidate, load_weights, ranked
from knowledge.tables.programs import Program, Result, run
from knowledge.tables.wording import in_words

HEADERS = ["Clinic", "Beds", "Opened", "Manager", "Region"]
ROWS = [
    ["Braga", "45", "2020", "Ines Costa", "North"],
    ["Faro", "30", "2021", "Joao Neves", "South"],
    ["Evora", "25", "2023", "Rita Lopes", "South"],
    ["Lisbon", "120", "2012", "Pedro Alves", "Centre"],
    ["Porto", "90", "2016", "Ana Reis", "North"],
]


@pytest.fixture(scope="module")
def clinics():
    table = table_from_rows(HEADERS, ROWS)
    return grid(table, "clinics.xlsx › Clinics")


def test_the_weights_are_versioned_and_small() -> None:
    weights = load_weights()
    assert 1_000 < len(weights) < 200_000


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Which clinic has the most beds?", ["Lisbon"]),
        ("What clinic has the fewest beds?", ["Evora"]),
        ("How many clinics are there in the South region?", [2.0]),
        ("How many clinics opened after 2019?", [3.0]),
        ("What is the total number of beds across all clinics?", [310.0]),
        ("What is the average number of beds?", [62.0]),
        ("Who manages the clinic with the most beds?", ["Pedro Alves"]),
        ("Which clinic opened first?", ["Lisbon"]),
        ("Who is the manager of Faro?", ["Joao Neves"]),
        ("Which clinic is listed after Faro?", ["Evora"]),
        ("How many more beds does Porto have than Braga?", [45.0]),
    ],
)
def test_the_first_program_that_follows_the_question_computes_the_answer(
    clinics, question, values
) -> None:
    # As the store reads them (bench/table_parser.py measures the same): the ranker's order,
    # less the programs that answer another question's shape ("who manages" reads Manager),
    # the likeliest answer's programs first.
    best = followed(question, clinics)[0]
    assert best.result.values == pytest.approx(values), best.program
    # Its result is what running the program gives: nothing is remembered from ranking.
    assert run(best.program, clinics).values == best.result.values


def test_candidates_are_ranked_with_probabilities(clinics) -> None:
    found = ranked("How many clinics are in the North region?", clinics)
    assert len(found) > 10
    assert sum(candidate.score for candidate in found) == pytest.approx(1.0)
    assert [c.score for c in found] == sorted((c.score for c in found), reverse=True)


def _candidate(op: str, values: list, score: float) -> Candidate:
    return Candidate(Program(op, target=0), Result(values=values, rows=[0]), {}, score)


def test_an_answer_several_programs_agree_on_outranks_a_likelier_lone_program() -> None:
    lone = _candidate("first", ["Braga"], 0.4)
    agreeing = [_candidate("argmax", ["Lisbon"], 0.3), _candidate("last", ["Lisbon"], 0.2)]
    other = _candidate("mode", ["Faro"], 0.1)
    assert by_answer([lone, *agreeing, other]) == [*agreeing, lone, other]
    # The likeliest program leads when no answer gathers more than its own.
    assert by_answer([lone, agreeing[0], other]) == [lone, agreeing[0], other]
    # Equal masses: the answer of the likeliest program.
    tied = [_candidate("first", ["Braga"], 0.5), *agreeing[::-1]]
    tied[1].score, tied[2].score = 0.25, 0.25
    assert by_answer(tied)[0] is tied[0]
    assert by_answer([]) == []


def test_programs_that_keep_no_row_do_not_pool_their_zero() -> None:
    counted = Candidate(Program("count"), Result(values=[3.0], rows=[0, 1, 2]), {}, 0.4)
    # Every condition that keeps nothing counts 0: such programs agree by accident.
    empty = [Candidate(Program("count"), Result(values=[0.0], rows=[]), {}, 0.2) for _ in range(3)]
    assert by_answer([counted, *empty])[0] is counted


def _projects():
    table = table_from_rows(
        ["Project", "Status", "Due date"],
        [
            ["Hull sensors", "Done", "3 April 2026"],
            ["Crew app", "In progress", "30 September 2026"],
            ["Dock cameras", "Done", "20 April 2026"],
            ["Fuel telemetry", "Planned", "2027-01-15"],
        ],
    )
    return grid(table, "projects.pptx › Projects")


@pytest.mark.parametrize(
    ("question", "kind", "rows"),
    [
        # A cell said after "not", "other than", "besides", "isn't": the other rows.
        ("Which projects are not done?", "ne", ["Crew app", "Fuel telemetry"]),
        ("Which projects other than Crew app are due?", "ne", ["Hull sensors", "Dock cameras",
                                                               "Fuel telemetry"]),
        ("Besides Hull sensors, which project is done?", "ne", ["Crew app", "Dock cameras",
                                                                "Fuel telemetry"]),
        ("Which project isn't done?", "ne", ["Crew app", "Fuel telemetry"]),
        # A month said beside a date column: the rows of that month, in any year.
        ("How many projects are due in April?", "month", ["Hull sensors", "Dock cameras"]),
    ],
)  # fmt: skip
def test_a_negated_cell_and_a_month_are_conditions(question, kind, rows) -> None:
    from knowledge.tables.programs import Program, kept_rows
    from knowledge.tables.question import mentions, read_question
    from knowledge.tables.wording import in_words

    projects = _projects()
    said = [c for c in mentions(read_question(question), projects) if c.op == kind]
    assert len(said) == 1
    kept = kept_rows(projects, (said[0],))
    assert [projects.columns[0].texts[row] for row in kept] == rows
    words = in_words(Program("count", conditions=(said[0],)), projects, run(
        Program("count", conditions=(said[0],)), projects))  # fmt: skip
    assert ("is not" if kind == "ne" else "Due date is in April") in words


def test_no_negation_no_month_no_such_condition() -> None:
    from knowledge.tables.question import mentions, read_question

    found = mentions(read_question("Which projects are done by Jan Eide?"), _projects())
    assert {c.op for c in found} <= {"eq", "contains"}


def test_a_number_with_thousands_separators_is_one_number() -> None:
    from knowledge.tables.question import read_question

    read = read_question("how many schools have at least 2,000 students and over 1,250,000.5?")

    assert read.numbers == [(2000.0, "ge"), (1250000.5, "gt")]


@pytest.mark.parametrize(
    ("question", "number"),
    [
        ("How many peaks are taller than 2500 meters?", (2500.0, "gt")),
        ("Which boxers were heavier than 90 kg?", (90.0, "gt")),
        ("Which riders were younger than 21?", (21.0, "lt")),
        ("Which sites opened earlier than 1990?", (1990.0, "lt")),  # not "-er than": earlier
    ],
)
def test_a_comparative_said_before_than_compares(question, number) -> None:
    from knowledge.tables.question import read_question

    assert read_question(question).numbers == [number]


def test_a_word_only_one_row_holds_anchors_the_row_after_or_before_it() -> None:
    from knowledge.tables.parser import candidates
    from knowledge.tables.question import mentions, read_question

    table = table_from_rows(
        ["Rank", "Athlete", "Time"],
        [
            ["1", "Emika Yoshida", "11.2"],
            ["2", "Nadeeka Lakmali", "11.4"],
            ["3", "Ana Lobo", "11.9"],
        ],
    )
    race = grid(table, "race.csv")
    read = read_question("Who finished directly before Lakmali?")

    proposed = {
        (program.op, tuple(result.values))
        for program, result in candidates(read, race, mentions(read, race))
    }

    assert ("previous", ("Emika Yoshida",)) in proposed and ("next", ("Ana Lobo",)) in proposed


def test_a_year_said_plainly_keeps_the_rows_of_a_date_column_in_that_year() -> None:
    from knowledge.tables.programs import Program
    from knowledge.tables.question import mentions, read_question

    table = table_from_rows(
        ["Player", "Rebounds", "Date"],
        [["Malone", "37", "February 9, 1978"], ["Oakley", "35", "April 22, 1988"],
         ["Rodman", "23", "March 4, 1978"]],
    )  # fmt: skip
    games = grid(table, "games.csv")
    said = [
        c for c in mentions(read_question("How many rebounds in 1978?"), games) if c.op == "year"
    ]

    assert len(said) == 1
    total = run(Program("sum", key=1, conditions=(said[0],)), games)
    assert total.values == [60.0]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("How many beds do Braga and Faro have combined?", [75.0]),
        ("What is the total number of beds in Lisbon and Porto?", [210.0]),
        ("How many beds do Evora and Faro have together?", [55.0]),
    ],
)
def test_two_named_rows_added_up_are_their_sum(clinics, question, values) -> None:
    """The ranker proposes two named rows compared (a difference, the more), never added: a
    question that adds them up gets their sum on the column of the likeliest comparison."""
    best = followed(question, clinics)[0]
    assert best.program.op == "plus" and best.result.values == pytest.approx(values)
    assert in_words(best.program, clinics, best.result).startswith("Added Beds of the rows where")


@pytest.mark.parametrize(
    ("question", "op"),
    [
        ("How many more beds does Porto have than Braga?", "diff"),
        # "than … combined" compares one row with the rest; no two rows are added.
        ("Does Lisbon have more beds than Braga and Faro combined?", None),
        ("What is the total number of beds?", "sum"),  # every row, no two named
    ],
)
def test_a_comparison_or_a_total_of_every_row_is_no_sum_of_two_rows(clinics, question, op) -> None:
    best = followed(question, clinics)[0]
    assert best.program.op != "plus"
    if op:
        assert best.program.op == op


FILMS = [
    ["Harbour Lights", "2005", "Tamil", "120"],
    ["Salt Road", "2005", "Telugu", "131"],
    ["Monsoon", "2006", "Tamil", "98"],
    ["Paper Kites", "2008", "Tamil", "140"],
    ["Night Bus", "2008", "Hindi", "101"],
    ["Ferry", "2009", "Telugu", "155"],
]


@pytest.fixture(scope="module")
def films():
    return grid(table_from_rows(["Film", "Year", "Language", "Runtime"], FILMS), "films.csv")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Are there more films in Tamil or Telugu?", ["Tamil"]),
        ("Which language has fewer films, Tamil or Telugu?", ["Telugu"]),
    ],
)
def test_more_of_two_named_groups_is_more_rows(films, question, values) -> None:
    """A cell several rows hold is a group: "more" of it, asked on no column, is more rows, not
    the ranker's likeliest numeric column compared on one row of each."""
    best = followed(question, films)[0]
    assert best.program.key is None and best.result.values == values
    assert in_words(best.program, films, best.result).startswith("Counted the rows where")
    assert sorted(best.result.rows) == [0, 1, 2, 3, 5]  # every row of both groups, cited


@pytest.mark.parametrize(
    "question",
    [
        "Which film is longer, Harbour Lights or Salt Road?",  # two rows, not two groups
        "Does Tamil or Telugu have more runtime?",  # a column to compare on
        "Was the runtime of Monsoon more or less than Ferry's?",  # the two words offered
    ],
)
def test_two_rows_or_a_named_column_are_no_count_of_groups(films, question) -> None:
    assert followed(question, films)[0].program.key is not None or (
        followed(question, films)[0].program.op not in ("more", "less")
    )


SHIPMENTS = [
    ["101", "Maersk", "Lisbon", "March 3, 2023", "12", "Rita Lopes"],
    ["102", "CMA CGM", "Porto", "December 9, 2022", "8", "Ana Reis"],
    ["103", "Maersk", "Sines", "December 14, 2023", "20", "Joao Neves"],
    ["104", "MSC", "Lisbon", "December 2, 2023", "5", "Rita Lopes"],
    ["105", "Hapag", "Porto", "June 30, 2023", "15", "Pedro Alves"],
    ["106", "MSC", "Sines", "December 20, 2022", "9", "Ana Reis"],
]


@pytest.fixture(scope="module")
def shipments():
    headers = ["Shipment #", "Carrier", "Port", "Shipped", "Containers", "Inspector"]
    return grid(table_from_rows(headers, SHIPMENTS), "shipments.xlsx › 2023")


def _program(shipments, op: str, **parts) -> Candidate:
    program = Program(op, **parts)
    return Candidate(program, run(program, shipments), {}, 0.5)


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What is the name of the inspector of the shipment with the most containers?", 5),
        ("Which carrier shipped the most containers?", 1),
        ("In which port did the largest shipment land?", 2),
        ("Name of the inspector of shipment 103?", 5),
        ("What is the only carrier that shipped the most containers?", 1),
        ("Which two carrier lines shipped the most containers?", 1),
        # A noun naming only an amount before one a header of names says: the name.
        ("Which container carriers shipped the most?", 1),
    ],
)
def test_a_what_or_which_question_answers_from_the_column_it_names(
    shipments, question, asked
) -> None:
    from knowledge.tables.asked import follows_the_asked_column

    for target in (1, 2, 5):
        candidate = _program(shipments, "argmax", target=target, key=4)
        assert follows_the_asked_column(question, shipments, candidate) is (target == asked)


@pytest.mark.parametrize(
    "question",
    [
        "Who inspected the largest shipment?",  # no "what" or "which": left to the ranker
        "Which one shipped the most containers?",  # "one" names no column
        "What is the largest shipment?",
    ],
)
def test_a_question_that_names_no_column_leaves_any_column(shipments, question) -> None:
    from knowledge.tables.asked import follows_the_asked_column

    for target in (1, 2, 5):
        candidate = _program(shipments, "argmax", target=target, key=4)
        assert follows_the_asked_column(question, shipments, candidate)


def test_a_comparison_that_keeps_every_row_is_not_what_the_question_compares(shipments) -> None:
    """ "more than 6 containers": every Shipment # is over 6, so that reading says nothing."""
    from knowledge.tables.asked import compares_to_some_effect
    from knowledge.tables.programs import Condition

    on_ids = _program(shipments, "count", conditions=(Condition(0, "gt", 6.0, "gt 6"),))
    on_containers = _program(shipments, "count", conditions=(Condition(4, "gt", 6.0, "gt 6"),))
    assert on_ids.result.values == [6.0] and on_containers.result.values == [5.0]
    assert not compares_to_some_effect(shipments, on_ids)
    assert compares_to_some_effect(shipments, on_containers)
    best = followed("How many shipments carried more than 6 containers?", shipments)[0]
    assert best.result.values == [5.0], best.program


def test_how_many_different_things_counts_the_different_cells_of_their_column(shipments) -> None:
    from knowledge.tables.asked import counts_what_it_names

    question = "How many different ports are there?"
    rows = _program(shipments, "count")
    ports = _program(shipments, "distinct", target=2)
    carriers = _program(shipments, "distinct", target=1)
    assert not counts_what_it_names(question, shipments, rows)  # six rows, three ports
    assert counts_what_it_names(question, shipments, ports)
    assert not counts_what_it_names(question, shipments, carriers)
    # Without "different" a count of rows is as likely; a column that repeats no cell (every
    # inspector once would be) counts the same either way.
    assert counts_what_it_names("How many ports are there?", shipments, rows)
    assert counts_what_it_names("How many different shipments are there?", shipments, rows)
    assert followed(question, shipments)[0].result.values == [3.0]


def test_how_many_different_types_counts_the_type_column() -> None:
    bikes = grid(
        table_from_rows(
            ["Stock no.", "Bike", "Type", "Price"],
            [["B-1", "Pioneer", "Hybrid", "£140"], ["B-2", "Rockhopper", "Mountain", "£220"],
             ["B-3", "Kingpin", "Folding", "£95"], ["B-4", "Urban", "Hybrid", "£130"],
             ["B-5", "Speed", "Hybrid", "£110"]],
        ),
        "bikes.html › For sale",
    )  # fmt: skip
    # "types" stems to "typ", Type to "type": the plural's singular names it too.
    assert followed("How many different types of bike are for sale?", bikes)[0].result.values == [
        3.0
    ]


def test_which_two_takes_the_rows_of_the_most_when_the_lead_takes_the_most_itself() -> None:
    couriers = grid(
        table_from_rows(
            ["Courier", "Parcels (2025)", "Fee (%)", "Avg delivery (min)"],
            [["Swiftly", "4200", "25", "31"], ["Parcelo", "6800", "28", "35"],
             ["Zoomer", "5100", "30", "29"], ["Own vans", "1900", "0", "42"]],
        ),
        "couriers.pptx › Courier firms",
    )  # fmt: skip
    best = followed("Which two delivery couriers took the most parcels in 2025?", couriers)[0]
    assert best.result.values == ["Parcelo", "Zoomer"], best.program


def test_how_many_of_an_amount_reads_that_column_and_counts_no_rows(shipments) -> None:
    from knowledge.tables.counted import reads_the_counted_amount
    from knowledge.tables.programs import Condition

    words = "how many containers did shipment 103 carry".split()
    row = (Condition(0, "eq", "103", "103"),)
    assert not reads_the_counted_amount(
        words, shipments, _program(shipments, "count", conditions=row)
    )
    assert reads_the_counted_amount(
        words, shipments, _program(shipments, "values", target=4, conditions=row)
    )
    # A comparison on that column makes it a count of rows; an identifier ("Shipment #") or a
    # noun no numeric column ends with is no amount.
    over = (Condition(4, "gt", 10.0, "gt 10"),)
    more = "how many containers over 10 were shipped".split()
    assert reads_the_counted_amount(more, shipments, _program(shipments, "count", conditions=over))
    for other in ("how many shipments went to porto", "how many ports are there"):
        assert reads_the_counted_amount(other.split(), shipments, _program(shipments, "count"))


def test_how_many_of_a_header_of_two_words_is_no_count_of_rows() -> None:
    from knowledge.tables.counted import reads_the_counted_amount

    depots = grid(
        table_from_rows(
            ["Depot", "City", "Pallet spaces"],
            [["North", "Leeds", "4200"], ["South", "Dover", "6100"], ["East", "Hull", "3300"]],
        ),
        "depots.docx › Depots",
    )
    question = "How many pallet spaces do our depots have between them?"
    count = Candidate(Program("count"), run(Program("count"), depots), {}, 0.5)
    # "pallet spaces": the phrase's last word before the verb names Pallet spaces.
    assert not reads_the_counted_amount(question.lower().rstrip("?").split(), depots, count)
    assert followed(question, depots)[0].result.values == [13600.0]


def test_a_month_and_a_year_said_together_keep_the_rows_of_both(shipments) -> None:
    best = followed("How many shipments were shipped in December 2023?", shipments)[0]
    assert best.result.values == [2.0], best.program
    assert {c.op for c in best.program.conditions} == {"month", "year"}


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("How many shipments carried between 7 and 13 containers?", [3.0]),
        ("How many shipments had between 7 and 13 containers?", [3.0]),
        ("Which shipments carried between 7 and 13 containers?", ["101", "102", "106"]),
    ],
)
def test_a_range_said_of_one_column_keeps_the_rows_within_both_bounds(
    shipments, question, values
) -> None:
    best = followed(question, shipments)[0]
    assert best.result.values == values, best.program
    assert len(best.program.conditions) == 2
    assert {c.column for c in best.program.conditions} == {4}


@pytest.mark.parametrize(
    ("target", "follows"),
    [(0, False), (2, False), (4, True)],  # Shipment # is an identifier, Port no number
)
def test_a_question_that_asks_how_many_is_answered_with_an_amount(
    shipments, target, follows
) -> None:
    from knowledge.tables.asked import answers_with_a_number

    candidate = _program(shipments, "argmin", target=target, key=4)
    for question in (
        "How many shipments carried the fewest containers?",
        "What is the number of shipments with the fewest containers?",
    ):
        assert answers_with_a_number(question, shipments, candidate) is follows
    assert answers_with_a_number(
        "Which shipment carried the fewest containers?", shipments, candidate
    )
    assert answers_with_a_number(question, shipments, _program(shipments, "count"))


def test_a_count_of_no_row_yields_to_a_count_that_keeps_some(shipments) -> None:
    from knowledge.tables.asked import counts_some_rows
    from knowledge.tables.programs import Condition

    nothing = _program(shipments, "count", conditions=(Condition(2, "eq", "faro", "Faro"),))
    some = _program(shipments, "count", conditions=(Condition(2, "eq", "porto", "Porto"),))
    largest = _program(shipments, "argmax", target=2, key=4)
    assert nothing.result.values == [0.0] and some.result.values == [2.0]
    assert counts_some_rows([nothing, largest, some]) == [largest, some]
    # When every count keeps nothing, none misreads more than another: 0 may be the answer.
    assert counts_some_rows([nothing, largest]) == [nothing, largest]


@pytest.mark.parametrize(
    ("question", "values", "words"),
    [
        ("Which shipments have the same carrier as shipment 101?", ["103"], "Took Shipment #"),
        ("What carrier has the same port as shipment 105?", ["CMA CGM"], "Took Carrier"),
        ("How many shipments have the same inspector as shipment 104?", [1.0], "Counted"),
    ],
)
def test_the_same_column_as_a_named_row_reads_the_other_rows_that_share_its_cell(
    shipments, question, values, words
) -> None:
    best = followed(question, shipments)[0]
    assert best.program.op == "same" and best.result.values == values, best.program
    said = in_words(best.program, shipments, best.result)
    assert said.startswith(words) and "the other rows with the same" in said
    assert best.result.rows[0] == 0 + int(question.rsplit(" ", 1)[1].rstrip("?")) - 101


@pytest.mark.parametrize(
    "question",
    [
        "Which carrier shipped from Porto?",  # no "same"
        "Is shipment 101 the same as shipment 103?",  # no column named after "same"
        "Which shipments have the same colour as shipment 101?",  # a column the table lacks
    ],
)
def test_no_same_column_or_no_named_row_builds_no_same_program(shipments, question) -> None:
    from knowledge.tables.asked import same_as
    from knowledge.tables.parser import ranked

    assert same_as(question, shipments, ranked(question, shipments)) is None


@pytest.mark.parametrize(
    ("question", "numbers"),
    [
        ("How many drivers finished in the top ten?", [(10.0, "le")]),
        ("Which clinics are in the top 3 by beds?", [(3.0, "le")]),
        ("How many clinics have between 30 and 90 beds?", [(30.0, "ge"), (90.0, "le")]),
    ],
)
def test_the_top_n_and_a_range_are_bounds(question, numbers) -> None:
    from knowledge.tables.question import read_question

    assert read_question(question).numbers == numbers


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Did shipment 104 land in Porto or Lisbon?", ["Lisbon"]),
        ("Was shipment 105 carried by MSC or Hapag?", ["Hapag"]),
        ("Was shipment 102 inspected by Rita Lopes or the Ana Reis?", ["Ana Reis"]),
    ],
)
def test_a_or_b_is_answered_with_the_one_the_named_row_holds(shipments, question, values) -> None:
    from knowledge.tables.offered import offered_cells

    assert len(offered_cells(question, shipments)[0]) == 2
    best = followed(question, shipments)[0]
    assert best.result.values == values, best.program
    assert best.program.conditions and best.program.op != "more"


def test_a_year_said_as_a_time_is_compared_with_a_column_of_years() -> None:
    from knowledge.tables.asked import compares_years_with_times
    from knowledge.tables.programs import Condition

    engines = grid(
        table_from_rows(
            ["Locomotive", "Works number", "Built"],
            [["Dot", "1920", "1887"], ["Jubilee", "2050", "1911"], ["No.774", "1870", "1921"]],
        ),
        "engines.csv",
    )
    question = "Which locomotive was built after 1915?"
    on_works = Candidate(
        Program("values", target=0, conditions=(Condition(1, "gt", 1915.0, "gt 1915"),)),
        Result(["Dot", "Jubilee"], [0, 1]), {}, 0.5,
    )  # fmt: skip
    on_built = Candidate(
        Program("values", target=0, conditions=(Condition(2, "gt", 1915.0, "gt 1915"),)),
        Result(["No.774"], [2]), {}, 0.5,
    )  # fmt: skip
    assert not compares_years_with_times(question, engines, on_works)
    assert compares_years_with_times(question, engines, on_built)
    # A number said as an amount is any column's to compare.
    assert compares_years_with_times("Which works number is over 1915?", engines, on_works)
    assert followed(question, engines)[0].result.values == ["No.774"]


SEASON = grid(
    table_from_rows(
        ["Week", "Opponent", "Result", "Attendance"],
        [
            ["1", "Otters", "W 21–7", "41,200"],
            ["2", "Comets", "W 14–10", "38,900"],
            ["3", "Harriers", "L 3–17", "45,100"],
            ["4", "Falcons", "W 28–0", "40,300"],
            ["5", "Otters", "W 10–9", "39,800"],
            ["6", "Ravens", "W 24–13", "42,000"],
            ["7", "Comets", "T 7–7", "37,600"],
        ],
    ),
    "season.csv",
)


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # A results column codes each outcome in a letter: "lose" is its L, "wins" its W.
        ("How many games did the team lose?", [1.0]),
        ("What was the total number of wins?", [5.0]),
        ("How many games ended in a tie?", [1.0]),
        # Consecutive: the longest run of wins (weeks 4 to 6), not every win.
        ("How many consecutive wins did the team have?", [3.0]),
        ("What was the longest winning streak?", [3.0]),
    ],
)
def test_outcomes_coded_in_a_letter_are_counted_and_runs_of_them_measured(question, values) -> None:
    best = followed(question, SEASON)[0]
    assert best.result.values == pytest.approx(values), best.program
    assert run(best.program, SEASON).values == best.result.values


def test_a_final_won_is_its_winner_and_one_lost_its_runner_up() -> None:
    from knowledge.tables.question import outcome_codes

    finals = grid(
        table_from_rows(
            ["Outcome", "Date", "Tournament", "Opponent"],
            [
                ["Runner-up", "2009", "Bogotá", "A. Koch"],
                ["Winner", "2010", "Lima", "M. Herazo"],
                ["Winner", "2011", "Quito", "C. Perez"],
                ["Runner-up", "2012", "Cali", "M. Herazo"],
            ],
        ),
        "finals.csv",
    )
    assert outcome_codes("won", finals) == [(0, "winner")]
    assert outcome_codes("lost", finals) == [(0, "runner-up")]
    assert followed("How many finals did she win?", finals)[0].result.values == [2.0]


def test_the_longest_run_reads_its_rows_and_says_so() -> None:
    best = followed("How many consecutive wins did the team have?", SEASON)[0]
    assert best.program.op == "streak"
    assert best.result.rows == [3, 4, 5]
    assert in_words(best.program, SEASON, best.result) == (
        "Counted the longest run of consecutive rows among 5 rows of season.csv where Result "
        "is a win (W)"
    )


def test_a_month_and_a_year_said_together_are_read_by_a_count() -> None:
    games = grid(
        table_from_rows(
            ["Date", "Opponent", "Goals"],
            [
                ["2 August 1998", "Fulham", "1"],
                ["9 August 1998", "Wigan", "2"],
                ["16 September 1998", "Stoke", "0"],
                ["23 September 1998", "Luton", "3"],
                ["30 September 1998", "Bury", "1"],
                ["7 August 1999", "Reading", "2"],
            ],
        ),
        "fixtures.csv",
    )
    best = followed("How many games were played in September 1998?", games)[0]
    assert best.result.values == [3.0], best.program


@pytest.mark.parametrize(
    "question",
    [
        "How many consecutive wins did the team have?",
        "What was their run of wins in a row?",
    ],
)
def test_a_run_of_rows_asked_for_is_the_operation_the_question_asks_for(question) -> None:
    from knowledge.tables.choice import TableChoice
    from knowledge.tables.rules import asks_for_its_operation

    best = followed(question, SEASON)[0]
    assert best.program.op == "streak" and best.result.values == [3.0]
    choice = TableChoice(0, 0, SEASON.label, SEASON, best, 1.0)
    assert asks_for_its_operation(question, choice)


SEASONS = grid(
    table_from_rows(
        ["Year", "Driver", "Constructor"],
        [
            ["1987", "Alain Prost", "Ferrari"],
            ["1988", "Alain Prost", "McLaren"],
            ["1988", "Ayrton Senna", "Ferrari"],
            ["1989", "Nigel Mansell", "Williams"],
        ],
    ),
    "drivers.csv",
)


def test_a_or_b_is_the_one_a_row_holds_with_every_other_name_said() -> None:
    # Prost alone reads his Ferrari year, 1988 alone reads both: only McLaren is in a row with
    # both names.
    from knowledge.tables.offered import OFFERED_RIGHT, offered_row

    question = "Did Alain Prost drive for McLaren or Ferrari in 1988?"
    made = offered_row(question, SEASONS, [])
    assert made is not None and made.result.values == ["McLaren"] and made.result.rows == [1]
    assert made.score == OFFERED_RIGHT
    assert run(made.program, SEASONS).values == ["McLaren"]
    assert followed(question, SEASONS)[0].program == made.program  # the store reads it first
    # Both are his, in some year: the question's names keep no one of them.
    assert offered_row("Did Alain Prost drive for McLaren or Ferrari?", SEASONS, []) is None
    # Neither is in a row with both names.
    assert (
        offered_row("Did Nigel Mansell drive for McLaren or Ferrari in 1988?", SEASONS, []) is None
    )


GAMES = grid(
    table_from_rows(
        ["Date", "Opponent", "Site", "Result"],
        [
            ["September 1", "Delta State", "Home Field", "W 12-0"],
            ["September 8", "at #13 Alabama", "Legion Field", "W 27-24"],
            ["September 15", "at Virginia Tech", "Lane Stadium", "L 7-20"],
            ["September 22", "Florida State", "Home Field", "W 30-3"],
        ],
    ),
    "games.csv",
)


def test_a_or_b_said_as_words_of_cells_is_answered_as_the_cell_writes_it() -> None:
    from knowledge.tables.offered import OFFERED_RIGHT, offered_cells, offered_row

    question = "Did they play against Virginia Tech or Alabama on September 8?"
    assert offered_cells(question, GAMES) == (["virginia tech", "alabama"], 1)
    made = offered_row(question, GAMES, [])
    assert made is not None and made.score == OFFERED_RIGHT
    assert made.result.values == ["Alabama"] and made.result.rows == [1]
    assert followed(question, GAMES)[0].result.values == ["Alabama"]
    # A word the question shares with other rows' cells ("home") does not keep the named row out.
    question = "Did the home team play Virginia Tech or Alabama on September 15?"
    made = offered_row(question, GAMES, [])
    assert made is not None and made.result.values == ["Virginia Tech"]
    # Neither, or both, of the things offered in the rows named: no answer from this rule.
    assert offered_row("Did they play Delta State or Alabama on September 22?", GAMES, []) is None
    assert offered_row("Did they play Virginia Tech or Alabama in September?", GAMES, []) is None


VESSELS = [
    ["Name", "Height (m)", "Weight (t)", "Depth (m)", "Built"],
    ["Aurora", "31", "1200", "6.1", "2004"],
    ["Borealis", "44", "950", "7.4", "2011"],
    ["Corvus", "27", "1800", "5.2", "1998"],
    ["Draco", "38", "700", "8.0", "2016"],
]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Which vessel is the tallest?", ["Borealis"]),
        ("Which vessel is the heaviest?", ["Corvus"]),
        ("Which vessel weighs the most?", ["Corvus"]),
        ("Which is the lightest vessel?", ["Draco"]),
        ("Which vessel has the deepest draught?", ["Draco"]),
    ],
)
def test_a_word_of_degree_orders_by_the_amount_it_implies(question, values) -> None:
    # "Tallest" says no header: it implies Height, as "heaviest" and "lightest" imply Weight.
    vessels = grid(table_from_rows(VESSELS[0], VESSELS[1:]), "fleet.csv")
    assert followed(question, vessels)[0].result.values == values


DEPOTS = [
    ["Depot", "Region", "Docks", "Opened"],
    ["Leeds", "North", "14", "2009"],
    ["Derby", "Midlands", "9", "2012"],
    ["York", "North", "6", "2016"],
    ["Luton", "South", "11", "2019"],
    ["Hull", "North", "8", "2021"],
]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # The rows a condition keeps: their docks added up, not the first one's.
        ("How many docks are there in the North region?", [28.0]),
        ("How many docks do the depots in the North have?", [28.0]),
        # One kept row: its own amount, whichever way it is read.
        ("How many docks does Luton have?", [11.0]),
    ],
)
def test_how_many_of_an_amount_adds_up_the_rows_it_keeps(question, values) -> None:
    depots = grid(table_from_rows(DEPOTS[0], DEPOTS[1:]), "depots.csv")
    assert [float(v) for v in followed(question, depots)[0].result.values] == values


MACHINES = [
    ["Machine", "Maker", "Serviced", "Purchased", "Price"],
    ["Lathe", "Okuma", "2025-09-12", "2019-03-02", "48000"],
    ["Press", "Amada", "2024-02-01", "2022-11-15", "61000"],
    ["Router", "Biesse", "2025-11-30", "2017-06-20", "23000"],
    ["Welder", "Fronius", "2023-05-19", "2021-01-08", "9000"],
]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Which machine was bought most recently?", ["Press"]),
        ("Which machine was bought first?", ["Router"]),
        ("When was the welder bought?", ["2021-01-08"]),
    ],
)
def test_a_verb_reads_the_column_named_for_it(question, values) -> None:
    # "Bought" says no header: it reads Purchased, as "born" reads a Birth column.
    machines = grid(table_from_rows(MACHINES[0], MACHINES[1:]), "machines.csv")
    assert followed(question, machines)[0].result.values == values


BUDGETS = [
    ["Department", "2023", "2024", "2025"],
    ["Legal", "410", "455", "430"],
    ["Finance", "880", "870", "905"],
    ["Research", "1,200", "1,350", "1,520"],
]


@pytest.mark.parametrize(
    ("question", "values", "words"),
    [
        # Growth: the later column minus the earlier, of the one row named.
        (
            "How much did the Research budget grow from 2023 to 2025?",
            [320.0],
            "Subtracted 2023 from 2025 of 1 row of budgets.csv where Department is Research",
        ),
        # A fall: the earlier minus the later.
        ("By how much did the Legal budget fall from 2024 to 2025?", [25.0], ""),
        # A difference: the larger minus the smaller, whichever is said first.
        ("What is the difference between 2024 and 2023 for Finance?", [10.0], ""),
    ],
)
def test_a_change_along_a_row_subtracts_the_two_columns_it_names(question, values, words) -> None:
    budgets = grid(table_from_rows(BUDGETS[0], BUDGETS[1:]), "budgets.csv")
    best = followed(question, budgets)[0]
    assert best.program.op == "change" and best.result.values == values
    if words:
        assert in_words(best.program, budgets, best.result) == words


ORDERS = [
    ["Store", "Web orders", "Phone orders", "Target (units)", "Sold (units)"],
    ["Leeds", "540", "130", "900", "955"],
    ["Derby", "310", "220", "700", "640"],
]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # A comparison of two columns of the named row: the first said minus the second.
        ("How many more web orders than phone orders did Leeds take?", [410.0]),
        ("By how much did units sold exceed the target in Leeds?", [55.0]),
        # "Fewer": the second said minus the first.
        ("How many fewer phone orders than web orders did Derby take?", [90.0]),
    ],
)
def test_more_or_fewer_of_one_column_than_another_in_a_row_is_their_difference(
    question, values
) -> None:
    orders = grid(table_from_rows(ORDERS[0], ORDERS[1:]), "orders.csv")
    best = followed(question, orders)[0]
    assert best.program.op == "change" and best.result.values == values


def test_no_change_without_two_named_columns_and_one_named_row() -> None:
    budgets = grid(table_from_rows(BUDGETS[0], BUDGETS[1:]), "budgets.csv")
    for question in (
        "How much did the Research budget grow in 2025?",  # one column
        "How much did budgets grow from 2023 to 2025?",  # no row named
        "What was the Legal budget in 2023 and 2025?",  # no change asked
    ):
        assert all(c.program.op != "change" for c in followed(question, budgets)), question


SUPPLIERS = [
    ["Supplier", "Rating", "Lead time (days)", "Orders"],
    ["Arden", "4.1", "12", "38"],
    ["Briggs", "4.7", "20", "52"],
    ["Calder", "3.2", "6", "17"],
    ["Dunmore", "4.4", "9", "44"],
    ["Elwood", "3.9", "15", "29"],
]


@pytest.fixture(scope="module")
def suppliers():
    return grid(table_from_rows(SUPPLIERS[0], SUPPLIERS[1:]), "suppliers.csv")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # The best of a rating is its highest, the worst its lowest.
        ("Which supplier has the best rating?", ["Briggs"]),
        ("Who is the supplier with the worst rating?", ["Calder"]),
    ],
)
def test_the_best_of_an_amount_is_its_largest_and_the_worst_its_smallest(
    suppliers, question, values
) -> None:
    assert followed(question, suppliers)[0].result.values == values


@pytest.mark.parametrize(
    ("question", "values", "words"),
    [
        (
            "Which two suppliers have the most orders?",
            ["Briggs", "Dunmore"],
            "Took Supplier of the 2 rows with the most Orders among 5 rows of suppliers.csv",
        ),
        ("What are the three suppliers with the lowest rating?", ["Calder", "Elwood", "Arden"], ""),
        ("Name the 2 suppliers with the longest lead time", ["Briggs", "Elwood"], ""),
        # Said after "our": as many as after "the".
        ("Which are our two busiest suppliers by orders?", ["Briggs", "Dunmore"], ""),
    ],
)
def test_a_question_asking_for_a_number_of_rows_takes_that_many(
    suppliers, question, values, words
) -> None:
    best = followed(question, suppliers)[0]
    assert best.program.op == "top" and best.result.values == values
    if words:
        assert in_words(best.program, suppliers, best.result) == words


def test_a_number_that_names_a_group_or_a_rank_takes_one_row(suppliers) -> None:
    for question in (
        "Which of the two suppliers, Arden or Calder, has the higher rating?",
        "Which of our two suppliers, Arden or Calder, has the higher rating?",
        "Which supplier had the most orders during our two-week sale?",
        "Which supplier has the most orders?",
    ):
        assert followed(question, suppliers)[0].program.op != "top", question


def test_a_comparison_said_before_a_currency_sign_keeps_its_rows() -> None:
    prices = grid(
        table_from_rows(
            ["Course", "Fee"], [["Clay", "€1,200"], ["Glass", "€1,650"], ["Wood", "€900"]]
        ),
        "fees.html",
    )
    best = followed("How many courses cost more than €1,000?", prices)[0]
    assert best.program.op == "count" and best.result.values == [2.0]


def test_a_cell_that_says_no_value_is_no_lookup_s_answer() -> None:
    vans = grid(
        table_from_rows(
            ["Van", "Depot", "Payload (kg)"],
            [["V1", "Leeds", "900"], ["V2", "Leeds", "n/a"], ["V3", "York", "-"]],
        ),
        "vans.md",
    )
    for question in ("What is the payload of van V2?", "What payload does V3 have?"):
        found = followed(question, vans)
        assert all(value not in ("n/a", "-") for c in found for value in c.result.values), question
    assert followed("What is the payload of van V1?", vans)[0].result.values == ["900"]


SITES = [
    ["Site", "Country", "Staff", "Opened"],
    ["Lisbon", "Portugal", "80", "2009"],
    ["Rotterdam", "Netherlands", "45", "2012"],
    ["Kraków", "Poland", "30", "2015"],
    ["Dublin", "Ireland", "25", "2018"],
]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Which sites opened before 2015?", ["Lisbon", "Rotterdam"]),
        ("Which sites opened after 2015?", ["Dublin"]),
        ("How many sites have more than 30 staff?", [2.0]),
    ],
)
def test_a_number_said_with_a_comparison_is_compared_not_matched(question, values) -> None:
    # The cell "2015" (or "30") is not the row asked for: the question compares with it.
    sites = grid(table_from_rows(SITES[0], SITES[1:]), "sites.csv › sites")
    found = followed(question, sites)
    assert found[0].result.values == values, found[0].program
    # No program that follows the question reads the compared number as a cell.
    said = {"2015", "30"}
    assert not any(c.op == "eq" and c.value in said for f in found for c in f.program.conditions), [
        f.program for f in found if any(c.op == "eq" for c in f.program.conditions)
    ]


def test_which_of_two_named_rows_has_more_answers_with_the_column_asked_for() -> None:
    from knowledge.tables.offered import compared_as_asked

    reps = grid(
        table_from_rows(
            ["Rep", "Region", "Q1 sales"],
            [
                ["Ana Ruiz", "North", "420"],
                ["Ben Cole", "South", "510"],
                ["Cy Park", "East", "300"],
            ],
        ),
        "sales.xlsx › Reps",
    )
    question = "Which region sold more in Q1: Ana Ruiz's or Ben Cole's?"
    found = followed(question, reps)
    assert found[0].result.values == ["South"], found[0].program
    # Asked for the rep, the row's own name answers: no other column to take.
    assert compared_as_asked("Who sold more in Q1: Ana Ruiz or Ben Cole?", reps, found) is None
