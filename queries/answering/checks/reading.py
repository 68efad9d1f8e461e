"""What the rules read of an answer (`Reading`): the question's frame, the answer's claims,
the passages and their statistics, with what the rules ask of the passages (whether one is
about the question, whether a sentence says the question's focus) worked out once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from queries.answering.checks import subject
from queries.answering.checks.result import AnswerCheck
from queries.answering.frame import QuestionFrame
from queries.answering.types import SourceBlock
from queries.answering.values import Value, holds

# A passage holding at least this share of the question's words (by weight), and every name
# the question asks about, is about the question. Below it for every passage, the documents
# do not speak of what is asked.
ABOUT_MIN = 0.35


@dataclass
class Reading:
    """What the rules read: the frame, the answer's claims, the passages and their statistics."""

    frame: QuestionFrame
    result: AnswerCheck
    blocks: dict[int, SourceBlock]
    term_stats: dict
    _evidence: list[SourceBlock] | None = field(default=None, repr=False)
    _about: dict[int, bool] = field(default_factory=dict, repr=False)

    @property
    def evidence(self) -> list[SourceBlock]:
        """Return what the answer rests on: the passages that support it, else those it cites
        (a misquote of the right passage still shows the documents address the question)."""
        if self._evidence is None:
            cited = [n for claim in self.result.claims for n in claim.cited]
            order = self.result.supporting or list(dict.fromkeys(cited))
            self._evidence = [self.blocks[i] for i in order if i in self.blocks]
        return self._evidence

    @property
    def evidence_text(self) -> str:
        return "\n".join(block.context_text for block in self.evidence)

    def nearby_text(self, blocks: list[SourceBlock]) -> str:
        """Return the text of the passages' sections and their files' names: a name may sit in
        the document's own name or in another passage of the same section (the paragraph goes
        on there), not elsewhere in the document."""
        places = {(block.file_name, tuple(block.section)) for block in blocks}
        nearby = [
            b.context_text
            for b in self.blocks.values()
            if (b.file_name, tuple(b.section)) in places
        ]
        files = {re.sub(r"[_.-]+", " ", file_name) for file_name, _ in places}
        return "\n".join([*files, *nearby])

    def about(self, block: SourceBlock) -> bool:
        """Return whether a passage is about the question: it (or its section) names every
        name the question asks about, and holds ABOUT_MIN of its words by weight (of the words
        some searched document uses)."""
        if block.index not in self._about:
            # With the passages of its section: a paragraph cut in two speaks of the plea in
            # one chunk and of the court in the other.
            text = self.nearby_text([block])
            share = subject.coverage(self.frame, text, self.term_stats, known_words_only=True)
            self._about[block.index] = not subject.unnamed(self.frame.entities, text) and (
                share.share >= ABOUT_MIN
            )
        return self._about[block.index]

    def says_focus(self, sentence: str, block: SourceBlock, found: list[Value] = ()) -> bool:
        """Return whether a sentence (with its passage's caption and column headers) says
        the question's focus: what "how many" counts (or a word near it in meaning), and the
        question's own verbs when it asks for a date or a length of time. A passage holds
        several such values; "kept for 30 days" is no answer to how long a migration takes. A
        value that a heading above the passage gives ("v3.1.0 — 4 June 2024") is said by the
        headings: they count too; and a sentence that says one of the verbs may leave the
        others to its heading."""
        if not self.frame.focus and not self.frame.counted:
            return True
        structure = block.structure or {}
        frame = [
            str(structure.get("caption") or ""),
            " ".join(map(str, structure.get("headers") or ())),
        ]
        headings = "\n".join(block.section)
        if headings and any(holds(headings, value) for value in found):
            frame.append(headings)
        text = "\n".join([*frame, sentence])
        if self.frame.counted and not subject.speaks_of(self.frame.counted, text):
            return False
        focus = self.frame.focus
        if subject.says_all(focus, text):
            return True
        # "We keep your data for 90 days" under "How long do you keep our data after we
        # cancel?": the sentence says one of the verbs, the heading it answers the rest.
        return bool(
            headings
            and any(subject.says_all([word], text) for word in focus)
            and subject.says_all(focus, f"{headings}\n{text}")
        )
