"""The MCP server's run tools: run a task with the full agent (progress notifications while
it runs), answer / approve / decline a held run, run a flow (issue 28).

A run is :meth:`omg_agent.phone.Phone.run` with no one to ask mid-run: it stops at a
question (``ask_user``) or a held action (``needs_confirmation``), resumable from its
``run_dir`` (returned as the run's name, which every tool accepts). The client may answer
a question and may decline; a yes to a held action comes only from the human — on the
mirror page (``--approve-on mirror``: the run asks it live) or by elicitation
(:mod:`.consent`, each question with a single-use ticket) — ``approve`` asks them, and
``answer`` refuses to carry anything but a no to a held action. A no is written into the
run's state before anything else (:func:`~omg_agent.brain.held.record_no`): a later yes to
that action is refused, and the session does not ask about it again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from pydantic import Field

from omg_agent.brain.held import record_no
from omg_agent.brain.run_state import HeldAction
from omg_agent.errors import ConfigError, OmgError
from omg_agent.guards.answers import read_answer
from omg_agent.guards.confirmation import ConfirmationRequest
from omg_agent.guards.provenance import WordsFrom
from omg_agent.mcp import consent
from omg_agent.mcp.server import FlowOut, Hub, RunOut, Screen, tool
from omg_agent.mcp.shapes import ACTS, RUNS, DeviceArg, hints
from omg_agent.userfiles import inside

if TYPE_CHECKING:
    from omg_agent.phone import TaskResult

MAX_TASK = 4000
MAX_ANSWER = 2000
RunDir = Annotated[str, Field(min_length=1, max_length=1000, description=(
    "The run's name: run_dir as run_task returned it (or a path inside the runs folder)."))]
OnHold = Callable[[Context, str, dict[str, Any], Callable[[str], Awaitable[Any]], Any],
                  Awaitable[Any]]


class _Runs:
    """What the run tools share: a run's end as the tool's output (a held run put to the
    human), going on with a stopped run, and the human's verdict on a retry round."""

    def __init__(self, hub: Hub, on_hold: OnHold) -> None:
        self.hub = hub
        self.on_hold = on_hold

    async def finish(self, ctx: Context, device: str | None, result: TaskResult) -> Any:
        """``result`` as the tool's output; a held run is put to the human."""
        out = await anyio.to_thread.run_sync(lambda: _out(self.hub, device, result))
        if result.status != "needs_confirmation":
            return out
        name = result.run_dir.name
        out.how_to_approve = consent.how_to_approve(name, self.hub.approve_on)
        if self.hub.mirror is not None:  # the page was asked and nobody answered there
            return out
        return await self.put_to_human(ctx, device, name, out)

    async def put_to_human(self, ctx: Context, device: str | None, run_dir: str,
                           out: RunOut) -> Any:
        """Ask the human about the action the run in ``run_dir`` holds — unless they said
        no to it in this session already; their word resumes it."""
        path = self.hub.run_dir(run_dir)
        held = _held(path)
        if self.hub.grants.refused(held.describe):
            return await self.said(ctx, device, path.name, "no")
        serial = await anyio.to_thread.run_sync(lambda: self.hub.phone(device).serial)
        text = consent.question(held.describe, "the run holds it for your yes", serial)
        key = f"run:{path.name}:{held.fingerprint or held.describe}"
        state = {"run_dir": path.name, "question": text, "key": key,
                 "ticket": self.hub.grants.issue(key)}

        async def carry_out(said: str) -> Any:
            if self.hub.grants.redeem(state["ticket"], key) is None:
                raise ConfigError("that answer was used already: a yes is used once")
            return await self.said(ctx, device, path.name, said)
        out.question = text
        return await self.on_hold(ctx, text, state, carry_out, out)

    async def said(self, ctx: Context, device: str | None, run_dir: str, said: str) -> Any:
        """The human's yes or no to the held run: a no is written into the run's state
        before anything else (it stands whatever comes next) and remembered for the
        session; then the run goes on with it."""
        if said == "no":
            path = self.hub.run_dir(run_dir)
            held = await anyio.to_thread.run_sync(lambda: record_no(path))
            if held is not None:
                self.hub.grants.refuse(held.describe)
        return await self.resume(ctx, device, run_dir, said)

    async def resume(self, ctx: Context, device: str | None, run_dir: str, said: str) -> Any:
        path = self.hub.run_dir(run_dir)
        def go_on(hook: Callable[[Any], None]) -> TaskResult:
            with self.hub.using(device) as phone:
                return phone.resume(path, said, on_progress=hook,
                                    confirm=self.hub.asks(phone.serial))
        result = await _driving(ctx, go_on)
        return await self.finish(ctx, device, result)

    async def human_said(self, ctx: Context, device: str | None) -> Any:
        """On the retry round of a held run: go on with the human's verdict (its ticket
        used once: a replayed answer is refused)."""
        got = consent.answered(ctx)
        if got is None:
            return None
        state, verdict = got
        if "run_dir" not in state:  # the answer to another question (a run's permissions)
            return None
        pending = _retry_round(self.hub, state, verdict, "approve")
        if pending is not None or verdict.said is None:
            return pending
        return await self.said(ctx, device, state["run_dir"], verdict.said)


def _held(path: Path) -> HeldAction:
    from omg_agent.brain.resume import load_state

    held = load_state(path).state.held
    if held is None:
        raise ConfigError(f"run {path.name} holds no action to approve")
    return held


def register_runs(server: MCPServer, hub: Hub, on_hold: OnHold) -> None:
    """Add the run tools to ``server``; ``on_hold`` puts a held run to the human."""
    runs = _Runs(hub, on_hold)
    _task_tool(server, runs)
    _held_tools(server, runs)
    _flow_tool(server, hub)


def _task_tool(server: MCPServer, runs: _Runs) -> None:
    """``run_task``: a task with the full agent."""
    hub = runs.hub

    @tool(server, RUNS)
    async def run_task(ctx: Context, task: Annotated[str, Field(
            min_length=1, max_length=MAX_TASK, description="What to do, in words (any "
            "language).")], device: DeviceArg = None) -> RunOut:
        """Run a task with the full agent (plan, act, verify on the phone). Sends progress
        notifications; ends with the status read from the phone, the answer, the final
        screen and the report path. A sensitive action waits for the user's yes;
        permissions the task's words state ("you may pay") are the user's to give: they
        are asked once, before the run starts."""
        async def start(words_from: WordsFrom) -> Any:
            def go(hook: Callable[[Any], None]) -> TaskResult:
                with hub.using(device) as phone:
                    return phone.run(task, on_progress=hook, words_from=words_from,
                                     confirm=hub.asks(phone.serial))
            result = await _driving(ctx, go)
            return await runs.finish(ctx, device, result)

        words = consent.answered(ctx)
        if words is not None and words[0].get("kind") == WORDS_KIND:
            return await _words_answered(runs, task, words[0], words[1], start)
        again = await runs.human_said(ctx, device)
        if again is not None:
            return again
        return await _words_asked(ctx, runs, task, device, start)


WORDS_KIND = "task_permissions"  # the request_state of the question before a run


async def _words_asked(ctx: Context, runs: _Runs, task: str, device: str | None,
                       start: Callable[[WordsFrom], Awaitable[Any]]) -> Any:
    """Start ``task``: the permissions its words state (written by the client) are put to
    the human first, once; with no way to ask them they grant nothing (each such action
    is then held for the human's yes as it comes)."""
    from omg_agent.guards.authorisation import parse_allow
    from omg_agent.guards.provenance import asks_question, run_asks

    allow = runs.hub.settings.allow
    try:
        allowed = parse_allow([allow]) if allow else []
    except ValueError:
        allowed = []  # the gate names the bad --allow when the run starts
    asks = run_asks(task, allowed)
    # with --approve-on mirror the run puts its words to the page (its confirm channel),
    # never to the client's elicitation: a client answers that itself
    if not asks or runs.hub.mirror is not None or not consent.can_ask(ctx):
        return await start("client")
    serial = await anyio.to_thread.run_sync(lambda: runs.hub.phone(device).serial)
    text = asks_question(asks, serial)
    key = f"words:{task}"
    state = {"kind": WORDS_KIND, "task": task, "question": text, "key": key,
             "ticket": runs.hub.grants.issue(key)}

    async def carry_out(said: str) -> Any:
        if runs.hub.grants.redeem(state["ticket"], key) is None:
            raise ConfigError("that answer was used already: a yes is used once")
        return await start("human" if said == "yes" else "client")
    return await runs.on_hold(ctx, text, state, carry_out, None)


async def _words_answered(runs: _Runs, task: str, state: dict[str, Any],
                          verdict: consent.Verdict,
                          start: Callable[[WordsFrom], Awaitable[Any]]) -> Any:
    """The retry round of the question before a run: the human's yes makes the task's
    words theirs — for exactly the task they were shown, once (a replayed answer is
    refused)."""
    if state.get("task") != task:  # a yes to one task is no yes to another
        return await start("client")
    pending = _retry_round(runs.hub, state, verdict, "run_task again")
    if pending is not None or verdict.said is None:
        return pending
    return await start("human" if verdict.said == "yes" else "client")


def _retry_round(hub: Hub, state: dict[str, Any], verdict: consent.Verdict, call: str) -> Any:
    """A retry round's answer, its ticket used once (a replayed answer is refused): the
    question asked again under a new ticket when the verdict is unclear, else ``None``."""
    key = hub.grants.redeem(state.get("ticket"), state.get("key"))
    if key is None:
        raise ConfigError("that answer was used already, or never asked for: a yes is "
                          f"used once — call {call} and the user is asked")
    if verdict.said is None:
        again = {**state, "ticket": hub.grants.issue(key)}
        return consent.pending(f"{verdict.retry} {state['question']}", again)
    return None


def _held_tools(server: MCPServer, runs: _Runs) -> None:
    """``answer``, ``approve`` and ``decline``: going on with a stopped run."""
    hub = runs.hub

    @tool(server, RUNS)
    async def answer(ctx: Context, run_dir: RunDir, text: Annotated[str, Field(
            min_length=1, max_length=MAX_ANSWER, description="The answer to the run's "
            "question.")], device: DeviceArg = None) -> RunOut:
        """Answer the question a stopped run asked (status ask_user) and go on. A yes to a
        held sensitive action is the user's to give: use approve."""
        path = hub.run_dir(run_dir)
        from omg_agent.brain.resume import load_state

        if load_state(path).state.held is not None and read_answer(text) != "no":
            raise ConfigError("a yes to a held sensitive action comes from the user, not the "
                              "client: call approve (the user is asked), or decline")
        return await runs.resume(ctx, device, str(path), text)

    @tool(server, RUNS)
    async def approve(ctx: Context, run_dir: RunDir, device: DeviceArg = None) -> RunOut:
        """Ask the user to approve the action a run holds (status needs_confirmation); the
        run goes on only with their yes."""
        again = await runs.human_said(ctx, device)
        if again is not None:
            return again
        path = hub.run_dir(run_dir)
        held = _held(path)
        out = RunOut(status="needs_confirmation", answer="", question=held.describe,
                     summary="", run_dir=path.name, report=None, steps_used=0,
                     how_to_approve=consent.how_to_approve(path.name, hub.approve_on))
        if hub.mirror is None:
            return await runs.put_to_human(ctx, device, path.name, out)
        serial = await anyio.to_thread.run_sync(lambda: hub.phone(device).serial)
        page = hub.asks(serial)
        assert page is not None  # a mirror is open
        request = ConfirmationRequest(held.cls, held.describe, "the run holds it for your "
                                      "yes", held.package, fingerprint=held.fingerprint)
        answer = await anyio.to_thread.run_sync(lambda: page.confirm(request))
        if answer is None:
            return out
        return await runs.said(ctx, device, path.name, "yes" if answer else "no")

    @tool(server, hints(idempotent=True, open_world=True))
    async def decline(ctx: Context, run_dir: RunDir, device: DeviceArg = None) -> RunOut:
        """Refuse the action a run holds: the run ends declined, nothing is done."""
        return await runs.said(ctx, device, run_dir, "no")


def _flow_tool(server: MCPServer, hub: Hub) -> None:
    """``run_flow``: a flow file replayed with no model — only one inside the folder the
    server was started in (the client names a path; it may not read the user's files)."""
    root = Path.cwd().resolve()

    @tool(server, ACTS)
    async def run_flow(path: Annotated[str, Field(
            min_length=1, max_length=1000, description="The flow file, relative to the "
            "folder the server was started in.")], variables: Annotated[
            dict[str, str] | None, Field(description="Values for the flow's ${NAME}s.")
            ] = None, device: DeviceArg = None) -> FlowOut:
        """Replay a flow file (anchored steps, no model) with a trace and report: a path
        inside the folder the server was started in. A sensitive step stops the flow
        (needs_confirmation)."""
        found = inside(root, path)
        if found is None or found == root:
            raise ConfigError(f"path: give a flow file inside {root} (the folder the server "
                              "was started in), relative to it")

        def replay() -> FlowOut:
            with hub.using(device) as phone:
                result = phone.run_flow(found, variables=variables)
            return FlowOut(status=result.status, failed=result.failed,
                           commands=result.commands, actions=result.actions,
                           run_dir=phone.last_run_dir.name if phone.last_run_dir
                           else "")
        return await anyio.to_thread.run_sync(replay)


async def _driving(ctx: Context, start: Callable[[Callable[[Any], None]], TaskResult]
                   ) -> TaskResult:
    """Run ``start`` in a worker thread, its progress sent to the client as notifications."""
    def hook(progress: Any) -> None:
        message = f"{progress.phase} · {progress.step or '-'} · last: " \
                  f"{progress.last_action or '-'}"
        anyio.from_thread.run(ctx.report_progress, float(progress.steps_used),
                              float(progress.steps_limit), message[:300])
    return await anyio.to_thread.run_sync(lambda: start(hook))


def _out(hub: Hub, device: str | None, result: TaskResult) -> RunOut:
    """The tool's output, with the screen read from the phone now."""
    try:
        with hub.using(device) as phone:
            obs = phone.observe()
            elements = phone.elements(obs)
        screen: Screen | None = Screen(package=obs.package, activity=obs.activity,
                                       elements=elements)
    except (OSError, OmgError):
        screen = None
    return RunOut(status=result.status, answer=result.answer, question=result.question,
                  summary=result.summary, run_dir=result.run_dir.name,
                  report=str(result.report) if result.report else None,
                  steps_used=result.steps_used, screen=screen)
