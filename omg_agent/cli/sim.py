"""``omg-agent sim serve``: the simulated model as an OpenAI-compatible endpoint (with the
vphone it drives), so the real-model path can be tried without a key
(:mod:`omg_agent.sim.serve`)."""

from __future__ import annotations

import signal
import threading
from types import FrameType

import typer

from omg_agent.cli.console import console, fail

app = typer.Typer(help="The simulated model, for trying OMG-Agent without a model key.\n\n"
                       "Example: omg-agent sim serve --port 8765", no_args_is_help=True)


@app.command()
def serve(
    port: int = typer.Option(8765, "--port", "-p", metavar="PORT",
                             help="TCP port of the endpoint (0: any free port)."),
    host: str = typer.Option("127.0.0.1", "--host", metavar="HOST",
                             help="Address to listen on."),
    seed: int = typer.Option(0, "--seed", metavar="SEED",
                             help="Seed of the vphone it drives (app content, prices)."),
) -> None:
    """Serve the simulated model at http://HOST:PORT/v1 (chat completions, models) and start
    the vphone it drives; until Ctrl-C.

    The model is named `sim` and needs no key. It plays the tasks `omg-agent run --model sim`
    knows, on the vphone it started (its serial is printed), read from each request.

    Example: omg-agent sim serve --port 8765

    Example: OMG_BASE_URL=http://127.0.0.1:8765/v1 OMG_MODEL=sim omg-agent run "Turn off
    Wi-Fi" --device 127.0.0.1:5555
    """
    from omg_agent.errors import OmgError
    from omg_agent.sim.serve import MODEL_NAME, serve_sim

    stop = threading.Event()
    try:
        with serve_sim(host, port, seed) as served:
            console.print(f"simulated model {MODEL_NAME!r} at {served.base_url}, driving "
                          f"vphone {served.serial} (Ctrl-C to stop)", soft_wrap=True,
                          highlight=False)
            console.print(f"try: OMG_BASE_URL={served.base_url} OMG_MODEL={MODEL_NAME} "
                          f"omg-agent run \"Turn off Wi-Fi\" --device {served.serial}",
                          soft_wrap=True, highlight=False)
            console.print(f"  or: omg-agent run --model sim \"Turn off Wi-Fi\" --device "
                          f"{served.serial}", soft_wrap=True, highlight=False)
            _until_stopped(stop)
    except OSError as exc:
        fail(f"cannot serve on {host}:{port}: {exc.strerror or exc}; choose another --port")
    except OmgError as exc:
        fail(str(exc))


def _until_stopped(stop: threading.Event) -> None:
    """Wait for Ctrl-C or SIGTERM (both end the endpoint and the vphone cleanly)."""
    def on_term(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


def register(root: typer.Typer) -> None:
    """Add the ``sim`` group to the ``omg-agent`` app."""
    root.add_typer(app, name="sim")
