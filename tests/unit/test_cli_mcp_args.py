"""``omg-agent mcp --http [PORT]``: the port may be left out (issue 28)."""

from omg_agent.cli.mcp import DEFAULT_PORT, bare_http


def test_a_bare_http_option_serves_on_the_default_port() -> None:
    assert bare_http(["--http"]) == [f"--http={DEFAULT_PORT}"]
    assert bare_http(["--http", "--device", "x"]) == [f"--http={DEFAULT_PORT}", "--device", "x"]


def test_an_http_option_with_a_port_keeps_it() -> None:
    assert bare_http(["--http", "9000", "-s", "x"]) == ["--http", "9000", "-s", "x"]
    assert bare_http(["-s", "x"]) == ["-s", "x"]


def test_an_unknown_approve_on_is_refused_in_one_line_naming_the_choices() -> None:
    from typer.testing import CliRunner

    from omg_agent.cli import app

    result = CliRunner().invoke(app, ["mcp", "--approve-on", "client"])
    assert result.exit_code != 0
    assert "elicitation" in result.output and "mirror" in result.output
