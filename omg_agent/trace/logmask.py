"""Secrets out of log records: a :class:`logging.Filter` over the run's SecretVault.

Whoever owns a run (:func:`omg_agent.brain.agent.open_agent`) installs it with
:func:`masking_logs` for the run's duration on every handler configured at that moment (the
CLI's ``-v`` handler, pytest's capture, an application's own): a filter on a handler sees
the records of every logger, ``openai`` and ``httpx`` included, while a filter on a logger
would see only that logger's own. The record is rewritten in place — message, arguments and
exception text masked — so every handler after it gets the masked record too.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from omg_agent.core.secrets import SecretVault


class SecretLogFilter(logging.Filter):
    """Masks the vault's values (and inline ``{{secret:NAME=VALUE}}``) in each record."""

    def __init__(self, vault: SecretVault) -> None:
        super().__init__("")
        self.vault = vault

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a bad format string: show it masked, unformatted
            message = f"{record.msg} {record.args!r}"
        masked = self.vault.mask(message)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and not record.exc_text:
            # formatted here once, masked; handlers reuse the cached text
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.vault.mask(record.exc_text)
        if record.stack_info:
            record.stack_info = self.vault.mask(record.stack_info)
        return True


def _handlers() -> list[logging.Handler]:
    found: list[logging.Handler] = list(logging.getLogger().handlers)
    for logger in list(logging.Logger.manager.loggerDict.values()):
        if isinstance(logger, logging.Logger):
            found += logger.handlers
    if logging.lastResort is not None:
        found.append(logging.lastResort)
    unique: dict[int, logging.Handler] = {id(h): h for h in found}
    return list(unique.values())


@contextmanager
def masking_logs(vault: SecretVault) -> Iterator[SecretLogFilter]:
    """Mask ``vault``'s secrets in every configured handler's records until exit."""
    masker = SecretLogFilter(vault)
    handlers = _handlers()
    for handler in handlers:
        handler.addFilter(masker)
    try:
        yield masker
    finally:
        for handler in handlers:
            handler.removeFilter(masker)
