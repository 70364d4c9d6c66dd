"""How the benches count tokens: a real tokenizer when one is installed, else chars / 4.

The model double reports usage like a provider would; what it counts with is chosen here.
``bpe-openai`` (PyPI; a Rust BPE with OpenAI's encodings compiled in, so it works offline —
tiktoken downloads its BPE files on first use) counts with ``o200k_base``, the encoding of
GPT-4o-class models; without it the estimate is characters / 4. :func:`token_counter`
names which one was used, so a table says how its numbers were made.
"""

from __future__ import annotations

import logging

from omg_agent.sim.model_double import TokenCounter, chars_over_4

log = logging.getLogger(__name__)
ENCODING = "o200k_base"
ESTIMATE = "characters / 4"


def token_counter() -> tuple[TokenCounter, str]:
    """The counter to use and its name (the tokenizer, or the estimate)."""
    try:
        import bpe_openai  # optional: pip install bpe-openai
    except ImportError:
        return chars_over_4, ESTIMATE
    encoding = bpe_openai.get_encoding(ENCODING)

    def count(text: str) -> int:
        return len(encoding.encode_ordinary(text))

    return count, f"{ENCODING} (bpe-openai)"


__all__ = ["ENCODING", "ESTIMATE", "token_counter"]
