"""An omg.toml outside the user's config dir cannot lower safety (issue 34, item 8).

The user's own settings — OMG_* variables, options, $OMG_CONFIG, the file in their config
dir — still do; a file that came with a folder is refused in one line naming the keys, or
asked about at a terminal (the one answer rule decides the yes).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from omg_agent.config import Settings
from omg_agent.errors import UnsafeSetting
from omg_agent.userfiles import HARMLESS, inside, lowering


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def _toml(folder: Path, text: str) -> Path:
    path = folder / "omg.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("text", "keys"), [
    ("gate = false", "gate"),
    ("gate = 0", "gate"),
    ('allow = "payment"', "allow"),
    ('base_url = "http://127.0.0.1:1/v1"', "base_url"),
    ('api_key = "sk-attacker-0000"', "api_key"),
    ('mcp_token = "0123456789abcdef0123"', "mcp_token"),
    ('confirm_done = "never"', "confirm_done"),
    ('device = "R58M@10.0.0.5:5037"', "device"),
    ('gate = false\nallow = "payment:<=9999"', "allow, gate"),
])
def test_a_working_directory_file_that_lowers_safety_is_refused_in_one_line(
        cwd: Path, text: str, keys: str) -> None:
    _toml(cwd, text + "\n")
    with pytest.raises(UnsafeSetting) as caught:
        Settings.load(env={})
    message = str(caught.value)
    assert f"omg.toml in {cwd.resolve()} may not set {keys} " in message
    assert "\n" not in message
    for secret in ("sk-attacker", "0123456789abcdef", "payment", "10.0.0.5", "127.0.0.1"):
        assert secret not in message  # keys are named, values never


def test_harmless_and_safety_raising_keys_still_load_silently(cwd: Path) -> None:
    _toml(cwd, 'model = "qwen"\nmax_steps = 7\ngate = true\nallow = ""\n'
               'device = "emulator-5554"\nconfirm_done = "always"\n[secrets]\npw = "x"\n')
    s = Settings.load(env={})
    assert (s.model, s.max_steps, s.gate, s.device) == ("qwen", 7, True, "emulator-5554")


def test_what_the_user_typed_still_works_and_a_file_value_replaced_by_it_is_no_issue(
        cwd: Path) -> None:
    _toml(cwd, 'gate = false\nbase_url = "http://evil:1/v1"\n')
    s = Settings.load(env={"OMG_BASE_URL": "http://mine:1/v1"}, overrides={"gate": True})
    assert (s.gate, s.base_url) == (True, "http://mine:1/v1")
    s = Settings.load(env={"OMG_GATE": "false", "OMG_ALLOW": "payment"},
                      overrides={"base_url": "http://mine:1/v1"})
    assert (s.gate, s.allow) == (False, "payment")


def test_the_users_own_files_may_lower_safety(cwd: Path, tmp_path: Path) -> None:
    named = _toml(tmp_path / "named", "gate = false\n")
    assert Settings.load(env={"OMG_CONFIG": str(named)}).gate is False
    assert Settings.load(env={}, config_file=named).gate is False
    home = tmp_path / "cfg"
    _toml(home / "omg-agent", 'gate = false\nallow = "send"\n')
    s = Settings.load(env={"XDG_CONFIG_HOME": str(home)})
    assert (s.gate, s.allow, s.source("gate")) == (False, "send",
                                                   f"{home / 'omg-agent' / 'omg.toml'}: gate")
    _toml(cwd, 'model = "project"\n')  # a project file over the user's: harmless keys only
    s = Settings.load(env={"XDG_CONFIG_HOME": str(home)})
    assert (s.gate, s.model) == (False, "project")
    _toml(cwd, "gate = true\n")  # raising safety over the user's file is fine
    assert Settings.load(env={"XDG_CONFIG_HOME": str(home)}).gate is True


def test_a_file_in_the_users_config_dir_is_theirs_even_read_as_the_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "cfg"
    _toml(home / "omg-agent", "gate = false\n")
    monkeypatch.chdir(home / "omg-agent")
    assert Settings.load(env={"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(home)}).gate \
        is False


def test_a_yes_at_the_terminal_lets_it_through_and_anything_else_refuses(cwd: Path) -> None:
    _toml(cwd, "gate = false\n")
    asked: list[str] = []

    def said(answer: bool):
        def confirm(question: str) -> bool:
            asked.append(question)
            return answer
        return confirm
    assert Settings.load(env={}, confirm=said(True)).gate is False
    assert asked == [f"omg.toml in {cwd.resolve()} turns the gate off. Allow? (yes/no)"]
    with pytest.raises(UnsafeSetting, match="may not set gate"):
        Settings.load(env={}, confirm=said(False))


def test_the_terminal_question_uses_the_one_answer_rule() -> None:
    """``run`` at a terminal: "yes" lets the file through; "yes?" and an unclear answer
    three times do not."""
    import io

    from omg_agent.cli.config import terminal_confirm

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True
    for typed, gate_off in (("yes\n", True), ("yes?\nmaybe\nsure thing\n", False),
                            ("\n", False), ("no\n", False)):
        confirm = terminal_confirm(Tty(typed))
        assert confirm is not None
        assert confirm("omg.toml in x turns the gate off. Allow? (yes/no)") is gate_off, typed
    assert terminal_confirm(io.StringIO("yes\n")) is None  # not a terminal: refused


def test_every_setting_is_harmless_or_judged_and_new_ones_are_refused_by_default() -> None:
    assert set(Settings.model_fields) >= HARMLESS
    for key in ("gate", "allow", "base_url", "api_key", "mcp_token", "confirm_done", "device"):
        assert key not in HARMLESS
    assert lowering({"yes_to_all": True, "secret_fields": "pw@chrome:url"}) == {
        "yes_to_all": "sets yes_to_all", "secret_fields": "sets secret_fields"}


def test_inside_follows_symlinks_and_refuses_what_leads_out(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "out").symlink_to(tmp_path)
    assert inside(root, "sub/a.yaml") == (root / "sub" / "a.yaml").resolve()
    for bad in ("../x.yaml", "out/x.yaml", str(tmp_path / "x.yaml"), "sub/../../x"):
        assert inside(root, bad) is None, bad
