"""The MCP server's run tools: run a task with the full agent (progress notifications while
it runs), answer / approve / decline a held run, run a flow (issue 28).

A run is :meth:`omg_agent.phone.Phone.run` with no one to ask mid-run: it stops at a
question (``ask_user``) or a held action (``needs_confirmation``), resumable from its
``run_dir``. The client may answer a question and may decline; a yes to a held action comes
only from the human, by elicitation (:mod:`.consent`) — ``approve`` asks them, and
``answer`` refuses to carry a yes to a held action.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from pydantic import Field

from omg_agent.errors import ConfigError, OmgError
from omg_agent.guards.answers import read_answer
from omg_agent.guards.provenance import WordsFrom
from omg_agent.mcp import consent
from omg_agent.mcp.server import FlowOut, Hub, RunOut, Screen, tool
from omg_agent.userfiles import inside

if TYPE_CHECKING:
    from omg_agent.phone import TaskResult

MAX_TASK = 4000
MAX_ANSWER = 2000
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
        run_dir = str(result.run_dir)
        out.how_to_approve = consent.how_to_approve(run_dir)
        text = f"{result.question or 'May I go on?'} (run {result.run_dir.name})"
        return await self.put_to_human(ctx, device, run_dir, text, out)

    async def put_to_human(self, ctx: Context, device: str | None, run_dir: str, text: str,
                           out: RunOut) -> Any:
        """Ask the human ``text`` about the run held in ``run_dir``; their word resumes it."""
        async def carry_out(said: str) -> Any:
            return await self.resume(ctx, device, run_dir, said)
        return await self.on_hold(ctx, text, {"run_dir": run_dir, "question": text},
                                  carry_out, out)

    async def resume(self, ctx: Context, device: str | None, run_dir: str, said: str) -> Any:
        path = self.hub.run_dir(run_dir)
        def go_on(hook: Callable[[Any], None]) -> TaskResult:
            with self.hub.using(device) as phone:
                return phone.resume(path, said, on_progress=hook)
        result = await _driving(ctx, go_on)
        return await self.finish(ctx, device, result)

    async def human_said(self, ctx: Context, device: str | None) -> Any:
        """On the retry round of a held run: go on with the human's verdict."""
        got = consent.answered(ctx)
        if got is None:
            return None
        state, verdict = got
        if "run_dir" not in state:  # the answer to another question (a run's permissions)
            return None
        if verdict.said is None:
            return consent.pending(f"{verdict.retry} {state['question']}", state)
        return await self.resume(ctx, device, state["run_dir"], verdict.said)


def register_runs(server: MCPServer, hub: Hub, on_hold: OnHold) -> None:
    """Add the run tools to ``server``; ``on_hold`` puts a held run to the human."""
    runs = _Runs(hub, on_hold)
    _task_tool(server, runs)
    _held_tools(server, runs)
    _flow_tool(server, hub)


def _task_tool(server: MCPServer, runs: _Runs) -> None:
    """``run_task``: a task with the full agent."""
    hub = runs.hub

    @tool(server)
    async def run_task(ctx: Context, task: str = Field(min_length=1, max_length=MAX_TASK),
                       device: str | None = None) -> RunOut:
        """Run a task with the full agent (plan, act, verify on the phone). Sends progress
        notifications; ends with the status read from the phone, the answer, the final
        screen and the report path. A sensitive action waits for the user's yes;
        permissions the task's words state ("you may pay") are the user's to give: they
        are asked once, before the run starts."""
        async def start(words_from: WordsFrom) -> Any:
            def go(hook: Callable[[Any], None]) -> TaskResult:
                with hub.using(device) as phone:
                    return phone.run(task, on_progress=hook, words_from=words_from)
            result = await _driving(ctx, go)
            return await runs.finish(ctx, device, result)

        words = consent.answered(ctx)
        if words is not None and words[0].get("kind") == WORDS_KIND:
            return await _words_answered(task, words[0], words[1], start)
        again = await runs.human_said(ctx, device)
        if again is not None:
            return again
        return await _words_asked(ctx, runs, task, start)


WORDS_KIND = "task_permissions"  # the request_state of the question before a run


async def _words_asked(ctx: Context, runs: _Runs, task: str,
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
    if not asks or not consent.can_ask(ctx):
        return await start("client")
    text = asks_question(asks)
    state = {"kind": WORDS_KIND, "task": task, "question": text}

    async def carry_out(said: str) -> Any:
        return await start("human" if said == "yes" else "client")
    return await runs.on_hold(ctx, text, state, carry_out, None)


async def _words_answered(task: str, state: dict[str, Any], verdict: consent.Verdict,
                          start: Callable[[WordsFrom], Awaitable[Any]]) -> Any:
    """The retry round of the question before a run: the human's yes makes the task's
    words theirs — for exactly the task they were shown."""
    if state.get("task") != task:  # a yes to one task is no yes to another
        return await start("client")
    if verdict.said is None:
        return consent.pending(f"{verdict.retry} {state['question']}", state)
    return await start("human" if verdict.said == "yes" else "client")


def _held_tools(server: MCPServer, runs: _Runs) -> None:
    """``answer``, ``approve`` and ``decline``: going on with a stopped run."""
    hub = runs.hub

    @tool(server)
    async def answer(ctx: Context, run_dir: str,
                     text: str = Field(min_length=1, max_length=MAX_ANSWER),
                     device: str | None = None) -> RunOut:
        """Answer the question a stopped run asked (status ask_user) and go on. A yes to a
        held sensitive action is the user's to give: use approve."""
        path = hub.run_dir(run_dir)
        from omg_agent.brain.resume import load_state

        if load_state(path).state.held is not None and read_answer(text) == "yes":
            raise ConfigError("a yes to a held sensitive action comes from the user, not the "
                              "client: call approve (the user is asked), or decline")
        return await runs.resume(ctx, device, str(path), text)

    @tool(server)
    async def approve(ctx: Context, run_dir: str, device: str | None = None) -> RunOut:
        """Ask the user to approve the action a run holds (status needs_confirmation); the
        run goes on only with their yes."""
        again = await runs.human_said(ctx, device)
        if again is not None:
            return again
        path = hub.run_dir(run_dir)
        from omg_agent.brain.resume import load_state

        held = load_state(path).state.held
        if held is None:
            raise ConfigError(f"run {path.name} holds no action to approve")
        text = consent.question(held.describe, "the run held it for your yes")
        out = RunOut(status="needs_confirmation", answer="", question=text, summary="",
                     run_dir=str(path), report=None, steps_used=0,
                     how_to_approve=consent.how_to_approve(str(path)))
        return await runs.put_to_human(ctx, device, str(path), text, out)

    @tool(server)
    async def decline(ctx: Context, run_dir: str, device: str | None = None) -> RunOut:
        """Refuse the action a run holds: the run ends declined, nothing is done."""
        return await runs.resume(ctx, device, run_dir, "no")


def _flow_tool(server: MCPServer, hub: Hub) -> None:
    """``run_flow``: a flow file replayed with no model — only one inside the folder the
    server was started in (the client names a path; it may not read the user's files)."""
    root = Path.cwd().resolve()

    @tool(server)
    async def run_flow(path: str, variables: dict[str, str] | None = None,
                       device: str | None = None) -> FlowOut:
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
                           run_dir=str(phone.last_run_dir))
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
                  summary=result.summary, run_dir=str(result.run_dir),
                  report=str(result.report) if result.report else None,
                  steps_used=result.steps_used, screen=screen)
