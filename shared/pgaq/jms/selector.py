"""The syntax check of a message selector that `Session.create_consumer` (and the other
factories taking a selector) runs before it returns, without the database.

JMS 1.1 has createConsumer throw InvalidSelectorException for a selector that does not
parse. The selector compiler is the database's (`aq.compile_condition`, the
R__20_conditions_*.sql migrations), and a factory that returns at once cannot ask it; this
module is the grammar of that compiler's lexer and parser only (R__20_conditions_2_lexer.sql
and R__20_conditions_3_parser.sql, read the same way, token for token, with the same
positions and messages), as a recogniser: it builds no tree and compiles nothing. What the
grammar accepts, the database still checks when the consumer opens (`await` of the
factory's result, or its first receive): the JMS dialect's own refusals (functions, `||`,
IN and LIKE with non-literals, numeric literal ranges, unknown JMS headers) and type
errors, and, on an object-typed queue, the AQ dialect's attribute names. Both dialects share
this grammar, so the check refuses nothing either would accept.

It never refuses what the database accepts: tests/fuzz/test_fuzz_selector_syntax.py compares
it with the database's parser on random token streams and text. Characters outside ASCII
that are not the lexer's white space are read as letters (the database reads them by its
locale, and a locale that does not take one as a letter refuses the selector at open).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..errors import QueueError
from . import errors as jerr
from ._support import INVALID_SELECTOR, make

# the lexer's white space: Java's Character.isWhitespace
_WHITE = frozenset(" \t\n\v\f\r\x1c\x1d\x1e\x1f\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
                   "\u2006\u2008\u2009\u200a\u2028\u2029\u205f\u3000")
_KEYWORDS = frozenset({"AND", "OR", "NOT", "BETWEEN", "LIKE", "IN", "IS", "NULL", "TRUE", "FALSE",
                       "ESCAPE"})
_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_OPERATORS2 = ("<>", "!=", "<=", ">=", "||")
_OPERATORS1 = frozenset("-+*/=<>(),.")
_STRING_DONE = re.compile(r"'(?:[^']|'')*'", re.S)
_QUOTED_DONE = re.compile(r'"(?:[^"]|"")+"', re.S)
_COMPARISONS = frozenset({"=", "<>", "!=", "<", ">", "<=", ">="})


class _Token(NamedTuple):
    kind: str  # string quoted_identifier number keyword identifier operator invalid end
    value: str
    pos: int  # 1-based character position


class _SyntaxError(Exception):
    def __init__(self, pos: int, detail: str) -> None:
        super().__init__(f"ORA-00936: invalid condition at position {pos}: {detail}")


def _letter(ch: str) -> bool:
    if ch.isascii():
        return ch.isalpha() or ch in "_$"
    return ch not in _WHITE


def _word_char(ch: str) -> bool:
    if ch.isascii():
        return ch.isalnum() or ch in "_$#"
    return ch not in _WHITE


def _quoted(text: str, i: int, quote: str) -> int:
    """The end of a '...' or "..." token from i (its opening quote): a doubled quote is one
    character, an unterminated token runs to the end of the text."""
    j = i + 1
    n = len(text)
    while j < n:
        if text[j] != quote:
            j += 1
        elif j + 1 < n and text[j + 1] == quote:
            j += 2
        else:
            return j + 1
    return n


def tokenize(text: str) -> list[_Token]:
    """aq._condition_tokenize: the tokens, white space dropped, an end token last."""
    out: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _WHITE:
            i += 1
            continue
        if ch in "'\"":
            j = _quoted(text, i, ch)
            out.append(_Token("string" if ch == "'" else "quoted_identifier", text[i:j], i + 1))
        elif m := _NUMBER.match(text, i):
            j = m.end()
            out.append(_Token("number", text[i:j], i + 1))
        elif _letter(ch):
            j = i + 1
            while j < n and _word_char(text[j]):
                j += 1
            word = text[i:j]
            upper = word.upper()
            out.append(_Token("keyword", upper, i + 1) if upper in _KEYWORDS
                       else _Token("identifier", word, i + 1))
        elif text.startswith(_OPERATORS2, i):
            j = i + 2
            out.append(_Token("operator", text[i:j], i + 1))
        else:
            j = i + 1
            out.append(_Token("operator" if ch in _OPERATORS1 else "invalid", ch, i + 1))
        i = j
    out.append(_Token("end", "", n + 1))
    return out


def _describe(t: _Token) -> str:
    if t.kind == "end":
        return "end of condition"
    if t.kind == "string":
        return "string literal"
    return f'"{t.value}"'


def _is(t: _Token, kind: str, value: str) -> bool:
    return t.kind == kind and t.value == value


def _at(toks: list[_Token], i: int) -> _Token:
    return toks[i] if i < len(toks) else _Token("", "", 0)  # past the end: SQL's NULL


def _parse(toks: list[_Token], i: int, min_prec: int, depth: int) -> int:
    """aq._condition_parse, recognising only: the index of the token after the operand and
    the operators binding at least as tightly as min_prec."""
    tok = toks[i]
    if depth > 100:
        raise _SyntaxError(tok.pos, "condition is nested too deeply")
    # an operand
    if _is(tok, "keyword", "NOT"):
        if min_prec > 3:
            raise _SyntaxError(tok.pos, 'expected an operand, found "NOT"')
        i = _parse(toks, i + 1, 3, depth + 1)
    elif tok.kind == "operator" and tok.value in ("+", "-"):
        i = _parse(toks, i + 1, 7, depth + 1)
    elif tok.kind == "number":
        i += 1
    elif tok.kind == "string":
        if not _STRING_DONE.fullmatch(tok.value):
            raise _SyntaxError(tok.pos, "string literal not properly terminated")
        i += 1
    elif tok.kind == "keyword" and tok.value in ("TRUE", "FALSE", "NULL"):
        i += 1
    elif _is(tok, "operator", "("):
        i = _parse(toks, i + 1, 1, depth + 1)
        if not _is(toks[i], "operator", ")"):
            raise _SyntaxError(toks[i].pos, 'expected ")", found ' + _describe(toks[i]))
        i += 1
    elif tok.kind in ("identifier", "quoted_identifier"):
        parts = 0
        first_quoted = False
        while True:
            tok = toks[i]
            if tok.kind == "quoted_identifier":
                if not _QUOTED_DONE.fullmatch(tok.value):
                    raise _SyntaxError(tok.pos, "invalid quoted identifier")
            elif tok.kind != "identifier":
                raise _SyntaxError(tok.pos, "expected identifier, found " + _describe(tok))
            if parts == 0:
                first_quoted = tok.kind == "quoted_identifier"
            parts += 1
            i += 1
            if not _is(toks[i], "operator", "."):
                break
            i += 1
        if _is(toks[i], "operator", "("):  # a function call
            if parts > 1 or first_quoted:
                raise _SyntaxError(toks[i].pos, 'unexpected "("')
            i += 1
            i = i + 1 if _is(toks[i], "operator", ")") else _items(toks, i, 1, depth + 1)
    else:
        raise _SyntaxError(tok.pos, "expected an operand, found " + _describe(tok))

    # infix and postfix operators
    comparison_seen = False
    while True:
        tok = toks[i]
        op: str | None = None
        negated = False
        prec = 0
        if tok.kind == "keyword":
            if tok.value == "OR":
                prec, op = 1, "OR"
            elif tok.value == "AND":
                prec, op = 2, "AND"
            elif tok.value in ("IS", "BETWEEN", "LIKE", "IN"):
                prec, op = 4, tok.value
            elif (tok.value == "NOT" and _at(toks, i + 1).kind == "keyword"
                  and _at(toks, i + 1).value in ("BETWEEN", "LIKE", "IN")):
                prec, op, negated = 4, toks[i + 1].value, True
        elif tok.kind == "operator":
            if tok.value in _COMPARISONS:
                prec, op = 4, tok.value
            elif tok.value in ("+", "-", "||"):
                prec, op = 5, tok.value
            elif tok.value in ("*", "/"):
                prec, op = 6, tok.value
        if op is None or prec < min_prec:
            return i
        if prec == 4 and comparison_seen:
            raise _SyntaxError(tok.pos, "unexpected " + _describe(tok))
        i += 2 if negated else 1
        if op in ("OR", "AND"):
            i = _parse(toks, i, prec + 1, depth + 1)
        elif op == "IS":
            if _is(toks[i], "keyword", "NOT"):
                i += 1
            if not _is(toks[i], "keyword", "NULL"):
                raise _SyntaxError(toks[i].pos, "expected NULL, found " + _describe(toks[i]))
            i += 1
        elif op == "BETWEEN":
            i = _parse(toks, i, 5, depth + 1)
            if not _is(toks[i], "keyword", "AND"):
                raise _SyntaxError(toks[i].pos, "expected AND, found " + _describe(toks[i]))
            i = _parse(toks, i + 1, 5, depth + 1)
        elif op == "LIKE":
            i = _parse(toks, i, 5, depth + 1)
            if _is(toks[i], "keyword", "ESCAPE"):
                i = _parse(toks, i + 1, 5, depth + 1)
        elif op == "IN":
            if not _is(toks[i], "operator", "("):
                raise _SyntaxError(toks[i].pos, 'expected "(", found ' + _describe(toks[i]))
            i = _items(toks, i + 1, 5, depth + 1)
        else:
            i = _parse(toks, i, 5 if prec == 4 else prec + 1, depth + 1)
        if prec == 4:
            comparison_seen = True


def _items(toks: list[_Token], i: int, min_prec: int, depth: int) -> int:
    """Comma-separated operands from `i` up to the closing ")" (a call's arguments, an IN
    list); the index after it."""
    while True:
        i = _parse(toks, i, min_prec, depth)
        if not _is(toks[i], "operator", ","):
            break
        i += 1
    if not _is(toks[i], "operator", ")"):
        raise _SyntaxError(toks[i].pos, 'expected ")", found ' + _describe(toks[i]))
    return i + 1


def syntax_error(selector: str) -> str | None:
    """The database parser's ORA-00936 message for `selector`, or None when it parses (or
    is blank: no selector)."""
    toks = tokenize(selector)
    if len(toks) == 1:
        return None
    try:
        i = _parse(toks, 0, 1, 0)
        if toks[i].kind != "end":
            raise _SyntaxError(toks[i].pos, "unexpected " + _describe(toks[i]))
    except _SyntaxError as exc:
        return str(exc)
    return None


def check_syntax(selector: str | None) -> None:
    """InvalidSelectorException (JMS-159, its linked exception the ORA-00936 the database
    would raise) when `selector` does not parse; a None or blank selector is no selector."""
    if selector is None:
        return
    if not isinstance(selector, str):
        raise make(jerr.InvalidSelectorException, INVALID_SELECTOR,
                   f"Invalid selector {selector!r}: a selector is a string")
    if not selector.strip():
        return
    message = syntax_error(selector)
    if message is None:
        return
    linked = jerr.from_pgaq_error(QueueError(message, 936, "42601"))
    raise make(jerr.InvalidSelectorException, INVALID_SELECTOR,
               f"Invalid selector {selector!r}: {linked.message}", linked)
