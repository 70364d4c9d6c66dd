"""Attack round on Gate v3 (docs/attack-round.md), secrets: a piece of a secret with no digit
and at most half its length was left readable as a "word" even when it was cut from inside
the value — a truncated preview of a letters-only passphrase showed up to half of it, and a
model varying the cut could read the rest. Only a whole word of the value stays readable
("user" of ``sk-user-…``, so ``omg-agent`` and ``pytest-…`` paths still read)."""

from __future__ import annotations

import pytest

from omg_agent.core.secrets import SecretVault

PASSPHRASE = "correcthorsebatterystaple"


@pytest.mark.parametrize("shown", ["type 'AAAA…correcthors'", "…horsebatte…", "…rystaple",
                                   "correctho", "ebatter"])
def test_a_piece_cut_from_inside_a_letters_only_secret_is_masked(shown) -> None:
    vault = SecretVault({"pw": PASSPHRASE})
    masked = vault.mask(shown)
    assert "{{secret:pw}}" in masked, masked
    assert not any(PASSPHRASE[i:i + 4] in masked for i in range(len(PASSPHRASE) - 3))


def test_whole_words_of_an_api_key_still_read() -> None:
    vault = SecretVault()
    vault.hide("api_key", "sk-omg-test-5c1d9e7f3a2b4c6d")
    hint = "omg-agent run --resume /tmp/pytest-of-root/run"
    assert vault.mask(hint) == hint
