"""The authorisation corpus (``authz_corpus.yaml``, ≥ 200 phrasings in English and Chinese):
every phrasing gets exactly the authorisations its words give — never one beyond them."""

from __future__ import annotations

from pathlib import Path

import pytest

from omg_agent.bench.authz_corpus import judge, load, table

CORPUS = load(Path(__file__).with_name("authz_corpus.yaml"))


def test_the_corpus_is_large_and_covers_every_kind_of_phrasing():
    assert len(CORPUS) >= 200
    assert {p.lang for p in CORPUS} == {"en", "zh"}
    assert {p.cat for p in CORPUS} >= {"explicit", "implicit", "negated", "conditional",
                                       "multi", "limits", "delete", "secret", "none"}


@pytest.mark.parametrize("phrasing", CORPUS, ids=lambda p: p.text[:60])
def test_each_phrasing_gets_what_its_words_give(phrasing):
    verdict = judge(phrasing)
    assert not verdict.beyond, f"granted beyond the words: {verdict.beyond}"
    assert set(verdict.got) == set(phrasing.expect)


def test_the_table_counts_grants_beyond_the_words_and_false_asks():
    text = table(judge(p) for p in CORPUS)
    assert text.splitlines()[0].startswith("| category | lang | phrasings |")
    assert f"| **all** | | **{len(CORPUS)}** |" in text
