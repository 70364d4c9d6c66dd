"""The one answer rule: a yes only when the whole answer is a yes (issue #24)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omg_agent.guards.answers import (
    ACCEPTED,
    AFFIRMATIVES,
    MAX_ANSWER,
    NEGATIVES,
    is_yes,
    normalise,
    read_answer,
    unclear,
)

NEGATIONS = ("not", "no", "don't", "never", "不", "别", "没", "不要")


@pytest.mark.parametrize("answer", sorted(AFFIRMATIVES))
def test_every_listed_affirmative_alone_is_a_yes(answer):
    assert read_answer(answer) == "yes"
    assert read_answer(f"  {answer.upper()}!  ") == "yes"


@pytest.mark.parametrize("answer", sorted(NEGATIVES))
def test_every_listed_negative_alone_is_a_no(answer):
    assert read_answer(answer) == "no"


@pytest.mark.parametrize("answer", [
    "you must not pay", "yesterday", "okay no", "可以不", "是不是", "yes but not now",
    "y not", "ok, don't", "sure... never", "好不好", "没问题", "I said yes, right?",
    "yes no", "no yes", "", "   ", "maybe", "ye", "yess", "okey-dokey no"])
def test_a_sentence_that_only_starts_like_a_yes_is_not_one(answer):
    assert read_answer(answer) != "yes"
    assert not is_yes(answer)


@pytest.mark.parametrize("answer", ["yes?", "可以？", "好?", "确认?", "allow?", "go ahead?",
                                    "Yes ?", "¿sí?", "ok?!", "不要？"])
def test_an_answer_that_asks_back_is_neither_a_yes_nor_a_no(answer):
    # attacker probe: a held ¥1,079 order resumed with --answer "可以？" paid past a ¥1 limit
    assert read_answer(answer) is None


@pytest.mark.parametrize(("answer", "verdict"), [
    ("Yes.", "yes"), ("ＹＥＳ", "yes"), ("“ok”", "yes"), ("是的！", "yes"), ("Go ahead", "yes"),
    ("yes, go ahead", "yes"), ("No.", "no"), ("don’t", "no"), ("不要！", "no"),
    ("you must not pay", None), ("可以不", None), (None, None),
    ("no way", "no"), ("Nope, don't.", "no"), ("ok but not now", None), ("sure thing", None),
    ("是的，不要付", None)])  # the attacker probe's words
def test_answers_read_as_users_write_them(answer, verdict):
    assert read_answer(answer) == verdict


def test_no_list_entry_carries_a_negation_or_sits_in_both_lists():
    assert not AFFIRMATIVES & NEGATIVES
    for word in AFFIRMATIVES:
        assert not any(n in word for n in NEGATIONS), word


def test_an_overlong_answer_is_neither_and_the_error_names_the_accepted_answers():
    assert read_answer("yes" + " " * MAX_ANSWER) is None
    message = unclear("you must not pay")
    assert "'you must not pay'" in message and ACCEPTED in message and "\n" not in message
    assert len(unclear("x" * 500)) < 400


def test_normalise_folds_case_width_quotes_and_inner_punctuation():
    assert normalise("  「ＹＥＳ，Go  ahead」 ") == "yes go ahead"


_words = st.sampled_from([*AFFIRMATIVES, *NEGATIONS, "pay", "the", "order", ",", " ", "!",
                          "。", "please", "must", "you", "可以", "是", "付款"])


@settings(max_examples=2_000, deadline=None)  # 10,000 until the suite outgrew 15 min
@given(st.lists(_words, min_size=1, max_size=6), st.sampled_from(NEGATIONS),
       st.integers(min_value=0, max_value=6))
def test_no_answer_containing_a_negation_is_a_yes(words, negation, at):
    words.insert(min(at, len(words)), negation)
    answer = " ".join(words)
    assert not is_yes(answer), answer


@settings(max_examples=1_500, deadline=None)
@given(st.text(max_size=40))
def test_free_text_with_a_negation_is_never_a_yes(text):
    folded = normalise(text)
    if any(n in folded for n in NEGATIONS):
        assert not is_yes(text), text


def _terminal(typed: str):
    import io

    from omg_agent.guards.confirmation import ConfirmationRequest, TerminalChannel
    out = io.StringIO()
    request = ConfirmationRequest("payment", 'tap "Pay ¥1,079.00"', "the label says 'pay'")
    return TerminalChannel.from_streams(io.StringIO(typed), out).confirm(request), out.getvalue()


def test_the_terminal_asks_again_on_an_unclear_answer_and_never_reads_it_as_yes():
    answer, shown = _terminal("you must not pay\nyes\n")
    assert answer is True and "neither a yes nor a no" in shown
    assert shown.count("Allow it? [y/N]") == 2
    answer, shown = _terminal("yesterday\nokay no\n可以不\nyes\n")
    assert answer is False and "no clear yes" in shown


def test_an_unclear_answer_is_quoted_whole_up_to_60_characters_then_cut():
    assert "'" + "x" * 60 + "'" in unclear("x" * 60)
    cut = unclear("y" * 61)
    assert "'" + "y" * 57 + "…'" in cut and "y" * 58 not in cut


def test_typographic_apostrophes_and_the_longest_answer_still_read():
    assert read_answer("don‘t") == "no" and read_answer("don’t") == "no"
    assert read_answer("yes" + " " * (MAX_ANSWER - 3)) == "yes"
    assert read_answer("yes" + " " * (MAX_ANSWER - 2)) is None
