"""The claims of an answer and the passages that support them.

A claim is a sentence of the answer (a Markdown table row counts as one); it is supported by a
passage when most of its words are in one sentence of the passage (the passage's section path
and column headers count as its words), or when it says the same in other words (embedding
cosine) while sharing most of the passage's words; every number it states must be in the
passage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from providers import embedder
from providers.tokenize import bm25_tokens
from queries.answering.sentences import BULLET, normalise, split_claims, split_sentences
from queries.answering.types import SourceBlock
from queries.answering.vocabulary import NUMBER

# A claim is supported when this share of its words is in one sentence of its passage ...
SENTENCE_OVERLAP = 0.8


# ... or when this share is in the whole passage and the claim means the same as one of its
# sentences (a model's paraphrase).
PASSAGE_OVERLAP = 0.6


PARAPHRASE_COSINE = 0.6


MIN_CLAIM_TOKENS = 2


CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")


TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")


# Appended to an answer whose claims the check could not all verify; every reader of answers
# (the check, the extractive reflection, the benches) knows the line by CAVEAT_LINE.
CAVEAT = "Note: some claims in this answer may not be fully supported by the retrieved sources."
CAVEAT_LINE = re.compile(r"^\s*" + re.escape(CAVEAT[:17]), re.IGNORECASE)


# An answer that says the documents do not hold the answer.
REFUSAL = re.compile(
    r"\b(?:could not|couldn't|cannot|can't|was unable to|am unable to) find\b|"
    r"\bnot (?:found|mentioned|specified|stated|provided|given|covered|included) in the "
    r"(?:provided |given |retrieved )?(?:documents?|context|sources?|passages?|text)\b|"
    r"\b(?:documents?|context|sources?|passages?|text)\s+(?:do|does|did)\s*(?:n't|not)\s+"
    r"(?:mention|contain|say|specify|state|include|provide|cover|describe|give)\b|"
    r"\bno (?:information|mention|details?) (?:about|on|of|regarding)\b",
    re.IGNORECASE,
)


@dataclass
class Claim:
    """One sentence of an answer, the passages it cites, and the one that supports it."""

    text: str
    cited: list[int]
    supported_by: int | None = None
    problem: str = ""


def line_claims(line: str) -> list[tuple[str, Claim | None]]:
    """Return the pieces of a line, each with its claim (None for what is not a claim)."""
    body = BULLET.sub("", line) if not line.lstrip().startswith("|") else line
    prefix = line[: len(line) - len(body)]
    pieces: list[tuple[str, Claim | None]] = [(prefix, None)] if prefix else []
    claims = [body.replace("|", " ")] if body.lstrip().startswith("|") else split_claims(body)
    position = 0
    previous: Claim | None = None
    for text in claims:
        # Keep the line's own spacing between claims, so the answer reads as written.
        found = body.find(text.strip(), position) if not body.lstrip().startswith("|") else -1
        start = found if found >= 0 else position
        end = start + len(text.strip()) if found >= 0 else len(body)
        pieces.append((body[position:start], None))
        claim_text = _plain_claim(text)
        tokens = bm25_tokens(claim_text)
        cited = [int(n) for group in CITATION.findall(text) for n in re.split(r"[,;]", group)]
        # A bare value ("131", "Rafael Sousa [1]": a small model's whole answer) is a claim
        # too; "The documents do not say" is no claim about the documents' content.
        value = bool(tokens) and (
            bool(cited) or any(ch.isdigit() for ch in claim_text) or claim_text[:1].isupper()
        )
        is_claim = (
            (len(tokens) >= MIN_CLAIM_TOKENS or value)
            and not claim_text.endswith(":")
            and not REFUSAL.search(claim_text)
        )
        piece = body[start:end] if found >= 0 else body[position:]
        if cited and not tokens and previous is not None:
            # Markers the sentence split left alone ("... in Afrikaans? [1].", "1 M.L.A. [1].")
            # cite the claim just before them: it is not given a second marker.
            previous.cited += [n for n in cited if n not in previous.cited]
            is_claim = False
        previous = Claim(claim_text, cited) if is_claim else None
        pieces.append((piece, previous))
        position = end
    if position < len(body):
        pieces.append((body[position:], None))
    return [(piece, claim) for piece, claim in pieces if piece or claim]


def _plain_claim(text: str) -> str:
    claim = re.sub(r"\s+", " ", CITATION.sub(" ", text)).strip()
    claim = re.sub(r"\s+([.,;:!?])", r"\1", claim)
    return re.sub(r"^(?:…|\.\.\.)\s*|\s*(?:…|\.\.\.)$|\*\*|__", "", claim).strip()


def with_marker(piece: str, index: int) -> str:
    stripped = piece.rstrip()
    return f"{stripped} [{index}]{piece[len(stripped) :]}"


def find_support(claim: Claim, blocks: dict[int, SourceBlock]) -> None:
    """Find the passage that supports a claim: a cited one, else (no citation) any."""
    missing = [n for n in claim.cited if n not in blocks]
    if missing:
        claim.problem = f"Cites a source that does not exist [{missing[0]}]"
        return
    candidates = claim.cited or list(blocks)
    for index in candidates:
        if supports(claim.text, blocks[index]):
            claim.supported_by = index
            return
    if claim.cited:
        claim.problem = f"Not supported by [{']['.join(str(n) for n in claim.cited)}]"
    else:
        claim.problem = "No source supports it"


def supports(claim: str, block: SourceBlock) -> bool:
    """Return whether a passage supports a claim (its words, its numbers, or its meaning).

    The passage's section path, caption and column headers frame each of its sentences, so
    "Step 3 of Rolling back: ..." or "42 is the head count for Porto" read against them.
    """
    context = block.context_text
    normalised = normalise(claim)
    if normalised and normalised in normalise(context):
        return True
    if any(number not in context for number in NUMBER.findall(claim)):
        return False
    tokens = set(bm25_tokens(claim))
    if not tokens:
        return False
    frame = set(bm25_tokens(context[: max(len(context) - len(block.text), 0)]))
    sentences = split_sentences(block.text) or [block.text]
    best_overlap = max(_overlap(tokens, set(bm25_tokens(s)) | frame) for s in sentences)
    if best_overlap >= SENTENCE_OVERLAP:
        return True
    if _overlap(tokens, set(bm25_tokens(context))) < PASSAGE_OVERLAP:
        return False
    vectors = embedder.embed_texts([claim, *sentences])
    return float(np.max(vectors[1:] @ vectors[0])) >= PARAPHRASE_COSINE


def _overlap(claim_tokens: set[str], other: set[str]) -> float:
    return len(claim_tokens & other) / len(claim_tokens) if claim_tokens else 0.0
