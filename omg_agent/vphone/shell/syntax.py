"""The vphone shell's syntax tree: what ``lexer``/``parse`` produce and ``runner`` executes.

A command line becomes a tuple of :class:`ListItem` (``;``/``&``/newline separated), each an
and-or chain of :class:`Pipeline` s made of :class:`SimpleCommand` s. Words keep how each piece
was quoted so expansion can follow sh rules later: a single-quoted piece is a literal
:class:`Lit` and nothing in it is ever expanded.
"""

from __future__ import annotations

from dataclasses import dataclass


class ShellSyntaxError(Exception):
    """A command line sh would reject; the message follows ``syntax error:``."""


@dataclass(frozen=True)
class Lit:
    """Literal text. ``quoted`` text is exempt from field splitting and tilde expansion."""

    text: str
    quoted: bool


@dataclass(frozen=True)
class Param:
    """``$NAME`` / ``${NAME}`` / ``$?``; unquoted values are split into fields."""

    name: str
    quoted: bool


Part = Lit | Param


@dataclass(frozen=True)
class Word:
    parts: tuple[Part, ...]

    @property
    def plain(self) -> str | None:
        """The word's text if it is one unquoted literal (for keywords and assignments)."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Lit) and not self.parts[0].quoted:
            return self.parts[0].text
        return None


@dataclass(frozen=True)
class Redirect:
    fd: int  # the descriptor being redirected: 0, 1 or 2
    op: str  # one of > >> < >& <& &>
    target: Word


@dataclass(frozen=True)
class Assignment:
    name: str
    value: Word


@dataclass(frozen=True)
class SimpleCommand:
    assigns: tuple[Assignment, ...]
    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True)
class Pipeline:
    commands: tuple[SimpleCommand, ...]
    negate: bool = False


@dataclass(frozen=True)
class AndOr:
    first: Pipeline
    rest: tuple[tuple[str, Pipeline], ...]  # ("&&" | "||", pipeline)


@dataclass(frozen=True)
class ListItem:
    body: AndOr
    background: bool = False


Script = tuple[ListItem, ...]
