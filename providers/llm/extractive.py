"""The offline answer provider: rules for planning, quoted evidence sentences for answers.

No generative model is involved and nothing is random, so the same inputs always give the
same outputs. Answers are sentences quoted verbatim from the sources, each followed by its
[n] citation, which is what lets `reflect` check them mechanically.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from knowledge.ingest.tokenize import STOP_WORDS, bm25_tokens, raw_tokens
from providers.llm.base import AnswerProvider, CallContext, RunCancelled, SourceBlock, Usage

NOT_FOUND = "I could not find an answer to this question in the provided documents."

# Sentence score = COSINE_WEIGHT * cosine + LEXICAL_WEIGHT * query-term coverage + rank bonus.
COSINE_WEIGHT = 0.6
LEXICAL_WEIGHT = 0.4
# The best reranked source gets this bonus, the n-th gets RANK_BONUS / n: enough to break
# near-ties toward the reranker's choice, too small to override a clearly better sentence.
RANK_BONUS = 0.03
RELEVANCE_THRESHOLD = 0.35
SUFFICIENT_THRESHOLD = 0.5
# A second or third sentence must score at least this share of the best one, so a strong
# answer is not padded with loosely related sentences.
RELATIVE_CUTOFF = 0.6
MAX_SENTENCES = 3
# A retry after critic feedback looks further down the ranking so it can change the answer.
RETRY_THRESHOLD_DROP = 0.1
RETRY_RELATIVE_CUTOFF = 0.5
RETRY_MAX_SENTENCES = 5
NEAR_DUPLICATE_COSINE = 0.92
# A sentence a chunk boundary cut short is quoted only when nothing whole is nearly as good.
FRAGMENT_PENALTY = 0.1
MIN_SENTENCE_WORDS = 3
SUPPORT_OVERLAP = 0.8

UNSUPPORTED_MARKER = "Unsupported sentences (JSON): "
CAVEAT_PREFIX = "note: some claims in this answer may not be fully supported"

_ABBREVIATIONS = frozenset(
    {
        "e.g", "i.e", "etc", "vs", "cf", "al", "approx", "ca", "dr", "mr", "mrs", "ms", "prof",
        "sr", "jr", "st", "mt", "no", "nos", "fig", "figs", "vol", "pp", "ed", "eds", "inc",
        "ltd", "co", "corp", "dept", "est", "min", "max", "jan", "feb", "mar", "apr", "jun",
        "jul", "aug", "sep", "sept", "oct", "nov", "dec", "u.s", "u.k", "a.m", "p.m", "ph.d",
    }
)  # fmt: skip
# Terminal punctuation, closing quotes/brackets, then any [n] citations that belong to it.
_BOUNDARY = re.compile(
    r"(?<![.!?…])[.!?…]++[\"'”’)\]]*(?:[ \t]*\[\d+(?:\s*[,;]\s*\d+)*\])*(?:[ \t]+(?=\S)|[ \t]*$)"
)
_BULLET = re.compile(r"^\s*(?:[-*•▪‣◦]|\d{1,3}[.)])\s+")
_CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_TERMINAL = re.compile(r"[.!?…:;\"'”’)\]]$")
_BLOCK_HEADER = re.compile(r"(?:\A|(?<=\n\n))\[(\d+)\][^\S\n]*([^\n]*)")
_SPACE = re.compile(r"\s+")
_ELLIPSIS_EDGES = re.compile(r"^(?:…|\.\.\.)\s*|\s*(?:…|\.\.\.)$")

# Words that describe answers and evidence rather than the topic; they never help retrieval.
_META_WORDS = frozenset(
    {
        "answer", "answers", "sentence", "sentences", "source", "sources", "evidence", "claim",
        "claims", "citation", "citations", "cite", "cited", "cites", "support", "supported",
        "unsupported", "grounded", "retry", "attempt", "broader", "broaden", "threshold",
        "relevance", "relevant", "irrelevant", "question", "query", "feedback", "context",
        "document", "documents", "passage", "passages", "found", "find", "missing", "mention",
        "mentions", "mentioned", "include", "includes", "should", "could", "would", "quote",
        "quoted", "verbatim", "block", "blocks", "provided", "retrieved", "information",
        "specific", "specifically", "please", "more", "less", "does", "doesn", "did", "didn",
        "also", "only", "about", "what", "which", "when", "where", "who", "whom", "why", "how",
        "have", "has", "had", "from", "than", "been", "being", "were", "your", "you", "our",
        "they", "them", "its", "any", "all", "some", "each", "other", "next", "previous",
        "same", "very", "just", "like", "make", "made", "need", "needs", "use", "used",
        "using", "lacks", "lack", "add", "explain", "explains", "state", "states", "fully",
        "none", "nothing", "widen", "weaker", "search", "here", "there", "those", "these",
        "this", "that", "then", "into", "onto", "over", "under", "between", "without",
        "drop", "keep", "remove", "appear", "appears", "pass", "passed", "passes",
    }
)  # fmt: skip

_COMMON_WORDS = frozenset(
    {
        "i", "me", "my", "we", "us", "he", "she", "him", "her", "his", "hers", "it", "its",
        "can", "may", "might", "must", "shall", "do", "done", "doing", "get", "got", "give",
        "given", "take", "taken", "try", "tried", "well", "much", "many", "most", "few", "one",
        "two", "own", "per", "via", "yes", "yet", "still", "even", "again", "because", "since",
        "while", "though", "although", "whether", "either", "neither", "both", "too", "now",
        "instead", "rather", "better", "worse", "good", "bad", "new", "old", "first", "last",
        "correct", "incorrect", "wrong", "right", "true", "false", "clear", "unclear", "details",
        "detail", "part", "point", "points", "way", "thing", "things", "issue", "issues",
    }
)  # fmt: skip

# --- Planner rules -------------------------------------------------------------------------

_DOC_NOUNS = (
    r"(?:document|doc|file|report|pdf|upload|slide|deck|presentation|spreadsheet|sheet|memo|"
    r"manual|handbook|guide|policy|policies|contract|paper|notes?|minutes|transcript|email|"
    r"attachment|page|section|chapter|appendix|table|figure|spec|specification|readme|wiki)s?"
)
_DOC_REFERENCE = re.compile(
    r"\baccording to\b|\bupload(?:ed|s)?\b|\battached\b|\bknowledge ?base\b|\bour\b|"
    r"\bmy (?:files|documents|docs|notes)\b|\b(?:in|from) (?:the )?(?:text|corpus)\b|"
    r"\b(?:the|this|that|these|those|my|our|your|attached|uploaded) " + _DOC_NOUNS + r"\b|"
    r"\b(?:says?|mentions?|states?) (?:about|that)\b"
)
_GREETING_PART = re.compile(
    r"^(?:hi|hello|hey|hiya|howdy|greetings|yo|hola|bonjour|good (?:morning|afternoon|evening|day)|"
    r"thanks?(?: you)?(?: (?:so|very) much| a lot)?|thx|ty|cheers|much appreciated|"
    r"bye|goodbye|good ?night|see (?:you|ya)(?: later)?|ok(?:ay)?|cool|great|nice|awesome|"
    r"how are (?:you|things)(?: doing)?(?: today)?|how(?:'s| is) it going|what'?s up|sup|"
    r"who are you|what are you|what can you do|what do you do|nice to meet you|"
    r"good (?:job|bot|work))(?: (?:there|everyone|all|team|bot|again|friend|mate))?$"
)
_THANKS = re.compile(r"\b(?:thanks?|thx|ty|cheers|appreciated)\b")
_FAREWELL = re.compile(r"\b(?:bye|goodbye|good ?night|see (?:you|ya))\b")
_LANGUAGES = (
    r"(?:python|javascript|typescript|java|c\+\+|c#|golang|rust|ruby|php|kotlin|swift|scala|"
    r"bash|shell|powershell|sql|html|css|perl|haskell|elixir|lua|matlab|node(?:\.?js)?|react)"
)
_CODING = re.compile(
    r"\b(?:write|implement|generate|create)\b.{0,40}?\b(?:function|script|program|method|"
    r"snippet|regex|regular expression|algorithm|unit tests?|sql query|code (?:to|for|that))\b|"
    r"\bhow (?:do|can|would|should|to) (?:i |you |we |one )?.{0,80}\bin " + _LANGUAGES + r"\b|"
    r"\b" + _LANGUAGES + r" (?:code|function|script|snippet|example|syntax|program|one-liner)\b|"
    r"\bfix (?:this|my) (?:code|bug|error|function)\b|"
    r"\b(?:stack ?trace|traceback|syntax error|segfault|compile error)\b|```"
)
_GENERAL_KNOWLEDGE = (
    # "The capital of the company" is finance, not geography: a country never needs "the"
    # except in these few names.
    re.compile(
        r"^(?:what|which)(?: is|'s| was) the capital(?: city)? of (?:the (?:united states|"
        r"united kingdom|netherlands|philippines|czech republic|uk|usa|us)|(?!the\b)[a-z.'-]+"
        r"(?: [a-z.'-]+){0,2})$"
    ),
    re.compile(
        r"^who (?:is|was|'s) the (?:first|second|third|last|current|\d+(?:st|nd|rd|th)) "
        r"(?:president|prime minister|king|queen|emperor|chancellor|pope|man|woman|person) "
        r"(?:of|to walk on|in) [a-z .'-]+$"
    ),
    re.compile(
        r"^how many (?:days|hours|minutes|seconds|weeks|months|years) (?:are )?(?:there )?in "
        r"(?:a|an|one) (?:year|leap year|week|day|hour|minute|month|decade|century|millennium)$"
    ),
    re.compile(
        r"^how many (?:continents|planets|oceans|bones|chromosomes|teeth) "
        r"(?:are )?(?:there )?(?:in|on|does|do|in the|are in)?.{0,30}$"
    ),
    re.compile(
        r"^what(?: is|'s) the (?:speed of light|speed of sound|boiling point of water|"
        r"freezing point of water|melting point of ice|chemical symbol (?:of|for) [a-z]+|"
        r"chemical formula (?:of|for) [a-z]+)(?: in [a-z ]+)?$"
    ),
    re.compile(
        r"^what(?: is|'s) the (?:largest|smallest|biggest|tallest|longest|highest|deepest) "
        r"(?:planet|ocean|mountain|river|country|continent|desert|animal|lake|island)"
        r"(?: (?:in|on|of) (?:the world|earth|the solar system))?$"
    ),
)
_WORLD_LIVE = re.compile(
    r"\b(?:latest|breaking|today'?s|current|recent) (?:news|headlines)\b|"
    r"\bnews (?:today|this week)\b|\b(?:current|latest|live) (?:price|value) of\b|"
    r"\bprice of (?:bitcoin|ethereum|gold|oil|silver)\b|"
    r"\bweather\b|\b(?:stock|share) price\b|\bexchange rate\b|\bbitcoin price\b|"
    r"\b(?:live|final) score\b"
)
_LIVE = re.compile(
    r"\b(?:latest|breaking) (?:news|headlines|updates?|developments?)\b|\btoday(?:'s)?\b|"
    r"\btonight\b|\bright now\b|\byesterday\b|\bthis (?:week|weekend|month)\b|"
    r"\bcurrent (?:price|weather|temperature|stock|exchange rate|score|time|events?|"
    r"president|prime minister|ceo|leader)\b|\bnews\b"
)
_YEAR = re.compile(r"\b(20\d\d)\b")
LIVE_FROM_YEAR = 2025
_ANALYTICAL = re.compile(
    r"\bwhy\b|\bhow (?:does|do|did|is|are|was|were|can|could)\b|\bexplain\b|\bcompar|"
    r"\bdifferences?\b|\banaly[sz]|\bevaluat|\bassess|\bimplications?\b|\bimpact\b|\btrends?\b|"
    r"\bpros and cons\b|\badvantages?\b|\bdisadvantages?\b|\bsummar|\boverview\b|"
    r"\brelationship\b|\bcauses?\b|\beffects?\b|\bfactors?\b|\bstrengths?\b|\bweakness"
)

# --- Arithmetic ----------------------------------------------------------------------------

_ARITHMETIC_PREFIX = re.compile(
    r"^(?:please |can you |could you )?(?:what(?: is|'s)|whats|calculate|compute|evaluate|"
    r"solve|how much is|work out|tell me)\s+"
)
_WORD_OPERATORS = (
    (re.compile(r"\bsquare root of\b|√"), " sqrt "),
    (re.compile(r"\b(?:multiplied by|times)\b|×|(?<=[\d)\s])x(?=[\s\d(])"), "*"),
    (re.compile(r"\bdivided by\b|÷|\bover\b"), "/"),
    (re.compile(r"\bplus\b"), "+"),
    (re.compile(r"\bminus\b"), "-"),
    (re.compile(r"\b(?:to the power of|raised to(?: the power of)?)\b|\^"), "**"),
    (re.compile(r"\bsquared\b"), "**2"),
    (re.compile(r"\bcubed\b"), "**3"),
    (re.compile(r"\bmod(?:ulo)?\b"), "%"),
)
_PERCENT_OF = re.compile(r"^(\d+(?:\.\d+)?)\s*%\s*of\s+(\d+(?:\.\d+)?)$")
_SQRT_OPERAND = re.compile(r"\bsqrt\s+(\d+(?:\.\d+)?|\([^()]*\))")
_ARITHMETIC_CHARS = re.compile(r"^[\d\s.+\-*/%()sqrt]+$")
MAX_EXPRESSION_CHARS = 200
MAX_RESULT_DIGITS = 300
_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}  # fmt: skip


class ArithmeticRejected(ValueError):
    """The text is not a safe arithmetic expression, or its value cannot be computed."""


def arithmetic_expression(query: str) -> str | None:
    """Return the query as a Python arithmetic expression, or None if it is not arithmetic."""
    text = _SPACE.sub(" ", query.strip().lower()).rstrip("?!. =")
    text = re.sub(r"^the ", "", _ARITHMETIC_PREFIX.sub("", text))
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    percent = _PERCENT_OF.match(text)
    if percent:
        return f"{percent.group(1)} / 100 * {percent.group(2)}"
    for pattern, replacement in _WORD_OPERATORS:
        text = pattern.sub(replacement, text)
    text = _SQRT_OPERAND.sub(r"sqrt(\1)", text).strip()
    if not text or len(text) > MAX_EXPRESSION_CHARS or not _ARITHMETIC_CHARS.match(text):
        return None
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return None
    # A bare number ("2025") is not a calculation; an operator or sqrt makes it one.
    if isinstance(tree.body, ast.Constant):
        return None
    try:
        _check_nodes(tree.body)
    except ArithmeticRejected:
        return None
    return text


def evaluate_arithmetic(expression: str) -> int | float:
    """Return the value of an arithmetic expression: numbers, + - * / // % **, sqrt() only."""
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ArithmeticRejected("the expression is too long")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as exc:
        raise ArithmeticRejected("not an arithmetic expression") from exc
    _check_nodes(tree.body)
    return _evaluate(tree.body)


def _check_nodes(node: ast.AST) -> None:
    if isinstance(node, ast.Constant):
        if type(node.value) not in (int, float):
            raise ArithmeticRejected("only numbers are allowed")
    elif isinstance(node, ast.BinOp):
        if type(node.op) not in _BINARY and not isinstance(node.op, ast.Pow):
            raise ArithmeticRejected("operator not allowed")
        _check_nodes(node.left)
        _check_nodes(node.right)
    elif isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, (ast.UAdd, ast.USub)):
            raise ArithmeticRejected("operator not allowed")
        _check_nodes(node.operand)
    elif isinstance(node, ast.Call):
        # sqrt is the one function, matched by its literal name and never looked up.
        if not (
            isinstance(node.func, ast.Name)
            and node.func.id == "sqrt"
            and len(node.args) == 1
            and not node.keywords
        ):
            raise ArithmeticRejected("only sqrt() may be called")
        _check_nodes(node.args[0])
    else:
        raise ArithmeticRejected(f"{type(node).__name__} is not allowed")


def _evaluate(node: ast.AST) -> int | float:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Call):
        value = _evaluate(node.args[0])
        if value < 0:
            raise ArithmeticRejected("the square root of a negative number is not a real number")
        root = math.sqrt(value)
        return int(root) if root.is_integer() and abs(root) < 2**53 else root
    assert isinstance(node, ast.BinOp)
    left, right = _evaluate(node.left), _evaluate(node.right)
    if isinstance(node.op, ast.Pow):
        _check_power(left, right)
        try:
            result = left**right
        except OverflowError as exc:
            raise ArithmeticRejected("the result is too large") from exc
        if isinstance(result, complex):
            raise ArithmeticRejected("the result is not a real number")
    else:
        try:
            result = _BINARY[type(node.op)](left, right)
        except ZeroDivisionError as exc:
            raise ArithmeticRejected("the expression divides by zero") from exc
        except OverflowError as exc:
            raise ArithmeticRejected("the result is too large") from exc
    if isinstance(result, float) and not math.isfinite(result):
        raise ArithmeticRejected("the result is too large")
    if isinstance(result, int) and abs(result) >= 10**MAX_RESULT_DIGITS:
        raise ArithmeticRejected("the result is too large")
    return result


def _check_power(base: int | float, exponent: int | float) -> None:
    # Estimated before computing: 9**9**9 would otherwise hang the worker.
    if abs(base) in (0, 1):
        return
    if exponent * math.log10(abs(base)) > MAX_RESULT_DIGITS:
        raise ArithmeticRejected("the result is too large")


def _format_number(value: int | float) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)


# --- Sentences -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    """One sentence of a source, with its block's rank and position for ordering."""

    text: str
    block: int
    rank: int
    position: int
    cut_start: bool = False
    cut_end: bool = False

    @property
    def quoted(self) -> str:
        """Return the text as quoted in an answer, an ellipsis marking where a chunk cut it."""
        return ("…" if self.cut_start else "") + self.text + ("…" if self.cut_end else "")


def _normalise(text: str) -> str:
    text = _SPACE.sub(" ", text).strip().lower()
    return re.sub(r"\s+([.,;:!?])", r"\1", text)


def _segments(text: str) -> list[str]:
    """Return paragraph-level pieces: bullets and short headings stand alone, wrapped lines join."""
    pieces: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        lines = [line for line in paragraph.split("\n") if line.strip()]
        current: list[str] = []
        for i, line in enumerate(lines):
            stripped = line.strip()
            following = lines[i + 1].strip() if i + 1 < len(lines) else ""
            starts_piece = bool(_BULLET.match(line)) or (
                bool(current) and _is_heading(current[-1], stripped)
            )
            if starts_piece or (current and _is_heading(stripped, following)):
                if current:
                    pieces.append(" ".join(current))
                current = []
            current.append(_BULLET.sub("", line).strip())
        if current:
            pieces.append(" ".join(current))
    return pieces


def _is_heading(line: str, following: str) -> bool:
    # Short, unpunctuated, capitalised, and followed by a capitalised line: wrapped prose
    # rarely looks like that, while headings of extracted PDFs and slides do.
    return (
        len(line.split()) <= 6
        and not _TERMINAL.search(line)
        and line[:1].isupper()
        and (following[:1].isupper() or bool(_BULLET.match(following)))
    )


def split_sentences(text: str) -> list[str]:
    """Return the sentences of a text, keeping abbreviations, decimals and [n] citations intact."""
    sentences: list[str] = []
    for piece in _segments(text):
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


def _source_sentences(block: SourceBlock, rank: int) -> list[Sentence]:
    # Chunks keep their separator at the start, so a chunk may open with ". " of the last one.
    text = re.sub(r"^[\s.,;:!?)\]]+", "", block.text or "")
    parts = split_sentences(text)
    sentences = []
    for position, part in enumerate(parts):
        cut_start = position == 0 and part[:1].islower()
        cut_end = False
        if position == len(parts) - 1 and not _TERMINAL.search(part):
            words = raw_tokens(part)
            cut_end = not words or words[-1] in _DANGLING or part[-1] in ",-–("
        sentences.append(Sentence(part, block.index, rank, position, cut_start, cut_end))
    return sentences


def _near_duplicate(first: Sentence, second: Sentence, first_vector, second_vector) -> bool:
    # Overlapping chunks repeat sentences, sometimes cut short at one end.
    a, b = _normalise(first.text), _normalise(second.text)
    if a in b or b in a:
        return True
    return float(first_vector @ second_vector) >= NEAR_DUPLICATE_COSINE


def _overlap(claim_tokens: set[str], other_tokens: set[str]) -> float:
    return len(claim_tokens & other_tokens) / len(claim_tokens) if claim_tokens else 0.0


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
        blocks.append(
            (
                label,
                SourceBlock(
                    index=int(header.group(1)), file_name=header.group(2).strip(), text=body
                ),
            )
        )
    return blocks


# --- Scoring -------------------------------------------------------------------------------


def _score_sentences(query: str, sentences: list[Sentence]) -> tuple[np.ndarray, np.ndarray]:
    """Return each sentence's score and the sentence embeddings (for near-duplicate checks)."""
    from providers import embedder

    vectors = embedder.embed_texts([query] + [s.text for s in sentences])
    query_vector, sentence_vectors = vectors[0], vectors[1:]
    cosine = sentence_vectors @ query_vector
    query_terms = set(bm25_tokens(query))
    scores = np.empty(len(sentences), dtype=np.float64)
    for i, sentence in enumerate(sentences):
        lexical = _overlap(query_terms, set(bm25_tokens(sentence.text)))
        scores[i] = (
            COSINE_WEIGHT * float(cosine[i])
            + LEXICAL_WEIGHT * lexical
            + RANK_BONUS / (sentence.rank + 1)
        )
    return scores, sentence_vectors


def _ranking(scores: np.ndarray, sentences: list[Sentence]) -> list[int]:
    # Ties (duplicated chunks) go to the better-ranked source, then to reading order.
    return sorted(
        range(len(sentences)),
        key=lambda i: (-round(float(scores[i]), 6), sentences[i].rank, sentences[i].position),
    )


def _excluded_by_feedback(feedback: str) -> list[set[str]]:
    """Return the token sets of sentences the critic rejected (ours as JSON, others quoted)."""
    rejected: list[str] = []
    for line in feedback.splitlines():
        if line.startswith(UNSUPPORTED_MARKER):
            try:
                value = json.loads(line[len(UNSUPPORTED_MARKER) :])
            except json.JSONDecodeError:
                continue
            if isinstance(value, list):
                rejected.extend(str(item) for item in value)
    without_marker = "\n".join(
        line for line in feedback.splitlines() if not line.startswith(UNSUPPORTED_MARKER)
    )
    rejected.extend(re.findall(r"[\"“]([^\"“”]{20,})[\"”]", without_marker))
    sets = [set(bm25_tokens(_CITATION.sub(" ", text))) for text in rejected]
    return [tokens for tokens in sets if tokens]


def _is_rejected(tokens: set[str], rejected: list[set[str]]) -> bool:
    for other in rejected:
        union = tokens | other
        if union and len(tokens & other) / len(union) >= SUPPORT_OVERLAP:
            return True
    return False


# --- The provider --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    retrieve: bool
    use_external: bool
    query_type: str
    rule: str
    expression: str | None = None

    @property
    def reasoning(self) -> str:
        return _RULES[self.rule]


_RULES = {
    "greeting": "Greeting or small talk: answered directly, without the documents.",
    "documents": "The question refers to documents or the team's own material: retrieve.",
    "arithmetic": "An arithmetic expression: computed directly, without the documents.",
    "coding": "A programming request: not a question about the documents.",
    "live_world": "Live world data (news, weather, prices): searched on the web only.",
    "live": "A recent or live question: the documents are searched, and the web as well.",
    "general": "A well-known general-knowledge question: not about the documents.",
    "default": "No direct-answer rule matched, so the documents are searched.",
}


def classify(query: str) -> _Plan:
    """Return the rule-based plan of a query; retrieval unless a clear rule says otherwise."""
    text = _SPACE.sub(" ", (query or "").strip().lower())
    kind = "analytical" if _ANALYTICAL.search(text) else "factual"
    parts = [part.strip() for part in re.split(r"[,.!?;:]+|\s+-\s+", text) if part.strip()]
    if all(_GREETING_PART.match(part) for part in parts):
        return _Plan(False, False, "conversational", "greeting")
    # Checked before every direct-answer rule: a question about the team's material is
    # answered from it even when it looks like general knowledge or live data.
    if _DOC_REFERENCE.search(text):
        return _Plan(True, False, kind, "documents")
    expression = arithmetic_expression(query)
    if expression:
        return _Plan(False, False, "computational", "arithmetic", expression)
    if _CODING.search(text):
        return _Plan(False, False, "coding", "coding")
    general = any(pattern.match(text.rstrip("?!. ")) for pattern in _GENERAL_KNOWLEDGE)
    live = bool(_LIVE.search(text)) or any(
        int(year) >= LIVE_FROM_YEAR for year in _YEAR.findall(text)
    )
    if _WORLD_LIVE.search(text) or (general and live):
        return _Plan(False, True, "current_events", "live_world")
    if live:
        return _Plan(True, True, "current_events", "live")
    if general:
        return _Plan(False, False, "general_knowledge", "general")
    return _Plan(True, False, kind, "default")


class ExtractiveProvider(AnswerProvider):
    """Answers by quoting the sources' most relevant sentences; plans and checks by rules."""

    name = "extractive"
    label = "Extractive (offline)"

    def _start(self, stage: str, ctx: CallContext) -> None:
        if ctx.is_cancelled():
            raise RunCancelled()
        ctx.record(stage, Usage(calls=1))

    def plan(self, query: str, ctx: CallContext) -> dict[str, Any]:
        self._start("planner", ctx)
        plan = classify(query)
        return {
            "retrieve": plan.retrieve,
            "use_external": plan.use_external,
            "query_type": plan.query_type,
            "reasoning": plan.reasoning,
        }

    def direct_answer(self, query: str, ctx: CallContext) -> str:
        self._start("reasoning", ctx)
        plan = classify(query)
        if plan.query_type == "conversational":
            text = (query or "").lower()
            if _THANKS.search(text):
                opening = "You're welcome!"
            elif _FAREWELL.search(text):
                opening = "Goodbye, and come back any time!"
            else:
                opening = "Hello!"
            return (
                f"{opening} I answer questions from your team's uploaded documents: add files to a "
                "knowledge base, ask a question, and I quote the passages that answer it with [n] "
                "citations to their sources."
            )
        if plan.expression:
            try:
                value = evaluate_arithmetic(plan.expression)
            except ArithmeticRejected as exc:
                return f"I cannot compute that: {exc}."
            return f"{plan.expression.replace('**', '^')} = {_format_number(value)}"
        if plan.retrieve:
            return (
                "No passages were retrieved from your documents for this question, so the offline "
                "extractive provider has nothing to quote. Try rephrasing it, or upload documents "
                "that cover it."
            )
        return (
            "The offline extractive provider answers only from your team's documents, by quoting "
            "them, so it cannot answer this kind of question on its own. Configure a generative "
            "provider (OpenAI or Ollama) to get answers to general, coding or live questions."
        )

    def answer(
        self,
        query: str,
        context: str,
        sources: list[SourceBlock],
        ctx: CallContext,
        feedback: str = "",
    ) -> dict[str, Any]:
        self._start("reasoning", ctx)
        blocks = list(sources) or [block for _, block in parse_context_blocks(context)]
        candidates = [
            sentence
            for rank, block in enumerate(blocks)
            for sentence in _source_sentences(block, rank)
            if len(raw_tokens(_CITATION.sub(" ", sentence.text))) >= MIN_SENTENCE_WORDS
        ]
        retrying = bool(feedback.strip())
        rejected = _excluded_by_feedback(feedback) if retrying else []
        if rejected:
            candidates = [
                s for s in candidates if not _is_rejected(set(bm25_tokens(s.text)), rejected)
            ]
        if not candidates:
            return _not_found(0.0)
        if ctx.is_cancelled():
            raise RunCancelled()
        scores, vectors = _score_sentences(query, candidates)
        for i, sentence in enumerate(candidates):
            if sentence.cut_start or sentence.cut_end:
                scores[i] -= FRAGMENT_PENALTY
        threshold = RELEVANCE_THRESHOLD - (RETRY_THRESHOLD_DROP if retrying else 0.0)
        cutoff = RETRY_RELATIVE_CUTOFF if retrying else RELATIVE_CUTOFF
        limit = RETRY_MAX_SENTENCES if retrying else MAX_SENTENCES
        order = _ranking(scores, candidates)
        best = float(scores[order[0]])
        if best < threshold:
            return _not_found(best)
        chosen: list[int] = []
        for i in order:
            if len(chosen) >= limit or scores[i] < threshold or scores[i] < best * cutoff:
                break
            if not any(
                _near_duplicate(candidates[i], candidates[j], vectors[i], vectors[j])
                for j in chosen
            ):
                chosen.append(i)
        # Best first: the most direct evidence leads and the rest reads as support for it.
        facts = [candidates[i].quoted for i in chosen]
        return {
            "answer": " ".join(
                f"{fact} [{candidates[i].block}]" for fact, i in zip(facts, chosen, strict=True)
            ),
            "confidence": round(min(max(best, 0.0), 1.0), 2),
            "cited_sources": sorted({candidates[i].block for i in chosen}),
            "key_facts": facts,
            "is_sufficient": best >= SUFFICIENT_THRESHOLD,
        }

    def answer_plain(
        self,
        query: str,
        context: str,
        sources: list[SourceBlock],
        ctx: CallContext,
        feedback: str = "",
    ) -> str:
        return self.answer(query, context, sources, ctx, feedback=feedback)["answer"]

    def reflect(
        self, query: str, context: str, answer: str, sources: list[SourceBlock], ctx: CallContext
    ) -> dict[str, Any]:
        self._start("reflection", ctx)
        blocks = {
            block.index: block
            for block in (list(sources) or [b for _, b in parse_context_blocks(context)])
        }
        lines = [
            line
            for line in (answer or "").splitlines()
            if line.strip() and not line.strip().lower().startswith(CAVEAT_PREFIX)
        ]
        body = "\n".join(lines).strip()
        if not body:
            return _verdict(
                False,
                0.0,
                ["The answer is empty."],
                "No answer was produced; quote evidence that answers the question.",
            )
        if _normalise(body).startswith(_normalise(NOT_FOUND)[:40]):
            return _verdict(
                False,
                0.0,
                ["No source sentence was relevant enough to answer the question."],
                "No sentence passed the relevance threshold; widen to more, weaker evidence.",
            )
        issues: list[str] = []
        unsupported: list[str] = []
        checked = 0
        for line in lines:
            for sentence in split_sentences(_BULLET.sub("", line)):
                cited = [
                    int(n)
                    for group in _CITATION.findall(sentence)
                    for n in re.split(r"\s*[,;]\s*", group)
                ]
                claim = _SPACE.sub(" ", _CITATION.sub(" ", sentence)).strip()
                claim = re.sub(r"\s+([.,;:!?])", r"\1", claim)
                claim = _ELLIPSIS_EDGES.sub("", claim)
                tokens = set(bm25_tokens(claim))
                if not tokens:
                    continue
                checked += 1
                problem = self._support_problem(claim, tokens, cited, blocks)
                if problem:
                    issues.append(f'{problem}: "{_shorten(claim)}"')
                    unsupported.append(claim)
        if not checked:
            return _verdict(
                False,
                0.0,
                ["The answer has no checkable sentence."],
                "Quote evidence sentences with [n] citations.",
            )
        supported_share = (checked - len(unsupported)) / checked
        if not unsupported:
            return _verdict(True, round(supported_share, 2), [], "")
        feedback = (
            UNSUPPORTED_MARKER + json.dumps(unsupported, ensure_ascii=False) + "\n"
            "Drop these sentences and quote only sentences that appear in the sources they cite."
        )
        return _verdict(False, round(supported_share, 2), issues, feedback)

    @staticmethod
    def _support_problem(
        claim: str, tokens: set[str], cited: list[int], blocks: dict[int, SourceBlock]
    ) -> str:
        if not cited:
            return "No citation"
        missing = [n for n in cited if n not in blocks]
        if missing:
            return f"Cites a source that does not exist [{missing[0]}]"
        normalised = _normalise(claim)
        for n in cited:
            text = blocks[n].text or ""
            if normalised and normalised in _normalise(text):
                return ""
            for sentence in split_sentences(text):
                if _overlap(tokens, set(bm25_tokens(sentence))) >= SUPPORT_OVERLAP:
                    return ""
        return f"Not supported by [{']['.join(str(n) for n in cited)}]"

    def compress(self, query: str, context: str, ctx: CallContext) -> str:
        from django.conf import settings

        self._start("compressor", ctx)
        limit = int(settings.MAX_CONTEXT_CHARS)
        parsed = parse_context_blocks(context)
        labels = {block.index: label for label, block in parsed}
        sentences = [
            Sentence(part, block.index, rank, position)
            for rank, (_, block) in enumerate(parsed)
            for position, part in enumerate(split_sentences(block.text))
        ]
        if not sentences:
            return ""
        scores, _ = _score_sentences(query, sentences)
        kept: dict[int, list[int]] = {}
        total = 0
        for i in _ranking(scores, sentences):
            sentence = sentences[i]
            label = labels[sentence.block]
            if sentence.block in kept:
                cost = len(sentence.text) + 1
            else:
                # A new block costs its label line, a newline and the blank line before it.
                cost = len(label) + 1 + len(sentence.text) + (2 if kept else 0)
                if not label:
                    cost -= 1
            if total + cost > limit:
                continue
            kept.setdefault(sentence.block, []).append(i)
            total += cost
        if not kept:
            best = sentences[_ranking(scores, sentences)[0]]
            label = labels[best.block]
            room = max(limit - len(label) - 1, 0)
            return f"{label}\n{best.text[:room]}".strip() if label else best.text[:limit]
        output = []
        for label, block in parsed:
            if block.index not in kept:
                continue
            body = " ".join(
                sentences[i].text
                for i in sorted(kept[block.index], key=lambda i: sentences[i].position)
            )
            output.append(f"{label}\n{body}" if label else body)
        return "\n\n".join(output)

    def rewrite_query(self, query: str, feedback: str, ctx: CallContext) -> str:
        self._start("reflection", ctx)
        if not (feedback or "").strip():
            return query
        # Our feedback lists rejected sentences: their words are what went wrong, not what lacks.
        text = "\n".join(
            line for line in feedback.splitlines() if not line.startswith(UNSUPPORTED_MARKER)
        )
        known = set(bm25_tokens(query))
        candidates: list[tuple[bool, int, str]] = []
        seen: set[str] = set()
        for position, match in enumerate(
            re.finditer(r"[A-Za-z][A-Za-z0-9_'-]*[A-Za-z0-9]|\d+(?:[.,]\d+)*%?", text)
        ):
            word = match.group(0)
            lower = word.lower()
            if (
                len(lower) < 3
                or lower in STOP_WORDS
                or lower in _META_WORDS
                or lower in _COMMON_WORDS
            ):
                continue
            stems = bm25_tokens(word)
            if not stems or stems[0] in known or stems[0] in seen:
                continue
            seen.add(stems[0])
            # Names, acronyms and numbers name the missing evidence more precisely than verbs do.
            distinctive = word[0].isupper() or word[0].isdigit() or any(c.isdigit() for c in word)
            candidates.append((not distinctive, position, word))
        chosen = sorted(sorted(candidates)[:5], key=lambda candidate: candidate[1])
        if not chosen:
            return query
        return f"{query.strip()} {' '.join(word for _, _, word in chosen)}"

    def available(self) -> bool:
        return True

    def models(self) -> list[str]:
        return ["extractive"]

    def default_model(self) -> str:
        return "extractive"


def _shorten(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _not_found(best: float) -> dict[str, Any]:
    return {
        "answer": NOT_FOUND,
        "confidence": round(min(max(best, 0.0), 1.0) * 0.5, 2),
        "cited_sources": [],
        "key_facts": [],
        "is_sufficient": False,
    }


def _verdict(grounded: bool, confidence: float, issues: list[str], feedback: str) -> dict[str, Any]:
    return {
        "grounded": grounded,
        "confidence": confidence,
        "issues": issues,
        "feedback": feedback,
        "should_retry": not grounded,
    }
