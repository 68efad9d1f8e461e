"""The names a question asks about: capitalised names, acronyms and versions, as written."""

from __future__ import annotations

import re

from queries.answering.vocabulary import is_common_name

_NAME_RUN = re.compile(
    r"(?<=\S\s)[A-Z][\w'’.-]*(?:\s+(?:(?:of|the|de|van|von|and)\s+)?[A-Z][\w'’.-]*)*"
    r"|\b[A-Z]{3,}\b"
)


VERSION = re.compile(r"\bv?(\d+(?:\.\d+)+)\b", re.IGNORECASE)


# Capitalised words that describe rather than name: "Brazilian", "Islamic", "French".
_DEMONYM = re.compile(
    r"(?:ian|ese|ish|ean|can|ic)$|^(?:french|dutch|czech|greek|swiss|thai|welsh|german|"
    r"iraqi|israeli|pakistani|saudi|arab|roman)$"
)


def question_names(question: str) -> list[str]:
    """Return the names a question asks about: runs of capitalised words after its first
    word, and acronyms, as written; and its versions ("3.4.0" of "v3.4.0")."""
    text = VERSION.sub(" ", question)
    names = [match.group(0).strip(".'’") for match in _NAME_RUN.finditer(text)]
    # Common words ("Earth", "United States") and demonyms ("French") name no particular
    # thing the passages must repeat.
    return [name for name in names if not describes(name)] + [
        match.group(1) for match in VERSION.finditer(question)
    ]


def describes(name: str) -> bool:
    """Return whether capitalised words describe rather than name: every word a demonym
    ("British") or a common word ("Earth's", "Prime Minister", "Middle East"). Passages say
    such things in other words ("the region", "the premier"), so none is held to them."""
    words = [re.sub(r"['’]s$", "", word).lower() for word in re.split(r"[\s-]+", name)]
    words = [
        word for word in words if word and word not in ("of", "the", "de", "van", "von", "and")
    ]
    return all(_DEMONYM.search(word) or is_common_name(word) for word in words)
