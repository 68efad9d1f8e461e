"""An answer that gives a table's mark of no value as its value: "n/a is the payload (kg) for
V2", read from a row whose cell says "n/a" (or "-", "tbd"). The cell says the table does not
know; an answer that gives it is left unverified, and says why."""

from __future__ import annotations

import re

from knowledge.tables.cells import MISSING
from queries.answering.checks.reading import Reading
from queries.answering.checks.result import DOUBT, Rule

# The answer's first words, before a citation or a verb: "n/a [2].", "- is the ...".
_LEADING = re.compile(r"^\s*(?:probably\s+)?(\S+?)(?=\s|\[|\.|,|$)", re.IGNORECASE)


class NoValueGiven(Rule):
    """The answer's first sentence gives a mark of no value ("n/a", "-", "tbd") as its answer
    ("n/a [2].", "Probably n/a.", "n/a is the payload (kg) for V2")."""

    name = "no_value_given"

    def apply(self, reading: Reading) -> None:
        result = reading.result
        if result.refusal or not result.claims:
            return
        match = _LEADING.match(result.claims[0].text)
        said = match.group(1).lower() if match else ""
        if said in MISSING - {""}:
            self.find(
                reading,
                DOUBT,
                f"The table gives no value here: its cell says {match.group(1)!r}.",
                exclusive=True,
            )
