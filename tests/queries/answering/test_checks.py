"""The deterministic check every answer passes: each claim supported by its passage, and the
question answered at all."""

from __future__ import annotations

import pytest

from queries.answering.checks import check_answer, not_found_answer, question_names
from queries.answering.types import SourceBlock

LEAVE = SourceBlock(
    index=1,
    file_name="policy.md",
    text="Full-time employees get 25 working days of annual leave per calendar year.",
    section=("Workplace policy", "Annual leave", "Entitlement"),
)
HOTELS = SourceBlock(
    index=2,
    file_name="travel.pdf",
    text="Book a hotel at or below the nightly cap for the city. The cap in Lisbon is EUR 140.",
    section=("Hotels",),
)
RELEASE = SourceBlock(
    index=3,
    file_name="release-notes.md",
    text="- Route optimiser (beta): orders a technician's day to minimise driving time.",
    section=("Dispatch release notes", "v3.2.0 — 17 September 2024", "New"),
    kind="list",
)
BLOCKS = [LEAVE, HOTELS, RELEASE]
STATS = {"chunks": 100, "df": {"leav": 9, "annual": 4, "day": 20, "hotel": 3, "cap": 2}}


def test_a_quoted_claim_with_its_marker_is_supported() -> None:
    check = check_answer(
        "How many days of annual leave do I get?",
        "Full-time employees get 25 working days of annual leave per calendar year. [1]",
        BLOCKS,
        term_stats=STATS,
    )

    assert not check.unsupported and check.sufficient and not check.issues


def test_a_claim_without_a_marker_gets_the_marker_of_the_passage_that_supports_it() -> None:
    check = check_answer(
        "What is the hotel cap in Lisbon?",
        "The nightly cap for a hotel in Lisbon is EUR 140.",
        BLOCKS,
    )

    assert check.answer == "The nightly cap for a hotel in Lisbon is EUR 140. [2]"
    assert check.markers_added == 1 and check.supporting == [2] and not check.unsupported


@pytest.mark.parametrize(
    "answer",
    [
        "Is the nightly cap in Lisbon EUR 140? [2].",
        "The cap in Lisbon is EUR 140. [2]",
        "The cap in Lisbon is EUR 140 a night, per the travel.pdf. [2].",
    ],
)
def test_a_marker_after_the_sentences_end_cites_that_sentence(answer) -> None:
    """The sentence split leaves "[2]." alone after a "?" or a full stop: it still cites the
    sentence before it, which is checked against [2] and given no second marker."""
    check = check_answer("What is the hotel cap in Lisbon?", answer, BLOCKS)

    assert check.answer == answer and check.markers_added == 0
    assert [claim.cited for claim in check.claims] == [[2]]


def test_a_lone_marker_cites_only_the_claim_just_before_it() -> None:
    """A marker after a sentence that is no claim (a refusal) cites nothing before it: the
    claim before the refusal is given its own marker."""
    check = check_answer(
        "What is the hotel cap in Lisbon?",
        "The cap in Lisbon is EUR 140. The documents do not mention Porto. [2].",
        BLOCKS,
    )

    assert check.markers_added == 1
    assert check.answer.startswith("The cap in Lisbon is EUR 140. [2]")


def test_the_section_path_frames_a_claim() -> None:
    check = check_answer(
        "What did v3.2.0 add?",
        "v3.2.0 — 17 September 2024: Route optimiser (beta): orders a technician's day to "
        "minimise driving time. [3]",
        BLOCKS,
    )

    assert not check.unsupported and check.sufficient


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        # A number the passage does not state is never supported, however close the words.
        (
            "Full-time employees get 28 working days of annual leave per calendar year. [1]",
            "Not supported by [1]",
        ),
        ("The cap in Lisbon is EUR 140. [1]", "Not supported by [1]"),
        ("The cap in Lisbon is EUR 140. [7]", "does not exist [7]"),
        ("The CEO approved a bonus for every employee.", "No source supports it"),
    ],
)
def test_a_claim_no_passage_supports_is_flagged(answer, problem) -> None:
    check = check_answer("What is the cap?", answer, BLOCKS)

    assert len(check.unsupported) == 1 and problem in check.issues[0]


def test_a_near_miss_modifier_is_not_found_not_answered() -> None:
    check = check_answer(
        "How many days of sabbatical leave can I take?",
        "Full-time employees get 25 working days of annual leave per calendar year. [1]",
        BLOCKS,
        term_stats={**STATS, "df": {**STATS["df"], "sabbat": 0}},
    )

    assert check.contrasts == [("sabbatical leave", "annual leave")]
    assert not check.sufficient
    assert 'The passages speak of "annual leave", not "sabbatical leave".' in check.issues


def test_a_name_the_passages_never_mention_means_they_are_about_something_else() -> None:
    check = check_answer(
        "What is the nightly hotel cap in Barcelona?", "The cap in Lisbon is EUR 140. [2]", BLOCKS
    )

    assert check.unnamed == ["Barcelona"] and not check.sufficient


def test_a_version_must_be_the_one_asked_about() -> None:
    asked = "What did Dispatch v3.5.0 add?"
    answer = "Route optimiser (beta): orders a technician's day to minimise driving time. [3]"

    assert check_answer(asked, answer, BLOCKS).unnamed == ["3.5.0"]
    assert check_answer(asked.replace("3.5.0", "3.2.0"), answer, BLOCKS).sufficient


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("How many forced fumbles did Thomas Davis have?", ["Thomas Davis"]),
        ("Which French king issued this declaration?", []),  # a demonym describes
        ("What part of Earth's rainforests does Munich fund?", ["Munich"]),  # Earth: common
        ("What changed in v3.4.0 of Dispatch?", ["Dispatch", "3.4.0"]),
        ("Who runs the Porto de Leixões terminal?", ["Porto de Leixões"]),
        ("Who runs the Bank of America tower?", []),  # common words, each of them
    ],
)
def test_the_names_a_question_asks_about(question, names) -> None:
    assert question_names(question) == names


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("Thomas Davis", "Davis compiled four forced fumbles."),
        ("Brazil", "deforestation in the Brazilian Amazon"),
        ("ARPNET", "ARPANET and SITA became operational in 1969."),
        ("ABC", "American Broadcasting Company hired a designer."),
    ],
)
def test_a_name_is_found_in_another_spelling(name, text) -> None:
    block = SourceBlock(index=1, file_name="x.txt", text=text)

    check = check_answer(f"What about {name} then?", f"{text} [1]", [block])

    assert check.unnamed == []


def test_a_how_many_question_needs_a_quantity_in_its_answer() -> None:
    block = SourceBlock(
        index=1, file_name="policy.md", text="Teams have a separate budget for leaving gifts."
    )
    asked = "How much is the budget for leaving gifts?"

    assert check_answer(
        asked, "Teams have a separate budget for leaving gifts. [1]", [block]
    ).unfitting
    assert not check_answer(
        "Who pays for leaving gifts?",
        "Teams have a separate budget for leaving gifts. [1]",
        [block],
    ).unfitting


def test_an_answer_that_says_the_documents_do_not_say_is_taken_at_its_word() -> None:
    check = check_answer(
        "What is the parental leave policy?", "The documents do not mention parental leave.", BLOCKS
    )

    assert check.refusal and not check.sufficient


def test_a_word_no_document_uses_leaves_the_answer_unverified_not_unanswered() -> None:
    # "surrender" for "gave up": a paraphrase, not a near miss.
    block = SourceBlock(index=1, file_name="x.txt", text="The defense gave up just 308 points.")
    check = check_answer(
        "How many points did the defense surrender?",
        "The defense gave up just 308 points. [1]",
        [block],
        term_stats={"chunks": 10, "df": {"surrend": 0, "point": 3, "defens": 2}},
    )

    assert check.absent == ["surrender"] and check.sufficient and check.doubtful


def test_the_not_found_answer_names_what_was_asked_and_the_closest_passages() -> None:
    text = not_found_answer(
        "What is the parental leave policy?",
        [("policy.md", ["Leave", "Annual leave"]), ("faq.html", [])],
    )

    assert text == (
        "I could not find the parental leave policy in the selected knowledge bases.\n\n"
        "The closest passages, which do not answer it:\n"
        "- [1] policy.md › Leave › Annual leave\n- [2] faq.html"
    )
    assert not_found_answer("Who approved it?", []) == (
        "I could not find an answer to “Who approved it?” in the selected knowledge bases."
    )


def test_a_bare_cited_value_is_a_claim_its_passage_must_hold() -> None:
    assert not check_answer("What is the hotel cap in Lisbon?", "EUR 140 [2]", BLOCKS).unsupported
    assert check_answer("What is the hotel cap in Lisbon?", "EUR 150 [2]", BLOCKS).unsupported


STEPS = SourceBlock(
    index=1,
    file_name="runbook.md",
    text="1. Announce the rollback.\n2. Freeze the pipeline.\n3. Redeploy the last good tag.",
    section=("Runbook", "Rolling back a deploy"),
    kind="list",
    structure={"items": 3, "numbered": True, "last": 3},
)


def test_an_answer_to_step_n_must_give_step_n_of_the_list_it_cites() -> None:
    asked = "What is step 3 of rolling back a deploy?"

    right = check_answer(asked, "Redeploy the last good tag. [1]", [STEPS])
    wrong = check_answer(asked, "Freeze the pipeline. [1]", [STEPS])

    assert not right.unsupported and right.sufficient
    assert wrong.unsupported[0].problem == "Gives item 2 of the list, not item 3"


def test_a_step_past_the_end_of_the_list_it_cites_is_not_found() -> None:
    check = check_answer(
        "What is step 9 of rolling back a deploy?", "Redeploy the last good tag. [1]", [STEPS]
    )

    assert not check.sufficient
    assert "The list has 3 items: there is no item 9." in check.issues


def test_a_bare_value_without_a_marker_gets_the_marker_of_the_passage_that_holds_it() -> None:
    check = check_answer("What is the hotel cap in Lisbon?", "EUR 140", BLOCKS)

    assert check.answer == "EUR 140 [2]" and check.sufficient and not check.unsupported
    named = check_answer("Where is the cap EUR 140?", "Lisbon", BLOCKS)
    assert named.answer == "Lisbon [2]" and not named.unsupported


def test_an_answer_about_the_question_s_other_words_does_not_answer_what_is_asked() -> None:
    # "salary range" is what is asked; the passage is about "engineers in Porto".
    block = SourceBlock(
        index=1,
        file_name="notes.txt",
        text="The Porto team has grown from 5 to 9 engineers since the hiring freeze was lifted.",
    )
    asked = "What is the salary range for a software engineer in Porto?"
    answer = (
        "The Porto team has grown from 5 to 9 engineers since the hiring freeze was lifted. [1]"
    )
    stats = {"chunks": 50, "df": {"salari": 2, "rang": 1, "softwar": 3, "engin": 6, "porto": 9}}

    check = check_answer(asked, answer, [block], term_stats=stats)
    assert check.unasked == ["salary", "range"] and not check.sufficient
    # A word no searched document uses is the question's own wording ("nickname"), not proof
    # that the documents are silent: the answer stays, unverified.
    stats["df"]["salari"] = 0
    check = check_answer(asked, answer, [block], term_stats=stats)
    assert check.unasked == [] and check.sufficient and check.doubtful


def test_how_long_an_action_takes_is_not_answered_by_another_duration() -> None:
    block = SourceBlock(
        index=1,
        file_name="runbook.md",
        text="Backups run nightly and are kept for 35 days. A restore takes about 40 minutes.",
        section=("Restoring a database from backup",),
    )
    asked = "How long does it take to restore the database from a backup?"

    assert check_answer(
        asked, "Backups run nightly and are kept for 35 days. [1]", [block]
    ).unfitting
    assert not check_answer(asked, "A restore takes about 40 minutes. [1]", [block]).unfitting


def test_how_much_money_needs_an_amount_of_money() -> None:
    block = SourceBlock(
        index=1,
        file_name="expenses.html",
        text="Photograph the receipt within 7 days. Meals are capped at EUR 45 a day.",
    )

    asked = "How much can I spend on a company mobile phone?"
    assert check_answer(asked, "Photograph the receipt within 7 days. [1]", [block]).unfitting
    asked = "How much can I spend on meals?"
    assert not check_answer(asked, "Meals are capped at EUR 45 a day. [1]", [block]).unfitting
