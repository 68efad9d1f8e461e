"""Sentences of the sources: splitting, headings and fragments, and the subject a pronoun means.

An answer quotes whole sentences, so splitting must survive abbreviations, decimals and [n]
citations. Headings and fragments (table rows, lead-ins, all-capital labels) are kept for
context but never quoted as answers. A sentence that opens with a pronoun ("Its lead
designer was ...") carries the subject of the sentence before it, so it can be scored for
what it is about while it is still quoted as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge.chunk_kinds import SECTION_SEPARATOR
from providers.tokenize import STOP_WORDS, raw_tokens
from queries.answering.lexicon import words
from queries.answering.types import SourceBlock

MIN_SENTENCE_WORDS = 3
MAX_HEADING_WORDS = 10
MAX_SUBJECT_WORDS = 8

_ABBREVIATIONS = words("abbreviations")
# Terminal punctuation, closing quotes/brackets, then any [n] citations that belong to it.
_BOUNDARY = re.compile(
    r"(?<![.!?…])[.!?…]++[\"'”’)\]]*(?:[ \t]*\[\d+(?:\s*[,;]\s*\d+)*\])*(?:[ \t]+(?=\S)|[ \t]*$)"
)
BULLET = re.compile(r"^\s*(?:[-*•▪‣◦]|\d{1,3}[.)])\s+")
CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_TERMINAL = re.compile(r"[.!?…:;\"'”’)\]]$")
_MARKDOWN_HEADING = re.compile(r"^#{1,6}\s+")
_BLOCK_HEADER = re.compile(r"(?:\A|(?<=\n\n))\[(\d+)\][^\S\n]*([^\n]*)")
SPACE = re.compile(r"\s+")
_CITED_BREAK = re.compile(r"(?<=\d\])\s+(?=[A-Z\"“(])")

# Words a sentence cannot end on: a chunk boundary cut it there.
_DANGLING = STOP_WORDS | {
    "from",
    "were",
    "which",
    "our",
    "its",
    "his",
    "her",
    "than",
    "has",
    "have",
}

# "It was ..." stands for the subject; "Its designer ..." for the subject's.
# "This" and "That" are left alone: they more often stand for a whole clause than a subject.
_PRONOUN_OPENER = re.compile(
    r"^(?:(?P<subject>It|He|She|They)|(?P<possessive>Its|His|Her|Their))\b(?![’'])"
)
# A subject ends where its verb begins; these are the verbs a subject is most often cut at.
_SUBJECT_END = words("subject_end_verbs")
_LEADING_ADVERBIAL = words("leading_adverbials")
_PROPER_RUN = re.compile(r"[A-Z][\w'’-]*(?:\s+(?:(?:of|van|von|de|da|the)\s+)?[A-Z][\w'’-]*)*")


@dataclass(frozen=True)
class Sentence:
    """One sentence of a source, with its block's rank and position for ordering."""

    text: str
    block: int
    rank: int
    position: int
    cut_start: bool = False
    cut_end: bool = False
    heading: bool = False
    # What a pronoun opening the sentence stands for, taken from the sentence before it.
    subject: str = ""
    # The headings above the sentence's passage, outermost first.
    section: tuple[str, ...] = ()

    @property
    def quoted(self) -> str:
        """Return the text as quoted in an answer, an ellipsis marking where a chunk cut it."""
        return ("…" if self.cut_start else "") + self.text + ("…" if self.cut_end else "")

    @property
    def scored_text(self) -> str:
        """Return the text with its opening pronoun replaced by the subject it stands for."""
        match = _PRONOUN_OPENER.match(self.text) if self.subject else None
        if not match:
            return self.text
        rest = self.text[match.end() :]
        if match.group("subject"):
            return f"{self.subject}{rest}"
        return f"{self.subject}'s{rest}"

    @property
    def answerable(self) -> bool:
        """Return whether the sentence may be quoted as an answer: no heading, no fragment."""
        return not self.heading and not is_fragment(self.text)


def is_fragment(text: str) -> bool:
    """Return whether a piece of text is too incomplete to quote as an answer."""
    words = raw_tokens(CITATION.sub(" ", text))
    if len(words) < MIN_SENTENCE_WORDS:
        return True
    # A lead-in ("The rules are as follows:") says nothing until what follows it.
    if text.rstrip().endswith(":"):
        return True
    letters = [word for word in words if word.isalpha()]
    # Table rows and number lists: mostly figures.
    if len(letters) * 2 < len(words):
        return True
    # All-capital or Title Case labels: prose always has some lowercase word of its own.
    plain = re.findall(r"\b[a-z][a-z]+\b", CITATION.sub(" ", text))
    return not any(word not in STOP_WORDS for word in plain)


def normalise(text: str) -> str:
    """Return text lowercased with whitespace collapsed and no space before punctuation."""
    text = SPACE.sub(" ", text).strip().lower()
    return re.sub(r"\s+([.,;:!?])", r"\1", text)


def _segments(text: str) -> list[tuple[str, bool]]:
    """Return (piece, is heading) pairs: bullets and headings stand alone, wrapped lines join."""
    pieces: list[tuple[list[str], bool]] = []
    paragraphs = [
        [line for line in paragraph.split("\n") if line.strip()]
        for paragraph in re.split(r"\n\s*\n", text)
    ]
    paragraphs = [lines for lines in paragraphs if lines]
    for number, lines in enumerate(paragraphs):
        next_paragraph = paragraphs[number + 1][0].strip() if number + 1 < len(paragraphs) else ""
        current: list[str] = []
        current_bullet = False
        for i, line in enumerate(lines):
            stripped = line.strip()
            following = lines[i + 1].strip() if i + 1 < len(lines) else next_paragraph
            bullet = bool(BULLET.match(line))
            starts_piece = bullet or (bool(current) and _is_heading(current[-1], stripped))
            if starts_piece or (current and _is_heading(stripped, following)):
                if current:
                    pieces.append((current, current_bullet))
                current = []
                current_bullet = bullet
            current.append(BULLET.sub("", line).strip())
        if current:
            pieces.append((current, current_bullet))
    result = []
    for i, (lines, bullet) in enumerate(pieces):
        following = pieces[i + 1][0][0] if i + 1 < len(pieces) else ""
        heading = len(lines) == 1 and not bullet and _is_heading(lines[0], following, alone=True)
        result.append((_MARKDOWN_HEADING.sub("", " ".join(lines)), heading))
    return result


def _is_heading(line: str, following: str, alone: bool = False) -> bool:
    # Short, unpunctuated, capitalised, and followed by a capitalised line: wrapped prose
    # rarely looks like that, while headings of extracted PDFs and slides do. A line that
    # stands alone as a piece may also be the last one, so Title Case is enough there.
    if _MARKDOWN_HEADING.match(line):
        return True
    if len(line.split()) > (MAX_HEADING_WORDS if alone else 6) or _TERMINAL.search(line):
        return False
    if not (line[:1].isupper() or line[:1].isdigit()):
        return False
    if following[:1].isupper() or bool(BULLET.match(following)):
        return True
    return alone and _title_case(line)


def _title_case(line: str) -> bool:
    words = [word for word in re.findall(r"[^\W\d_]+", line) if len(word) > 3]
    return bool(words) and all(word[0].isupper() for word in words)


def _split_piece(piece: str) -> list[str]:
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(piece):
        before = piece[start : match.start()]
        last_word = before.rsplit(None, 1)[-1] if before.split() else ""
        last_word = last_word.lstrip("(\"'“‘[").lower()
        punctuation = piece[match.start()]
        following = piece[match.end()] if match.end() < len(piece) else ""
        if punctuation == "." and (
            last_word in _ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha())
        ):
            continue
        if following.islower():
            continue
        sentence = piece[start : match.end()].strip()
        if sentence:
            sentences.append(sentence)
        start = match.end()
    tail = piece[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def split_sentences(text: str) -> list[str]:
    """Return the sentences of a text, keeping abbreviations, decimals and [n] citations intact."""
    return [sentence for piece, _ in _segments(text) for sentence in _split_piece(piece)]


def split_claims(text: str) -> list[str]:
    """Return the cited claims of an answer: its sentences, also split after each citation.

    A quoted sentence that a chunk ended without a full stop is still closed by its [n].
    """
    return [
        claim
        for sentence in split_sentences(text)
        for claim in _CITED_BREAK.split(sentence)
        if claim.strip()
    ]


def block_sentences(blocks: list[SourceBlock]) -> list[Sentence]:
    """Return the sentences of blocks in rank order, each pronoun opener given its subject."""
    split = [_split_block(block) for block in blocks]
    sentences: list[Sentence] = []
    for rank, (block, parts) in enumerate(zip(blocks, split, strict=True)):
        leads = _paragraph_leads(block)
        subject = ""
        for position, (part, heading) in enumerate(parts):
            cut_start = position == 0 and part[:1].islower()
            cut_end = False
            if position == len(parts) - 1 and not heading and not _TERMINAL.search(part):
                words = raw_tokens(part)
                cut_end = not words or words[-1] in _DANGLING or part[-1] in ",-–("
            inherited = ""
            if _PRONOUN_OPENER.match(part):
                inherited = subject or _subject_before(part, block, blocks, split)
            sentences.append(
                Sentence(
                    part,
                    block.index,
                    rank,
                    position,
                    cut_start,
                    cut_end,
                    heading,
                    inherited,
                    tuple(block.section) + ((leads[position],) if leads[position] else ()),
                )
            )
            # The topic persists through a run of pronouns: "X is ... It was ... Its ...".
            subject = inherited or (part if heading else subject_of(part))
    return sentences


# A paragraph that opens with a sentence this short ("Company offsite - approved.") is about
# it: the rest of the paragraph reads under it, as under a heading.
MAX_LEAD_WORDS = 5


def _paragraph_leads(block: SourceBlock) -> list[str]:
    """Return, for each sentence of a block, the short sentence its paragraph opens with."""
    text = re.sub(r"^[\s.,;:!?)\]]+", "", block.text or "")
    leads: list[str] = []
    for piece, _ in _segments(text):
        sentences = _split_piece(piece)
        first = sentences[0] if len(sentences) > 1 else ""
        if len(first.split()) > MAX_LEAD_WORDS:
            first = ""
        leads.extend("" if i == 0 else first for i in range(len(sentences)))
    return leads


def _split_block(block: SourceBlock) -> list[tuple[str, bool]]:
    # Chunks keep their separator at the start, so a chunk may open with ". " of the last one.
    text = re.sub(r"^[\s.,;:!?)\]]+", "", block.text or "")
    return [
        (sentence, heading)
        for piece, heading in _segments(text)
        for sentence in _split_piece(piece)
    ]


def _subject_before(
    part: str,
    block: SourceBlock,
    blocks: list[SourceBlock],
    split: list[list[tuple[str, bool]]],
) -> str:
    """Return the subject for a block's opening pronoun from an overlapping chunk of its file."""
    if not block.file_name:
        return ""
    for other, parts in zip(blocks, split, strict=True):
        if other is block or other.file_name != block.file_name:
            continue
        for position, (text, _) in enumerate(parts[1:], start=1):
            if text == part:
                previous, previous_heading = parts[position - 1]
                return previous if previous_heading else subject_of(previous)
    return ""


def subject_of(sentence: str) -> str:
    """Return the likely subject of a sentence: the words before its verb, else its first name."""
    words = sentence.split()
    if words and words[0].lower() in _LEADING_ADVERBIAL:
        # "In 1991, Guido van Rossum released Python": the subject follows the comma.
        for i, word in enumerate(words[:MAX_SUBJECT_WORDS]):
            if word.endswith(","):
                words = words[i + 1 :]
                break
    subject: list[str] = []
    for word in words[: MAX_SUBJECT_WORDS + 1]:
        bare = word.lower().strip(".,;:!?\"'“”‘’")
        if bare in _SUBJECT_END or word.startswith("("):
            break
        if word.endswith(","):
            subject.append(word.rstrip(","))
            break
        subject.append(word)
    else:
        subject = []
    if subject and len(subject) <= MAX_SUBJECT_WORDS and not _PRONOUN_OPENER.match(subject[0]):
        return " ".join(subject)
    names = [name for name in _PROPER_RUN.findall(sentence) if name.lower() not in STOP_WORDS]
    return names[0] if names else ""


def parse_context_blocks(context: str) -> list[tuple[str, SourceBlock]]:
    """Return (label line, block) pairs of a context built as `[n] file_name` + text blocks."""
    headers = list(_BLOCK_HEADER.finditer(context or ""))
    if not headers:
        text = (context or "").strip()
        return [("", SourceBlock(index=1, file_name="", text=text))] if text else []
    blocks = []
    for i, header in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(context)
        body = context[header.end() : end].strip("\n")
        label = context[header.start() : header.end()].strip()
        file_name, *section = header.group(2).strip().split(SECTION_SEPARATOR)
        blocks.append(
            (
                label,
                SourceBlock(
                    index=int(header.group(1)),
                    file_name=file_name,
                    text=body,
                    section=tuple(section),
                ),
            )
        )
    return blocks
