"""The fleet's local pool: one watched process per attempt, on this machine.

Each attempt runs in a process of its own (``spawn``; it dies with the fleet), which sends
its :class:`~omg_agent.fleet.attempt.Attempt` back over a pipe. The dispatcher waits on the
pipes and the processes' sentinels together, so a worker that dies — SIGKILLed, out of
memory, crashed in native code — ends only its own attempt: it is recorded with what its
trace on disk shows it did (:func:`~omg_agent.fleet.attempt.died_attempt`), and every other
attempt keeps running. (A shared ``ProcessPoolExecutor`` turns one dead worker into
``BrokenProcessPool`` for every task it holds.)
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from omg_agent.fleet.attempt import Attempt, FleetJob, died_attempt, run_attempt
from omg_agent.fleet.devices import FleetDevice, census

JOIN_S = 10.0  # a worker that sent its attempt has only to exit


def _worker(send: Connection, parent: int, job: FleetJob, device: FleetDevice, number: int,
            root: Path) -> None:
    """A worker process: run the attempt, send it back."""
    from omg_agent.bench.lifeline import die_with_parent

    die_with_parent(parent)
    send.send(run_attempt(job, device, number, root))
    send.close()


@dataclass(eq=False)  # one per process: compared and hashed by identity
class Worker:
    """One running attempt: its process and the pipe its attempt comes back on."""

    process: Any  # multiprocessing's SpawnProcess
    receive: Connection
    job: FleetJob
    device: FleetDevice
    number: int

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def result(self, root: Path) -> Attempt:
        """The attempt it sent; or, when it died first, what its trace shows."""
        attempt: Attempt | None = None
        try:
            if self.receive.poll():
                attempt = self.receive.recv()
        except (EOFError, OSError):
            attempt = None
        self.receive.close()
        self.process.join(JOIN_S if attempt is not None else None)
        if attempt is not None:
            return attempt
        return died_attempt(self.job, self.device, self.number, root,
                            f"its worker process (pid {self.pid}) died "
                            f"(exit {self.process.exitcode})")


class LocalBackend:
    """Attempts in processes of their own, on this machine's devices."""

    name = "local"

    def __init__(self, devices: Sequence[FleetDevice], out: Path) -> None:
        self.out = out
        self._context = multiprocessing.get_context("spawn")
        self._devices = [census(d) for d in devices]
        self._running: set[Worker] = set()

    def devices(self) -> list[FleetDevice]:
        return list(self._devices)

    def submit(self, job: FleetJob, device: FleetDevice, number: int) -> Worker:
        receive, send = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=_worker, args=(send, os.getpid(), job, device, number, self.out),
            name=f"omg-fleet-{job.key}-{number}", daemon=True)
        process.start()
        send.close()  # the worker's end: EOF here once it is gone
        worker = Worker(process, receive, job, device, number)
        self._running.add(worker)
        return worker

    def wait(self, handles: Sequence[Any]) -> list[tuple[Any, Attempt | None]]:
        ready = wait([h.receive for h in handles] + [h.process.sentinel for h in handles])
        done = [h for h in handles if h.receive in ready or h.process.sentinel in ready]
        out: list[tuple[Any, Attempt | None]] = []
        for worker in done:
            self._running.discard(worker)
            out.append((worker, worker.result(self.out)))
        return out

    def close(self) -> None:
        for worker in list(self._running):  # the fleet itself is ending: its attempts too
            worker.process.kill()
            worker.process.join()
            worker.receive.close()
        self._running.clear()

    def __enter__(self) -> LocalBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
