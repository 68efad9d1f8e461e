"""Each rule of the answer check, on several phrasings of the class of question it is for.

A rule that serves one phrasing and not its siblings fails here. Every registered rule must
have a docstring naming the failure it catches and cases below (the last test holds that).
"""

from __future__ import annotations

import pytest

from queries.answering.checks import check_answer
from queries.answering.checks.rules import DOUBT, NOT_FOUND, RULES
from queries.answering.types import SourceBlock

STEPS = SourceBlock(
    index=1,
    file_name="runbook.md",
    text="1. Announce the rollback.\n2. Freeze the pipeline.\n3. Redeploy the last good tag.",
    section=("Runbook", "Rolling back a deploy"),
    kind="list",
    structure={"items": 3, "numbered": True, "last": 3},
)
LEAVE = SourceBlock(
    index=1,
    file_name="handbook.md",
    text="Full-time employees get 25 days of annual leave per year. Day shift workers get a "
    "meal allowance of EUR 8.",
    section=("Leave",),
)
OFFICE = SourceBlock(
    index=1,
    file_name="offices.md",
    text="The Lisbon office opened in 2014 at Avenida da Liberdade 110. It is led by Rui Costa "
    "and has 64 staff. The office is open from 8:00 to 19:00.",
    section=("Offices", "Lisbon"),
)
RUNBOOK = SourceBlock(
    index=1,
    file_name="runbook.md",
    text="Backups run nightly and are kept for 35 days. A restore takes about 40 minutes.",
    section=("Restoring a database from backup",),
)
VENDOR_ROW = SourceBlock(
    index=1,
    file_name="vendors.csv",
    text="vendor: Northpeak Telecom | service: Company mobile contracts | annual cost eur: 39800",
    kind="row",
    structure={
        "headers": ["vendor", "service", "annual cost eur"],
        "cells": ["Northpeak Telecom", "Company mobile contracts", "39800"],
        "row": 1,
    },
)
MEALS = SourceBlock(
    index=1,
    file_name="expenses.html",
    text="Photograph the receipt within 7 days. Meals are capped at EUR 45 a day.",
    section=("Expenses",),
)
DEPOT_ROW = SourceBlock(
    index=1,
    file_name="depots.csv",
    text="depot: Harwich | staff: 64 | opened: 2014 | lead: Rui Costa",
    kind="row",
    structure={
        "headers": ["depot", "staff", "opened", "lead"],
        "cells": ["Harwich", "64", "2014", "Rui Costa"],
        "row": 2,
    },
)
TICKET_ROW = SourceBlock(
    index=1,
    file_name="support.xlsx",
    text="Ticket: T-230 | Customer: Atlas Energy | Priority: Low | Agent: Jonas Weber",
    kind="row",
    section=["Tickets"],
    structure={
        "caption": "support: Tickets",
        "headers": ["Ticket", "Customer", "Priority", "Agent"],
        "cells": ["T-230", "Atlas Energy", "Low", "Jonas Weber"],
        "row": 6,
    },
)
VAN_ROW = SourceBlock(
    index=1,
    file_name="vans.md",
    text="Van: V2 | Depot: Leeds | Payload (kg): n/a | Electric: No | Service due: tbd",
    kind="row",
    structure={
        "headers": ["Van", "Depot", "Payload (kg)", "Electric", "Service due"],
        "cells": ["V2", "Leeds", "n/a", "No", "tbd"],
        "row": 2,
    },
)
STAFFING_PAGE = SourceBlock(
    index=1,
    file_name="staffing.pdf",
    text="Depot staffing against target, May 2026\nStaffing per depot against its target.",
)
STAFFING_ROWS = SourceBlock(
    index=2,
    file_name="staffing.pdf",
    text="depot: Harwich | target: 70 | staff: 64\ndepot: Leeds | target: 40 | staff: 44",
    kind="table",
    structure={
        "headers": ["depot", "target", "staff"],
        "rows": [["Harwich", "70", "64"], ["Leeds", "40", "44"]],
    },
)
STAFFING_ANSWER = (
    "Depot staffing against target, May 2026 Staffing per depot against its target. [1]"
)
ENGINEERS = SourceBlock(
    index=1,
    file_name="notes.txt",
    text="The Porto team has grown from 5 to 9 engineers since the hiring freeze was lifted.",
)


# How many chunks hold each stem in the searched knowledge bases: the near misses' modifiers
# ("sabbatical", "parental") are in no document.
NEAR_MISS_STATS = {
    "chunks": 40,
    "df": {"sabbat": 0, "parent": 0, "overnight": 0, "leav": 6, "day": 9, "employe": 5},
}


# The Porto passage holds the questions' common words; the rare ones it lacks ("ledger
# reconciliation", "fraud detection", "checkout tokenisation") weigh a little over half the
# question.
COVERAGE_STATS = {
    "chunks": 40,
    "df": {
        "engin": 5, "porto": 5, "team": 10, "ledger": 1, "reconcili": 1, "fraud": 1,
        "detect": 1, "checkout": 1, "tokenis": 1,
    },
}  # fmt: skip
# "surrender", "concede" and "yield" are the questions' own words, in no document.
ABSENT_STATS = {
    "chunks": 10,
    "df": {"surrend": 0, "conced": 0, "yield": 0, "point": 3, "defens": 2},
}


def findings(question, answer, blocks, stats=None):
    check = check_answer(question, answer, blocks, term_stats=stats)
    return check, {(finding.rule, finding.severity) for finding in check.findings}


# (rule name, question, answer, blocks, expected severity or claim problem)
CASES = {
    "list_item": [
        ("What is step 3 of rolling back a deploy?", "Freeze the pipeline. [1]", "problem"),
        ("What's the third step of rolling back a deploy?", "Freeze the pipeline. [1]", "problem"),
        (
            "What is the last step of rolling back a deploy?",
            "Announce the rollback. [1]",
            "problem",
        ),
        ("What is step 9 of rolling back a deploy?", "Redeploy the last good tag. [1]", NOT_FOUND),
        (
            "What is the 9th step of rolling back a deploy?",
            "Redeploy the last good tag. [1]",
            NOT_FOUND,
        ),
    ],
    "refusal": [
        ("How much leave do I get?", "The documents do not mention annual leave.", NOT_FOUND),
        ("How much leave do I get?", "I could not find how much leave you get.", NOT_FOUND),
        ("How much leave do I get?", "Leave is not specified in the provided context.", NOT_FOUND),
    ],
    "no_evidence": [
        ("What colour are bananas?", "Bananas are yellow.", NOT_FOUND),
        ("Who founded the company?", "It was founded by Jane Roe.", NOT_FOUND),
        ("When did the office open?", "The office opened in 1999.", NOT_FOUND),
    ],
    "names": [
        ("When did the Barcelona office open?", "The Lisbon office opened in 2014. [1]", NOT_FOUND),
        ("Who leads the Madrid office?", "It is led by Rui Costa. [1]", NOT_FOUND),
        ("How many staff does the Berlin office have?", "It has 64 staff. [1]", NOT_FOUND),
    ],
    "near_miss": [
        (
            "How many days of sabbatical leave do employees get?",
            "Full-time employees get 25 days of annual leave per year. [1]",
            NOT_FOUND,
        ),
        (
            "How many days of parental leave do employees get?",
            "Full-time employees get 25 days of annual leave per year. [1]",
            NOT_FOUND,
        ),
        (
            "How much sabbatical leave can a full-time employee take?",
            "Full-time employees get 25 days of annual leave per year. [1]",
            NOT_FOUND,
        ),
    ],
    "thing_asked": [
        (
            "What is the salary range for a software engineer in Porto?",
            "The Porto team has grown from 5 to 9 engineers since the hiring freeze was lifted. [1]",
            DOUBT,
        ),
        (
            "What is the pension scheme for engineers in Porto?",
            "The Porto team has grown from 5 to 9 engineers since the hiring freeze was lifted. [1]",
            DOUBT,
        ),
        (
            "What was the bonus plan of the Porto engineers?",
            "The Porto team has grown from 5 to 9 engineers since the hiring freeze was lifted. [1]",
            DOUBT,
        ),
    ],
    "answer_value": [
        # The value the question asks for is not in the first sentence, though a passage about
        # it holds one: unverified.
        ("Who leads the Lisbon office?", "The Lisbon office opened in 2014. [1]", DOUBT),
        ("When did the Lisbon office open?", "It is led by Rui Costa and has 64 staff. [1]", DOUBT),
        ("How many staff does the Lisbon office have?", "It is led by Rui Costa. [1]", DOUBT),
        # A value of the type, but said of something else in the same passage.
        (
            "How long does it take to restore the database from a backup?",
            "Backups run nightly and are kept for 35 days. [1]",
            DOUBT,
        ),
        (
            "How long does a database restore take?",
            "Backups run nightly and are kept for 35 days. [1]",
            DOUBT,
        ),
    ],
    "absent_words": [
        (
            "How many points did the defense surrender?",
            "The defense gave up just 308 points. [1]",
            DOUBT,
        ),
        (
            "How many points did the defense concede?",
            "The defense gave up just 308 points. [1]",
            DOUBT,
        ),
        (
            "How many points did the defense yield?",
            "The defense gave up just 308 points. [1]",
            DOUBT,
        ),
    ],
    "limit": [
        (
            "How much can I spend on a company mobile phone?",
            "39800 is the annual cost eur for Northpeak Telecom [1].",
            NOT_FOUND,
        ),
        (
            "How much may we claim for company mobile contracts?",
            "39800 is the annual cost eur for Northpeak Telecom [1].",
            NOT_FOUND,
        ),
        (
            "How much am I allowed to spend on a company mobile contract?",
            "39800 is the annual cost eur for Northpeak Telecom [1].",
            NOT_FOUND,
        ),
    ],
    # One row read out for a question about several: the answer may be a true cell of the
    # row and still not what is asked.
    "one_row_for_many": [
        ("Which depot has the most staff?", "64 is the staff for Harwich [1].", DOUBT),
        ("Which depot opened first?", "2014 is the opened for Harwich [1].", DOUBT),
        ("Which depot has the same staff as Harwich?", "64 is the staff for Harwich [1].", DOUBT),
        ("How many depots opened after 2010?", "2014 is the opened for Harwich [1].", DOUBT),
        ("What is the total staff of the depots?", "64 is the staff for Harwich [1].", DOUBT),
    ],
    "column_asked": [
        # The row of a ticket has no team, office or region: its Agent is no answer.
        ("Which team is the agent of ticket T-230 on?", "Jonas Weber [1].", DOUBT),
        ("Which department does ticket T-230 belong to?", "Jonas Weber [1].", DOUBT),
        ("In which city was ticket T-230 handled?", "Jonas Weber handled T-230 [1].", DOUBT),
        ("What region is ticket T-230 from?", "Atlas Energy [1].", DOUBT),
        # "Who is the <role> of ...": a row with no column of the role gives another's cell.
        ("Who is the caterer for ticket T-230?", "The caterer is Atlas Energy [1].", DOUBT),
        # A thing of several words is its last: a Customer column holds no customer contact.
        (
            "Who is the customer contact for ticket T-230?",
            "The customer contact is Jonas Weber [1].",
            DOUBT,
        ),
    ],
    # A cell that says the table does not know ("n/a", "-", "tbd") is no answer.
    "no_value_given": [
        ("What is the payload of van V2?", "n/a is the payload (kg) for V2 [1].", DOUBT),
        ("What payload does van V2 have?", "Probably n/a [1].", DOUBT),
        ("When is van V2's service due?", "TBD [1].", DOUBT),
    ],
    # A "which <things>" answer naming none of the things the passages' table lists: the
    # page's title and first sentence restate the question.
    "items_asked": [
        ("Which depots missed their staffing target?", STAFFING_ANSWER, DOUBT),
        ("Which depots are below target?", STAFFING_ANSWER, DOUBT),
        ("What depot is furthest below its staffing target?", STAFFING_ANSWER, DOUBT),
    ],
    "coverage": [
        (
            "How many engineers are on the Porto ledger reconciliation team?",
            "The Porto team has grown from 5 to 9 engineers since the hiring freeze was lifted. [1]",
            DOUBT,
        ),
        (
            "How many engineers does the Porto fraud detection team have?",
            "The Porto team has grown from 5 to 9 engineers since the hiring freeze was lifted. [1]",
            DOUBT,
        ),
        (
            "How many engineers are in the Porto checkout tokenisation team?",
            "The Porto team has grown from 5 to 9 engineers since the hiring freeze was lifted. [1]",
            DOUBT,
        ),
    ],
}
BLOCKS = {
    "list_item": [STEPS],
    "refusal": [LEAVE],
    "no_evidence": [LEAVE],
    "names": [OFFICE],
    "near_miss": [LEAVE],
    "thing_asked": [ENGINEERS],
    "answer_value": [OFFICE],
    "coverage": [ENGINEERS],
    "limit": [VENDOR_ROW],
    "one_row_for_many": [DEPOT_ROW],
    "column_asked": [TICKET_ROW],
    "no_value_given": [VAN_ROW],
    "items_asked": [STAFFING_PAGE, STAFFING_ROWS],
    "absent_words": [
        SourceBlock(index=1, file_name="x.txt", text="The defense gave up just 308 points.")
    ],
}


@pytest.mark.parametrize(
    ("rule", "question", "answer", "expected"),
    [(rule, *case) for rule, cases in CASES.items() for case in cases],
)
def test_each_rule_catches_its_class_of_question_in_several_phrasings(
    rule, question, answer, expected
):
    blocks = [RUNBOOK] if "restore" in question else BLOCKS[rule]
    stats = {"near_miss": NEAR_MISS_STATS, "absent_words": ABSENT_STATS, "coverage": COVERAGE_STATS}
    stats = stats.get(rule)
    check, found = findings(question, answer, blocks, stats)
    if expected == "problem":
        assert check.unsupported and "not item" in check.unsupported[0].problem, check.issues
    elif expected == DOUBT:
        assert (rule, DOUBT) in found and check.doubtful, (found, check.issues)
    else:
        assert (rule, expected) in found, (found, check.issues)
    assert check.issues  # a reader is told why


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Who leads the Lisbon office?", "The Lisbon office is led by Rui Costa. [1]"),
        ("Who runs the Lisbon office?", "It is led by Rui Costa and has 64 staff. [1]"),
        ("When did the Lisbon office open?", "The Lisbon office opened in 2014. [1]"),
        ("In which year did the Lisbon office open?", "The Lisbon office opened in 2014. [1]"),
        ("How many staff does the Lisbon office have?", "It has 64 staff. [1]"),
        ("How many people work at the Lisbon office?", "It has 64 staff. [1]"),
        ("Where is the Lisbon office?", "The Lisbon office is at Avenida da Liberdade 110. [1]"),
        ("How long does a database restore take?", "A restore takes about 40 minutes. [1]"),
        ("What step comes third when rolling back a deploy?", "Redeploy the last good tag. [1]"),
        ("How much can I spend on meals?", "Meals are capped at EUR 45 a day. [1]"),
        ("How much may I claim for a meal?", "Meals are capped at EUR 45 a day. [1]"),
        # A count asked of the row the question names is that row's to answer.
        ("How many staff does the Harwich depot have?", "64 is the staff for Harwich [1]."),
        ("Who leads the Harwich depot?", "Rui Costa is the lead for Harwich [1]."),
        # The thing asked is a column of the row (or the row's own kind, its caption's).
        ("Which customer opened ticket T-230?", "Atlas Energy opened T-230 [1]."),
        ("Which agent handled ticket T-230?", "Jonas Weber handled T-230 [1]."),
        ("What priority does ticket T-230 have?", "Low is the priority of T-230 [1]."),
        ("Who is the agent for ticket T-230?", "Jonas Weber is the agent for T-230 [1]."),
        # A general last word ("level", "status") is said by the words before it.
        ("What is the priority level of ticket T-230?", "Low is the priority of T-230 [1]."),
        ("What is the priority status of ticket T-230?", "Low is the priority of T-230 [1]."),
        # "Which support agent handles …": the Agent column says the thing asked.
        ("Which support agent handles ticket T-230?", "Jonas Weber handles T-230 [1]."),
        # A "which" answer that names one of the things the table lists.
        ("Which depots missed their staffing target?", "Harwich [2]."),
        ("Which depots are under their target?", "Harwich [2]."),
        # A cell that holds a value is an answer; "No" is one.
        ("Which depot is van V2 at?", "Leeds is the depot for V2 [1]."),
        ("Is van V2 electric?", "No, V2 is not electric [1]."),
    ],
)
def test_an_answer_that_gives_what_is_asked_from_its_passage_passes_every_rule(question, answer):
    blocks = (
        [DEPOT_ROW] if "Harwich" in question
        else [TICKET_ROW] if "T-230" in question
        else [VAN_ROW] if "V2" in question
        else [STAFFING_PAGE, STAFFING_ROWS] if "target" in question
        else [RUNBOOK] if "restore" in question
        else [STEPS] if "deploy" in question
        else [MEALS] if "meal" in question
        else [OFFICE]
    )  # fmt: skip
    check, _ = findings(question, answer, blocks)
    assert check.sufficient and not check.doubtful and not check.unsupported, check.issues


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # The sentence says "keep"; the heading it answers says "cancel".
        ("How long is a customer's data kept after they cancel?", True),
        ("How long is our data kept once we cancel the plan?", True),
        # The heading alone says the verb, the sentence none: a value said of something else.
        ("How long does it take to cancel an account?", False),
    ],
)
def test_a_sentence_may_leave_the_verbs_of_a_date_or_duration_to_its_heading(question, expected):
    block = SourceBlock(
        index=1,
        file_name="faq.html",
        text="We keep your data for 90 days after the end of your subscription.",
        section=("FAQ", "How long do you keep our data after we cancel?"),
    )
    check, found = findings(question, "We keep your data for 90 days. [1]", [block])
    flagged = any(rule == "answer_value" for rule, _ in found)
    assert (not flagged) is expected, (found, check.issues)


def test_a_word_no_document_uses_leaves_the_answer_unverified_but_is_not_weighed_in_aboutness():
    block = SourceBlock(index=1, file_name="x.txt", text="The defense gave up just 308 points.")
    stats = {"chunks": 10, "df": {"surrend": 0, "point": 3, "defens": 2}}
    check, found = findings(
        "How many points did the defense surrender?", "The defense gave up just 308 points. [1]",
        [block], stats,
    )  # fmt: skip
    assert check.sufficient and check.doubtful and ("absent_words", DOUBT) in found
    assert check.issues == ['No document mentions "surrender".']


def test_no_passage_about_the_question_makes_the_answer_not_found_whatever_it_quotes():
    unrelated = SourceBlock(
        index=1,
        file_name="Warsaw-3.txt",
        text="The city has a population of 1.7 million and 18 districts, founded in 1300.",
    )
    for question in (
        "How many touchdowns did the Broncos score in Super Bowl 50?",
        "When did Nikola Tesla move to New York?",
        "Who designed the Eiffel Tower?",
    ):
        check, found = findings(question, f"{unrelated.text} [1]", [unrelated])
        assert not check.sufficient, (question, check.issues)


def test_every_registered_rule_says_what_it_catches_and_has_cases_here():
    for rule in RULES:
        assert rule.name and (type(rule).__doc__ or "").strip(), type(rule).__name__
        assert len(CASES.get(rule.name, [])) >= 3, rule.name
    assert len({rule.name for rule in RULES}) == len(RULES)
