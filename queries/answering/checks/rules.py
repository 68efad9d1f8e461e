"""The rules every answer passes, whatever wrote it: one class each, in one registered list.

Each rule reads the question's frame, the answer's claims and the passages, and adds findings:
`NOT_FOUND` when the documents do not answer the question (the answer card says so and lists
the closest passages), `DOUBT` when the answer may miss it (shown unverified). Claims a passage
does not support are the claims module's business (`claims.py`); a rule may add a problem to
a claim too (`ListItemAsked`). Each rule's docstring names the failure it catches; its tests
ask several phrasings of its class of question (tests/queries/answering/test_rules.py).
"""

from __future__ import annotations

import re

from knowledge.chunk_kinds import KIND_LIST, KIND_ROW, KIND_TABLE
from knowledge.tables.rules import asks_across_rows, asks_for_a_computation
from providers.tokenize import bm25_tokens
from queries.answering.checks import subject
from queries.answering.checks.items import ItemsAsked
from queries.answering.checks.lists import list_items
from queries.answering.checks.missing import NoValueGiven
from queries.answering.checks.reading import Reading
from queries.answering.checks.result import DOUBT, NOT_FOUND, Rule
from queries.answering.lexicon import words
from queries.answering.sentences import split_sentences
from queries.answering.types import SourceBlock
from queries.answering.values import holds, values

# Below this share of the question's words (by weight) in the passages an answer rests on,
# the answer is left unverified: they may be about something else.
COVERAGE_MIN = 0.5

# The answer types only a quantity answers.
QUANTITIES = frozenset({"number", "amount", "duration"})
_TYPE_WORDS = {
    "person": "person or organisation",
    "organisation": "organisation",
    "place": "place",
    "date": "date",
    "duration": "length of time",
    "number": "number",
    "amount": "amount",
    "name": "name",
}


class ListItemAsked(Rule):
    """ "Step 3" answered with step 4, "the step after X" answered with X itself, or step 9
    of an eight-step list answered at all.

    A claim that repeats another item of the list it cites better than the item asked for
    gets a problem; a list known to end before that item makes the answer not found.
    """

    name = "list_item"

    def apply(self, reading: Reading) -> None:
        asked = reading.frame.constraint("item")
        relative = reading.frame.constraint("relative")
        if asked is None and relative is None:
            return
        for claim in reading.result.claims:
            block = reading.blocks.get(claim.supported_by or (claim.cited[0] if claim.cited else 0))
            if block is None or block.kind != KIND_LIST:
                continue
            structure = block.structure or {}
            items = list_items(block.text, structure)
            total = int(structure.get("last") or 0)
            if asked is not None:
                wanted = total if asked.get("last") else int(asked.get("number") or 0)
            else:
                anchor = _best_item(relative["anchor"], items)
                if anchor is None:
                    continue
                wanted = anchor + (1 if relative["side"] == "after" else -1)
            if wanted not in items:
                if structure.get("numbered") and 0 < total < wanted:
                    self.find(
                        reading,
                        NOT_FOUND,
                        f"The list has {total} items: there is no item {wanted}.",
                    )
                continue
            tokens = set(bm25_tokens(claim.text))
            overlaps = {
                number: len(tokens & set(bm25_tokens(text))) / max(len(set(bm25_tokens(text))), 1)
                for number, text in items.items()
            }
            said = max(overlaps, key=lambda number: overlaps[number])
            if said != wanted and overlaps[said] > overlaps[wanted]:
                claim.problem = f"Gives item {said} of the list, not item {wanted}"


class AnswerRefuses(Rule):
    """An answer that says the documents do not hold the answer, shown as if it answered."""

    name = "refusal"

    def apply(self, reading: Reading) -> None:
        if reading.result.refusal:
            reading.result.coverage = 0.0
            self.find(reading, NOT_FOUND, "The answer says the documents do not hold it.")


class RestsOnPassages(Rule):
    """An answer that cites no passage and that no passage supports, verified nonetheless."""

    name = "no_evidence"

    def apply(self, reading: Reading) -> None:
        if not reading.result.refusal and not reading.evidence:
            self.find(reading, NOT_FOUND, "No passage supports the answer.")


class WordsNoDocumentUses(Rule):
    """An answer verified though the question asks about a word no searched document uses.

    That may be the documents' silence or the question's own wording ("surrender" for "gave
    up"): the answer stays, unverified; a new search cannot mend it, so it is not retried.
    """

    name = "absent_words"

    def apply(self, reading: Reading) -> None:
        if not reading.evidence or reading.result.refusal:
            return
        result = reading.result
        found = subject.coverage(reading.frame, reading.evidence_text, reading.term_stats)
        result.coverage, result.terms, result.missing = found.share, found.terms, found.missing
        result.absent = subject.absent_words(
            found.missing, reading.evidence_text, reading.term_stats
        )
        if result.absent:
            words = ", ".join(f'"{word}"' for word in result.absent)
            self.find(reading, DOUBT, f"No document mentions {words}.", exclusive=True)


class NamesMentioned(Rule):
    """An answer about Oslo to a question about Bergen, or about v2.1 asked of v2.4.

    Every name and version the question asks about must be mentioned (in some spelling close
    enough: "Brazilian" for Brazil, "US" for United States) by the passages the answer rests
    on, their section, or their file's name.
    """

    name = "names"

    def apply(self, reading: Reading) -> None:
        if not reading.evidence or reading.result.refusal:
            return
        missing = subject.unnamed(reading.frame.entities, reading.nearby_text(reading.evidence))
        reading.result.unnamed = missing
        if missing:
            words = ", ".join(f'"{word}"' for word in missing)
            self.find(
                reading, NOT_FOUND, f"The cited passages are not about {words}.", exclusive=True
            )


class NearMiss(Rule):
    """ "Sabbatical leave" asked and "annual leave" answered: a modifier no document uses where
    the passages put another before the same noun is a near miss, not a paraphrase."""

    name = "near_miss"

    def apply(self, reading: Reading) -> None:
        result = reading.result
        if not reading.evidence or result.refusal:
            return
        result.contrasts = subject.contrasts(
            reading.frame.text, result.absent, reading.evidence_text
        )
        for asked, found in result.contrasts:
            self.find(reading, NOT_FOUND, f'The passages speak of "{found}", not "{asked}".')


class ThingAsked(Rule):
    """An answer about the question's other words, not the thing it asks for, verified.

    "What is the <thing> of/for ...?" (the frame's `asked`, an `attribute` of what it names):
    when the passages the answer rests
    on hold none of the thing's words in any form (stem, synonym, spelling, a word near in
    meaning), and one at least is not a common word, they are about the rest of the question
    ("the night nurses in Ward 4"), not about what is asked ("the shift pattern").
    """

    name = "thing_asked"

    def apply(self, reading: Reading) -> None:
        result = reading.result
        frame = reading.frame
        if not reading.evidence or result.refusal or not frame.attribute or not frame.asked:
            return
        if frame.constraint("item") or frame.constraint("relative"):
            # "What is step 3 of X?": the thing asked is an item of a list, not a word.
            return
        unasked = subject.unaddressed(frame.asked, reading.evidence_text)
        # A word no searched document uses is the question's own wording, or the documents'
        # silence: it leaves the answer unverified (WordsNoDocumentUses), not unanswered.
        result.unasked = [] if set(unasked) & set(result.absent) else unasked
        if result.unasked:
            # Unverified, not "not found": the passages may say it in other words ("the
            # largest city" for a ranking, "called" for a nickname).
            words = " ".join(f'"{word}"' for word in result.unasked)
            self.find(
                reading, DOUBT, f"The cited passages do not speak of {words}.", exclusive=True
            )


class ColumnAsked(Rule):
    """A "which <thing>" or "who is the <role> of" question answered from table rows that have
    no column of the thing.

    "Which team is the agent of ticket T-106 on?" read from the ticket's row answers with its
    Agent: the row is about the question (it names T-106), its cell is a name as a team's
    would be, and the claim is the row's; but a row of tickets holds no team. When the answer
    rests on table rows alone and none of their headers, captions, sections or files speaks
    of the thing asked (the frame's `asked`, or the role of "who is the caterer for the Autumn
    Fair?"; of a thing of several words, its last: a Client column is no "client contact"),
    the answer gives another column's cell (the event's Venue): it is left unverified. The
    thing may sit on another sheet, which a two-step program reads.
    """

    name = "column_asked"

    def apply(self, reading: Reading) -> None:
        result, frame = reading.result, reading.frame
        asked = frame.asked or subject.role_asked(frame.text)
        if result.refusal or not result.claims or not reading.evidence or not asked:
            return
        if frame.answer_type in QUANTITIES or asked in subject.GENERIC_THINGS:
            return
        if not all(block.kind in (KIND_ROW, KIND_TABLE) for block in reading.evidence):
            return
        names = "\n".join(f"{block.file_name}\n{_frame_text(block)}" for block in reading.evidence)
        # "The client contact of X" is a contact; "which data centre hosts X" may read a verb
        # into the thing ("centre hosts"), whose any word is enough, as before.
        by_its_head = frame.attribute or not frame.asked
        unnamed = subject.unnamed_by(asked, names, by_its_head=by_its_head)
        if unnamed:
            words = " ".join(f'"{word}"' for word in unnamed)
            self.find(reading, DOUBT, f"The rows the answer reads have no column of {words}.")


class AnswerValue(Rule):
    """An answer verified though its first sentence does not give what the question asks for.

    A "who" answer must name a person or organisation, "when" a date, "how many" a number,
    "how much" an amount, "how long" a length of time, ... (the frame's answer type), taken
    from a passage it cites, and that passage must be about the question (`Reading.about`);
    for a date or a length of time, the sentence must say what it is of (the frame's focus).
    Otherwise the answer is not found when no passage is about the question, and unverified
    when one is. Questions that ask for a reason, a description, a list or a yes or no need
    no value, only a cited passage about the question.
    """

    name = "answer_value"

    def apply(self, reading: Reading) -> None:
        result = reading.result
        if result.refusal or not result.claims or not reading.evidence:
            return
        frame = reading.frame
        first = result.claims[0]
        cited = [
            reading.blocks[i]
            for i in (first.cited or ([first.supported_by] if first.supported_by else []))
            if i in reading.blocks
        ]
        typed = frame.wants_value
        kind = _TYPE_WORDS.get(frame.answer_type, "answer")
        found = values(first.text, frame.answer_type, frame.text) if typed else []
        near = False
        for block in cited:
            if typed and not any(holds(_passage(block), value) for value in found):
                continue
            if reading.about(block):
                if reading.says_focus(first.text, block, found):
                    return
                near = True
        result.unfitting = True
        about = [block for block in reading.blocks.values() if reading.about(block)]
        if not about:
            message = "No passage is about what the question asks."
            self.find(reading, NOT_FOUND, message, exclusive=True)
            return
        if not typed:
            message = "The answer's first sentence is not from a passage about the question."
        elif any(_gives_value(reading, block) for block in about):
            message = (
                f"The {kind} the answer gives is not said of what the question asks about."
                if near
                else f"The answer's first sentence does not give the {kind} asked for from a "
                "passage about the question."
            )
        else:
            message = f"No passage about the question gives {_a(kind)}."
            if frame.answer_type in QUANTITIES:
                # "How many", "how much", "how long": only a quantity answers, and no passage
                # about the question holds one.
                self.find(reading, NOT_FOUND, message, exclusive=True)
                return
            # Other types are read less surely from a question's words ("When does X occur?"
            # asks for a condition, not a date): unverified, not "not found".
        self.find(reading, DOUBT, message, exclusive=True)


class LimitAsked(Rule):
    """What someone may spend, claim or take answered with what was spent or paid.

    "How much can I claim for a taxi?" asks for a limit or an entitlement; what the company
    paid its taxi supplier last year is no answer. The sentence giving the value, or its passage's headings
    and column headers, must state a limit (`wordlists/limit_words.txt`); when no passage about
    the question does, the documents do not say.
    """

    name = "limit"

    def apply(self, reading: Reading) -> None:
        result = reading.result
        if reading.frame.constraint("limit") is None or result.refusal or not result.claims:
            return
        first = result.claims[0]
        cited = [reading.blocks[i] for i in first.cited if i in reading.blocks]
        if any(_states_limit(f"{first.text}\n{_headers(block)}") for block in cited):
            return
        if any(_limit_about(reading, block) for block in reading.blocks.values()):
            self.find(reading, DOUBT, "The answer does not state a limit.", exclusive=True)
            return
        self.find(
            reading, NOT_FOUND, "No passage about the question states a limit.", exclusive=True
        )


class OneRowForMany(Rule):
    """A question about several rows of a table answered by reading out one.

    "Which office has the most staff?", "which model has the same capacity as the D60?", "how
    many sites opened after 2015?": one row read out ("30 is the capacity of the D60") cannot
    show which row is the most, that two are the same, or how many there are; the table
    store's computed passage can. An answer that rests on table rows alone, without that
    passage, is left unverified. A count or a total asked of a row the question names ("how
    many staff does the Lisbon office have?") is that row's to answer.
    """

    name = "one_row_for_many"

    def apply(self, reading: Reading) -> None:
        result = reading.result
        evidence = reading.evidence
        if result.refusal or not result.claims or not evidence:
            return
        if not all(block.kind in (KIND_ROW, KIND_TABLE) for block in evidence):
            return
        question = reading.frame.text
        if asks_across_rows(question) or (
            asks_for_a_computation(question)
            and not any(_names_its_row(question, b) for b in evidence)
        ):
            message = "The question asks about several rows of a table; the answer reads one."
            self.find(reading, DOUBT, message)


def _names_its_row(question: str, block: SourceBlock) -> bool:
    """Whether the question names a text cell of the row, or of a row of a run of rows (its
    name: "the Lisbon office")."""
    said = f" {' '.join(bm25_tokens(question))} "
    structure = block.structure or {}
    rows = [structure["cells"]] if structure.get("cells") else structure.get("rows") or []
    cells = [str(cell) for row in rows for cell in row if not _NUMBER.fullmatch(str(cell))]
    return any(
        tokens and f" {' '.join(tokens)} " in said
        for tokens in (bm25_tokens(cell) for cell in cells)
    )


_NUMBER = re.compile(r"[\d.,% -]+")


class QuestionCoverage(Rule):
    """An answer verified from passages that hold under half of the question's words.

    Weighted by how rare each word is in the searched knowledge bases: such passages may be
    about something else, so the answer is left unverified.
    """

    name = "coverage"

    def apply(self, reading: Reading) -> None:
        result = reading.result
        if not reading.evidence or result.refusal or result.coverage >= COVERAGE_MIN:
            return
        words = ", ".join(f'"{word}"' for word in result.missing)
        self.find(
            reading,
            DOUBT,
            f"The cited passages do not mention {words}: they may not answer the question.",
            exclusive=True,
        )


def _best_item(text: str, items: dict[int, str]) -> int | None:
    """Return the number of the list item a text repeats best (None when it shares nothing)."""
    tokens = set(bm25_tokens(text))
    scores = {
        number: len(tokens & set(bm25_tokens(item))) / max(len(set(bm25_tokens(item))), 1)
        for number, item in items.items()
    }
    best = max(scores, key=lambda number: scores[number], default=None)
    return best if best is not None and scores[best] > 0 else None


def _states_limit(text: str) -> bool:
    """Return whether a text states a limit or an entitlement ("capped at", "up to")."""
    found = {word.lower() for word in re.findall(r"[\w]+", text.replace("up to", "upto"))}
    return bool(found & words("limit_words"))


def _limit_about(reading: Reading, block: SourceBlock) -> bool:
    """Return whether a passage states a limit of the type asked for about the question: one
    sentence (read with the passage's headings and headers) that states a limit, gives such a
    value and holds COVERAGE_MIN of the question's words: a limit on home-office items is no
    limit on taxis."""
    if not reading.about(block):
        return False
    frame = reading.frame
    for sentence in split_sentences(block.text) or [block.text]:
        text = f"{sentence}\n{_frame_text(block)}"
        if not _states_limit(text) or not values(sentence, frame.answer_type, frame.text):
            continue
        found = subject.coverage(frame, text, reading.term_stats, known_words_only=True)
        if found.share >= COVERAGE_MIN:
            return True
    return False


def _headers(block: SourceBlock) -> str:
    """Return a table passage's caption and column headers ("" for prose)."""
    structure = block.structure or {}
    return f"{structure.get('caption') or ''}\n{' '.join(map(str, structure.get('headers') or ()))}"


def _frame_text(block: SourceBlock) -> str:
    """Return what frames a passage: its section path, caption and column headers."""
    structure = block.structure or {}
    headers = " ".join(map(str, structure.get("headers") or ()))
    return "\n".join([*block.section, str(structure.get("caption") or ""), headers])


def _gives_value(reading: Reading, block: SourceBlock) -> bool:
    """Return whether a passage holds a value of the type asked for in a sentence that says
    the question's focus ("a migration takes two hours"; not "logs are kept for 30 days").
    The headings above the passage count with each sentence: release notes date a release
    in its heading ("v3.1.0 — 4 June 2024" over "Hotfix release.")."""
    frame = reading.frame
    headings = "\n".join(block.section)
    for sentence in split_sentences(block.text) or [block.text]:
        found = values(f"{headings}\n{sentence}", frame.answer_type, frame.text)
        if found and reading.says_focus(sentence, block, found):
            return True
    return False


def _a(noun: str) -> str:
    """Return a noun with its indefinite article ("an amount", "a date")."""
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def _passage(block: SourceBlock) -> str:
    return f"{block.file_name}\n{block.context_text}"


# The rules every answer passes, in this order (a later rule reads what an earlier found).
RULES: tuple[Rule, ...] = (
    ListItemAsked(),
    AnswerRefuses(),
    RestsOnPassages(),
    WordsNoDocumentUses(),
    NamesMentioned(),
    NearMiss(),
    ThingAsked(),
    ColumnAsked(),
    NoValueGiven(),
    ItemsAsked(),
    AnswerValue(),
    LimitAsked(),
    OneRowForMany(),
    QuestionCoverage(),
)
