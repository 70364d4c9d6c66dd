"""Log records lose the run's secrets on every configured handler, for the run's duration."""

from __future__ import annotations

import io
import logging

from omg_agent.core.secrets import SecretVault
from omg_agent.trace.logmask import masking_logs


def test_messages_arguments_and_tracebacks_are_masked_then_the_filter_goes() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("omg_agent.test.logmask")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    vault = SecretVault({"pw": "omg5865"})
    try:
        with masking_logs(vault):
            logger.info("typed %s into %s", "omg5865", "the field")
            vault.add("pin", "2468-1357")  # learned mid-run: masked from then on
            logger.debug("pin is 2468-1357 and {{secret:memo=K7-tulip}} inline")
            try:
                raise ValueError("bad password omg5865")
            except ValueError:
                logger.exception("failed")
        logger.info("after the run: omg5865")
    finally:
        logger.removeHandler(handler)
    text = stream.getvalue()
    run, after = text.split("after the run")
    assert "omg5865" not in run and "2468-1357" not in run and "K7-tulip" not in run
    assert "typed {{secret:pw}} into the field" in run and "{{secret:memo}} inline" in run
    assert "ValueError: bad password {{secret:pw}}" in run
    assert "omg5865" in after and not handler.filters
