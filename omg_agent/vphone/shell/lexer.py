"""Tokenizer for the vphone shell: turns a command line into words and operators like sh.

Quoting follows POSIX sh (mksh on Android): inside single quotes everything is literal;
inside double quotes a backslash escapes only ``$ ` " \\`` and newline, and ``$NAME`` expands;
outside quotes a backslash escapes any character. ``$'...'`` (ANSI-C quoting) is decoded.
Command substitution (``$(...)``, backticks) and arithmetic are rejected with a syntax error:
the virtual phone never executes text a client meant as data.
"""

from __future__ import annotations

from dataclasses import dataclass

from omg_agent.vphone.shell.syntax import Lit, Param, Part, ShellSyntaxError, Word

BLANKS = " \t"
OPERATOR_CHARS = ";&|<>()"
# Longest first, so ">>" wins over ">".
OPERATORS = ("&&", "||", ";;", ">>", "<<", ">&", "<&", "&>", ">|", "<>",
             ";", "&", "|", "<", ">", "(", ")")
UNSUPPORTED_OPERATORS = {
    "<<": "here documents are not supported",
    "<>": "'<>' redirection is not supported",
}
SPECIAL_PARAMS = "?$#!-*@0123456789"
ANSI_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n",
                "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
NO_SUBSTITUTION = "command substitution is not supported"


@dataclass(frozen=True)
class Token:
    kind: str  # "word" | "op" | "newline"
    op: str = ""
    word: Word | None = None
    fd: int | None = None  # an io-number glued to a redirection operator ("2>")


def _is_name_start(c: str) -> bool:
    return c == "_" or ("a" <= c <= "z") or ("A" <= c <= "Z")


def _is_name_char(c: str) -> bool:
    return _is_name_start(c) or "0" <= c <= "9"


class _WordBuilder:
    """Collects the parts of one word, merging neighbouring literals of the same quoting.

    Characters are buffered in a list so building a long word stays linear.
    """

    def __init__(self) -> None:
        self._parts: list[Part] = []
        self._buf: list[str] = []
        self._buf_quoted: bool | None = None

    def _flush(self) -> None:
        if self._buf_quoted is not None:
            self._parts.append(Lit("".join(self._buf), self._buf_quoted))
        self._buf, self._buf_quoted = [], None

    def lit(self, text: str, quoted: bool) -> None:
        if self._buf_quoted is not None and self._buf_quoted != quoted:
            self._flush()
        self._buf_quoted = quoted
        self._buf.append(text)

    def param(self, name: str, quoted: bool) -> None:
        self._flush()
        self._parts.append(Param(name, quoted))

    @property
    def parts(self) -> tuple[Part, ...]:
        self._flush()
        return tuple(self._parts)

    def io_number(self) -> int | None:
        parts = self.parts
        if len(parts) == 1:
            part = parts[0]
            if isinstance(part, Lit) and not part.quoted and part.text.isdigit():
                return int(part.text) if len(part.text) == 1 else None
        return None


class Lexer:
    def __init__(self, src: str) -> None:
        self.s = src
        self.i = 0
        self.tokens: list[Token] = []
        self._pending_fd: int | None = None

    def _peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def run(self) -> list[Token]:
        while True:
            self._skip_blanks()
            c = self._peek()
            if not c:
                return self.tokens
            if c == "#":
                end = self.s.find("\n", self.i)
                self.i = len(self.s) if end < 0 else end
            elif c == "\n":
                self.tokens.append(Token("newline"))
                self.i += 1
            elif c in OPERATOR_CHARS:
                self._operator()
            else:
                self._word()

    def _skip_blanks(self) -> None:
        while True:
            c = self._peek()
            if c and c in BLANKS:
                self.i += 1
            elif c == "\\" and self._peek(1) == "\n":
                self.i += 2
            else:
                return

    def _operator(self) -> None:
        for op in OPERATORS:
            if self.s.startswith(op, self.i):
                break
        if op in UNSUPPORTED_OPERATORS:
            raise ShellSyntaxError(UNSUPPORTED_OPERATORS[op])
        self.i += len(op)
        fd, self._pending_fd = self._pending_fd, None
        self.tokens.append(Token("op", op=op, fd=fd))

    def _word(self) -> None:
        w = _WordBuilder()
        start = self.i
        while True:
            c = self._peek()
            if not c or c in BLANKS or c == "\n" or c in OPERATOR_CHARS:
                break
            if c == "\\":
                self._backslash(w)
            elif c == "'":
                w.lit(self._single_quoted(), True)
            elif c == '"':
                self._double_quoted(w)
            elif c == "$":
                self.i += 1
                self._dollar(w, quoted=False)
            elif c == "`":
                raise ShellSyntaxError(NO_SUBSTITUTION)
            elif c == "~" and self.i == start:
                self._tilde(w)
            else:
                w.lit(c, False)
                self.i += 1
        fd = w.io_number() if self._peek() in ("<", ">") else None
        if fd is not None:
            self._pending_fd = fd
        else:
            self.tokens.append(Token("word", word=Word(w.parts)))

    def _backslash(self, w: _WordBuilder) -> None:
        nxt = self._peek(1)
        if nxt == "\n":
            self.i += 2  # line continuation
        elif nxt:
            w.lit(nxt, True)
            self.i += 2
        else:
            w.lit("\\", True)
            self.i += 1

    def _single_quoted(self) -> str:
        end = self.s.find("'", self.i + 1)
        if end < 0:
            raise ShellSyntaxError("unterminated quoted string")
        text = self.s[self.i + 1:end]
        self.i = end + 1
        return text

    def _double_quoted(self, w: _WordBuilder) -> None:
        self.i += 1
        w.lit("", True)  # "" is still an argument
        while True:
            c = self._peek()
            if not c:
                raise ShellSyntaxError("unterminated quoted string")
            self.i += 1
            if c == '"':
                return
            if c == "\\":
                nxt = self._peek()
                if nxt in ('$', '`', '"', '\\'):
                    w.lit(nxt, True)
                    self.i += 1
                elif nxt == "\n":
                    self.i += 1
                else:
                    w.lit("\\", True)
            elif c == "$":
                self._dollar(w, quoted=True)
            elif c == "`":
                raise ShellSyntaxError(NO_SUBSTITUTION)
            else:
                w.lit(c, True)

    def _dollar(self, w: _WordBuilder, quoted: bool) -> None:
        """Called with ``self.i`` just past a ``$``."""
        c = self._peek()
        if c == "(":
            raise ShellSyntaxError(NO_SUBSTITUTION)
        if c == "{":
            w.param(self._braced_param(), quoted)
        elif c == "'" and not quoted:
            w.lit(self._ansi_c_string(), True)
        elif c and _is_name_start(c):
            j = self.i
            while j < len(self.s) and _is_name_char(self.s[j]):
                j += 1
            w.param(self.s[self.i:j], quoted)
            self.i = j
        elif c and c in SPECIAL_PARAMS:
            w.param(c, quoted)
            self.i += 1
        else:
            w.lit("$", quoted)

    def _braced_param(self) -> str:
        end = self.s.find("}", self.i)
        if end < 0:
            raise ShellSyntaxError("missing '}'")
        name = self.s[self.i + 1:end]
        simple = name and (_is_name_start(name[0]) and all(_is_name_char(ch) for ch in name))
        if not simple and not name.isdigit() and not (len(name) == 1 and name in SPECIAL_PARAMS):
            raise ShellSyntaxError(f"${{{name}}}: bad substitution")
        self.i = end + 1
        return name

    def _tilde(self, w: _WordBuilder) -> None:
        nxt = self._peek(1)
        if not nxt or nxt == "/" or nxt in BLANKS or nxt == "\n" or nxt in OPERATOR_CHARS:
            w.param("HOME", True)
        else:
            w.lit("~", False)
        self.i += 1

    def _ansi_c_string(self) -> str:
        """Decode ``$'...'`` with ``self.i`` at the opening quote."""
        out: list[str] = []
        j = self.i + 1
        s = self.s
        while True:
            if j >= len(s):
                raise ShellSyntaxError("unterminated quoted string")
            c = s[j]
            if c == "'":
                self.i = j + 1
                return "".join(out)
            if c != "\\" or j + 1 >= len(s):
                out.append(c)
                j += 1
                continue
            text, j = _ansi_escape(s, j + 1)
            out.append(text)


def _ansi_escape(s: str, j: int) -> tuple[str, int]:
    """Decode one escape of ``$'...'`` starting after the backslash; return (text, next)."""
    c = s[j]
    if c in ANSI_ESCAPES:
        return ANSI_ESCAPES[c], j + 1
    if c in "01234567":
        k = j
        while k < len(s) and k < j + 3 and s[k] in "01234567":
            k += 1
        return chr(int(s[j:k], 8) & 0xFF), k
    widths = {"x": 2, "u": 4, "U": 8}
    if c in widths:
        k = j + 1
        while k < len(s) and k < j + 1 + widths[c] and s[k] in "0123456789abcdefABCDEF":
            k += 1
        if k == j + 1:
            return "\\" + c, j + 1
        code = int(s[j + 1:k], 16)
        return (chr(code) if code <= 0x10FFFF else "\ufffd"), k
    if c == "c" and j + 1 < len(s):
        return chr(ord(s[j + 1]) & 0x1F), j + 2
    return "\\" + c, j + 1


def tokenize(src: str) -> list[Token]:
    return Lexer(src).run()
