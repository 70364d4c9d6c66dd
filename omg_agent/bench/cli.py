"""``omg-agent bench …``: benchmarks that print side-by-side tables (never timing asserts)."""

from __future__ import annotations

import typer

app = typer.Typer(help="Benchmarks: print side-by-side tables from one run.",
                  no_args_is_help=True)


@app.command()
def observe(
    steps: int = typer.Option(30, help="Observations per pipeline."),
    ocr_runs: int = typer.Option(10, help="Runs per OCR row."),
    input_runs: int = typer.Option(10, help="Runs per input row."),
) -> None:
    """Observation pipelines, element-list tokens, OCR and input batching on vphones.

    Example: omg-agent bench observe --steps 30
    """
    from omg_agent.bench.observe import report

    print(report(steps, ocr_runs, input_runs))


@app.command()
def calls(
    tasks: int | None = typer.Option(None, "--tasks", help="Run only the first N tasks."),
    noise: str = typer.Option("moderate", "--noise", help="Noise profile: none or moderate."),
    seed: int = typer.Option(0, "--seed", help="Seed for the vphones and the noise."),
) -> None:
    """Model calls with one action per reply vs semantic bundles, on vphone tasks.

    Example: omg-agent bench calls --noise moderate
    """
    from omg_agent.bench.calls import report

    if noise not in ("none", "moderate"):
        raise typer.BadParameter("choose none or moderate", param_hint="--noise")
    print(report(tasks, noise, seed))
