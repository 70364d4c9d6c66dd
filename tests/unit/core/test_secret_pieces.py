"""Secrets leak in pieces no more (issue 34 §3): masking replaces every piece of four or more
characters of a held value, and what is cut to fit (the element list, previews) is masked
first — the probe found ``type 'AAAA…Aomg586...'`` in the trace, state and report, and
``…omg58…`` in the element list of a 61-character field."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from omg_agent.brain.llm import LLMClient
from omg_agent.config import Settings
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.core.secrets import SecretVault
from omg_agent.perception.elementlist import MAX_TEXT, render
from omg_agent.trace import TraceRecorder, render_report

SECRET = "omg5865"


def _pieces(text: str, value: str = SECRET, size: int = 4) -> list[str]:
    return [value[i:i + size] for i in range(len(value) - size + 1)
            if value[i:i + size] in text]


def _vault() -> SecretVault:
    return SecretVault({"pw": SECRET})


def test_every_piece_of_four_or_more_characters_is_masked() -> None:
    vault = _vault()
    for text in ("type 'AAAAAAAAAAAAAAAAAAAAomg586...'", "…omg58…", "x 5865 y", "mg58",
                 f"{SECRET}{SECRET[:4]}"):
        masked = vault.mask(text)
        assert _pieces(masked) == [], (text, masked)
        assert "{{secret:pw}}" in masked
    assert vault.mask("omg 586") == "omg 586"  # three characters are no piece


def test_a_short_word_inside_an_api_key_stays_readable() -> None:
    vault = SecretVault()
    vault.hide("api_key", "sk-user-3f9a8b7c6d5e4f3a2b1c")
    assert vault.mask("The user was asked") == "The user was asked"
    assert vault.mask("k=sk-user-3f9a8b") == "k={{secret:api_key}}"


def test_a_piece_with_signs_but_no_digit_is_a_word_too() -> None:
    """A key ``sk-omg-test-…`` must not blank the program's name or a temp path out of the
    stop report (CI found ``{{secret:api_key}}agent run --resume /tmp/py…``)."""
    vault = SecretVault()
    vault.hide("api_key", "sk-omg-test-5c1d9e7f3a2b4c6d")
    hint = "omg-agent run --resume /tmp/pytest-of-root/run"
    assert vault.mask(hint) == hint
    assert vault.mask("key test-5c1d9e") == "key {{secret:api_key}}"


def _field_screen(text: str) -> Observation:
    field = UIElement(id=1, cls="android.widget.EditText", role="input", editable=True,
                      bounds=Bounds(0, 100, 1000, 200), text=text)
    return Observation(Image.new("RGB", (1080, 2400)), (field,), package="com.omg.notes")


# 63 characters: cut to fit, the list would end on "…Aomg…" — a piece no later mask sees
LONG = "A" * (MAX_TEXT - 4) + SECRET


def test_the_element_list_masks_a_field_before_cutting_it() -> None:
    obs = _field_screen(LONG)
    assert "omg" in render(obs.elements, obs.screen)  # unmasked, the cut leaves a piece
    shown = render(obs.elements, obs.screen, mask=_vault().mask)
    assert "omg" not in shown and "5865" not in shown and '"AAAA' in shown


def test_the_next_model_request_shows_no_piece_of_a_secret_in_a_long_field() -> None:
    settings = Settings(base_url="http://model.test/v1", model="m")
    with LLMClient(settings, "operator", secrets=_vault()) as llm:
        message = llm.observation_message("the screen", _field_screen(LONG), screenshot=False)
    sent = json.dumps(llm.secrets.scrub(message))
    assert "omg" not in sent and "5865" not in sent


def test_a_cut_preview_in_the_trace_and_the_report_holds_no_piece(tmp_path: Path) -> None:
    run = tmp_path / "run"
    preview = "type 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAomg586...' (44 chars)"
    with TraceRecorder(run, task="Sign in", secrets=_vault()) as rec:
        rec.record_step(1, observation=None, actions=[{"type": "type", "text": "x"}],
                        results=[{"index": 0, "ok": True, "detail": preview}])
        rec.finish("done", "ok", {})
    render_report(run)
    for name in ("trace.jsonl", "report.html", "result.json"):
        text = (run / name).read_text(encoding="utf-8")
        assert _pieces(text) == [], name
