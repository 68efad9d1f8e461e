"""The word lists are data files that say where they came from, and the code reads each."""

from __future__ import annotations

import pytest

from queries.answering import lexicon
from queries.answering.frame import frame_question
from queries.answering.values import values

FILES = sorted(path.stem for path in lexicon.WORDS_DIR.glob("*.txt"))


@pytest.mark.parametrize("name", FILES)
def test_each_word_list_says_where_it_came_from_and_holds_entries(name):
    assert len(lexicon.sources()[name]) > 20, f"{name}.txt has no source line"
    lines = (lexicon.WORDS_DIR / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    entries = [line.strip().lower() for line in lines if line.strip() and line[0] != "#"]
    assert len(entries) >= 3, f"{name}.txt holds almost nothing"
    repeated = sorted({entry for entry in entries if entries.count(entry) > 1})
    assert not repeated, f"{name}.txt repeats {repeated}"


def test_the_answer_type_nouns_decide_the_type_of_what_which_questions():
    mapping = lexicon.mapping("answer_type_nouns")
    assert mapping["length"] == "number" and mapping["email address"] == "name"
    # The list wins over the nearest prototype: a length is a number, not a length of time.
    assert frame_question("What is the length of the Rhine?").answer_type == "number"
    assert frame_question("What is the email address of the IT desk?").answer_type == "name"


def test_time_units_make_a_duration_and_limit_words_make_a_limit():
    found = [value.text for value in values("A restore takes about 40 minutes.", "duration")]
    assert any("40 minutes" in text for text in found), found
    assert not values("The office opened in 2014.", "duration")
    assert frame_question("How much can I spend on meals?").constraint("limit")
    assert not frame_question("How much did we spend on meals?").constraint("limit")


def test_every_word_list_is_read_by_the_code():
    from pathlib import Path

    code = "\n".join(
        path.read_text(encoding="utf-8") for path in Path(lexicon.__file__).parent.rglob("*.py")
    )
    for name in FILES:
        assert f'"{name}"' in code, f"no code reads {name}.txt"


def test_the_copy_of_spacy_s_stop_words_is_spacy_s():
    from spacy.lang.en.stop_words import STOP_WORDS

    assert lexicon.words("spacy_stop_words") == frozenset(STOP_WORDS)
