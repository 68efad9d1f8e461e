"""A safe arithmetic evaluator: questions like "what is 15% of 200" are computed, not searched.

Expressions are parsed with `ast` and only numbers, + - * / // % ** and sqrt() are allowed;
powers are estimated before they are computed, so no input can hang the worker.
"""

from __future__ import annotations

import ast
import math
import operator
import re

_SPACE = re.compile(r"\s+")
_ARITHMETIC_PREFIX = re.compile(
    r"^(?:please |can you |could you )?(?:what(?: is|'s)|whats|calculate|compute|evaluate|"
    r"solve|how much is|work out|tell me)\s+"
)
# The words and signs that stand for an operator.
_OPERATORS = {
    "square root of": " sqrt ", "√": " sqrt ", "multiplied by": "*", "times": "*", "×": "*",
    "x": "*", "divided by": "/", "÷": "/", "over": "/", "plus": "+", "minus": "-",
    "to the power of": "**", "raised to the power of": "**", "raised to": "**", "^": "**",
    "squared": "**2", "cubed": "**3", "mod": "%", "modulo": "%",
}  # fmt: skip
# One pattern for all of them, longest first; a word stands alone ("x" between numbers).
_OPERATOR = re.compile(
    "|".join(
        rf"(?<![\w]){re.escape(word)}(?![\w])" if word[0].isalpha() else re.escape(word)
        for word in sorted(_OPERATORS, key=len, reverse=True)
    )
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
    # "3x5": an x between numbers is a times sign too.
    text = re.sub(r"(?<=\d)x(?=\d)", " x ", text)
    text = _OPERATOR.sub(lambda match: _OPERATORS[match.group(0)], text)
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


def format_number(value: int | float) -> str:
    """Return a computed value as an answer shows it: whole floats without a decimal point."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)
