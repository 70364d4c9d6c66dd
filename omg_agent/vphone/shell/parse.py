"""Parser for the vphone shell: tokens → :mod:`~omg_agent.vphone.shell.syntax` tree.

Grammar (a subset of POSIX sh)::

    script   := and_or ((';' | '&' | NEWLINE) and_or)* [';' | '&']
    and_or   := pipeline (('&&' | '||') NEWLINE* pipeline)*
    pipeline := ['!'] command ('|' NEWLINE* command)*
    command  := (NAME=value)* (word | redirect)+

Compound commands (``if``, ``for``, subshells, ``{ }``) are syntax errors here: clients of a
phone's shell do not send them, and refusing is safer than half-supporting them.
"""

from __future__ import annotations

import re

from omg_agent.vphone.shell.lexer import Token, tokenize
from omg_agent.vphone.shell.syntax import (
    AndOr,
    Assignment,
    ListItem,
    Lit,
    Pipeline,
    Redirect,
    Script,
    ShellSyntaxError,
    SimpleCommand,
    Word,
)

REDIRECT_OPS = {">": 1, ">>": 1, ">|": 1, ">&": 1, "&>": 1, "<": 0, "<&": 0}
UNSUPPORTED_KEYWORDS = frozenset({
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case",
    "esac", "function", "select", "time", "{", "}", "[[", "]]", "coproc",
})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _describe(tok: Token | None) -> str:
    if tok is None:
        return "unexpected end of file"
    if tok.kind == "newline":
        return "newline unexpected"
    return f"'{tok.op}' unexpected"


class Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.toks = tokens
        self.i = 0

    def _peek(self) -> Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def _is_op(self, *ops: str) -> bool:
        tok = self._peek()
        return tok is not None and tok.kind == "op" and tok.op in ops

    def _skip_newlines(self) -> None:
        while (tok := self._peek()) is not None and tok.kind == "newline":
            self.i += 1

    def script(self) -> Script:
        items: list[ListItem] = []
        self._skip_newlines()
        while self._peek() is not None:
            body = self._and_or()
            background = False
            tok = self._peek()
            if tok is not None:
                if tok.kind == "op" and tok.op in (";", "&"):
                    background = tok.op == "&"
                    self.i += 1
                elif tok.kind != "newline":
                    raise ShellSyntaxError(_describe(tok))
            items.append(ListItem(body, background))
            self._skip_newlines()
        return tuple(items)

    def _and_or(self) -> AndOr:
        first = self._pipeline()
        rest: list[tuple[str, Pipeline]] = []
        while self._is_op("&&", "||"):
            op = self.toks[self.i].op
            self.i += 1
            self._skip_newlines()
            rest.append((op, self._pipeline()))
        return AndOr(first, tuple(rest))

    def _pipeline(self) -> Pipeline:
        negate = False
        tok = self._peek()
        if tok is not None and tok.kind == "word" and tok.word and tok.word.plain == "!":
            negate = True
            self.i += 1
        commands = [self._command()]
        while self._is_op("|"):
            self.i += 1
            self._skip_newlines()
            commands.append(self._command())
        return Pipeline(tuple(commands), negate)

    def _command(self) -> SimpleCommand:
        assigns: list[Assignment] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        while (tok := self._peek()) is not None:
            if tok.kind == "word" and tok.word is not None:
                self.i += 1
                assignment = None if words else _as_assignment(tok.word)
                if assignment is not None:
                    assigns.append(assignment)
                    continue
                if not words and tok.word.plain in UNSUPPORTED_KEYWORDS:
                    raise ShellSyntaxError(f"'{tok.word.plain}' is not supported by this shell")
                words.append(tok.word)
            elif tok.kind == "op" and tok.op in REDIRECT_OPS:
                self.i += 1
                redirects.append(self._redirect(tok))
            else:
                break
        if not (assigns or words or redirects):
            raise ShellSyntaxError(_describe(self._peek()))
        return SimpleCommand(tuple(assigns), tuple(words), tuple(redirects))

    def _redirect(self, op_tok: Token) -> Redirect:
        target = self._peek()
        if target is None or target.kind != "word" or target.word is None:
            raise ShellSyntaxError(_describe(target))
        self.i += 1
        fd = op_tok.fd if op_tok.fd is not None else REDIRECT_OPS[op_tok.op]
        if op_tok.op == "&>" and op_tok.fd is not None:
            raise ShellSyntaxError("'&>' unexpected")
        return Redirect(fd, op_tok.op, target.word)


def _as_assignment(word: Word) -> Assignment | None:
    first = word.parts[0] if word.parts else None
    if not isinstance(first, Lit) or first.quoted:
        return None
    m = _ASSIGNMENT.match(first.text)
    if m is None:
        return None
    name = m.group()[:-1]
    rest = first.text[m.end():]
    parts = ((Lit(rest, False),) if rest else ()) + word.parts[1:]
    return Assignment(name, Word(parts))


def parse(src: str) -> Script:
    """Parse a command line; raises :class:`ShellSyntaxError` with sh's complaint."""
    return Parser(tokenize(src)).script()
