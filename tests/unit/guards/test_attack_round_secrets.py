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


class _U2Server:
    """The u2 server's clipboard and a focused field, as ``U2Driver.call`` reaches them."""

    def __init__(self) -> None:
        self.clipboard, self.field, self.calls, self.serial = "", "", 0, "u2-test"

    def call(self, method: str, *args: object) -> object:
        self.calls += 1
        if method == "setClipboard":
            self.clipboard = str(args[1])
        elif method == "getClipboard":
            return self.clipboard
        elif method == "pasteClipboard":
            self.field += self.clipboard
        return None


def test_the_u2_driver_leaves_no_typed_secret_in_the_phones_clipboard() -> None:
    """Found on the vphone: after ``{{secret:pw}}`` went into Login's password field with
    ``--driver u2``, the phone's clipboard held the password (any app, or a PASTE key in the
    URL bar, could take it)."""
    from omg_agent.drivers.u2port import U2Port

    server = _U2Server()
    U2Port(server).type(PASSPHRASE, clear=False, field=None,  # type: ignore[arg-type]
                        after_tap=False)
    assert server.field == PASSPHRASE and server.clipboard == ""
