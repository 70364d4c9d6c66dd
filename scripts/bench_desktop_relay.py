"""Desktop tasks through the relay model: the tree-first driver vs OCR only (issue 39).

Each task runs in a fresh private desktop (Xvfb 1280x1024, a session bus and through it the
accessibility bus: ``omg_agent.drivers.desktop.atspi_session``), with fresh settings (a new
home; GSettings in a keyfile under it, so a preference changed in a dialog is on disk), its
apps started, the pointer over the first one (no window manager: the app under the pointer
is the frontmost). Then ``omg-agent run GOAL --device desktop=:N,ARM --max-steps 20`` with
the relay as its model, and the outcome read from the apps — a saved file's bytes, the
GSettings keyfile, the calculator's display through its own accessibility object, the Tk
app's state file — never from what the agent says. ARM is ``tree`` (the driver's default:
the accessibility tree first) or ``ocr`` (``desktop=:N,ocr``: OCR only, the driver before
the tree). Arms are interleaved per task (tree, then ocr) so a cut-short round still pairs.

Every run records the relay requests it made (``req_A``..``req_B``), so
``scripts/peers/relay_tokens.py DIR:A-B=LABEL`` counts its input tokens; the table prints
calls and input tokens per task and arm.

  python scripts/bench_desktop_relay.py --relay-dir /work/relay39/r-desktop \\
      --base-url http://127.0.0.1:8876/v1 \\
      --out /tmp/desk-relay --tokens-python /tmp/tok/bin/python \\
      [--tasks calc-mul,save-as,…] [--arms tree,ocr] [--run-timeout 900]
"""

from __future__ import annotations

import argparse
import configparser
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from omg_agent.drivers.desktop import atspi_session as session  # noqa: E402
from omg_agent.drivers.desktop.x11 import X11Backend  # noqa: E402

MOUSEPAD = ("mousepad", "--disable-server")
TK = (sys.executable, "-m", "omg_agent.drivers.desktop.testapp", "--state")
KEYFILE = Path("glib-2.0/settings/keyfile")  # under XDG_CONFIG_HOME: GSettings' keyfile


# -- checks: pure functions of what the apps left behind --------------------------------------
def file_is(path: Path, want: str) -> tuple[bool, str]:
    """The file holds ``want`` (one trailing newline allowed: editors add one)."""
    if not path.exists():
        return False, f"no file {path.name}"
    got = path.read_text(encoding="utf-8", errors="replace")
    ok = got in (want, want + "\n")
    return ok, "" if ok else f"{path.name} holds {got[:80]!r}"


def lines_are(path: Path, want: list[str]) -> tuple[bool, str]:
    """The file's non-empty lines, stripped, are ``want``."""
    if not path.exists():
        return False, f"no file {path.name}"
    got = [s.strip() for s in path.read_text(encoding="utf-8", errors="replace").splitlines()
           if s.strip()]
    return got == want, "" if got == want else f"{path.name} lines {got[:5]!r}"


def gsetting(keyfile: Path, schema_path: str, key: str) -> str | None:
    """A key's value in GSettings' keyfile backend (``None``: never written, the default)."""
    if not keyfile.exists():
        return None
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(keyfile.read_text(encoding="utf-8"))
    group = schema_path.strip("/")
    return parser.get(group, key, fallback=None) if parser.has_section(group) else None


def setting_is(keyfile: Path, schema_path: str, key: str, want: str) -> tuple[bool, str]:
    got = gsetting(keyfile, schema_path, key)
    ok = got is not None and got.strip().strip("'\"") == want
    return ok, "" if ok else f"{key} = {got!r}"


def answer_has(result: dict[str, Any], want: str) -> bool:
    """The run's final answer or summary quotes ``want``."""
    text = " ".join(str(result.get(k) or "") for k in ("answer", "summary", "message"))
    return want in text


@dataclass
class Ctx:
    """What a check reads: the task's folder, the settings keyfile, the calculator display,
    the Tk app's state, the run's JSON result."""

    folder: Path
    keyfile: Path
    display: Callable[[], str]
    tk_state: Path
    result: dict[str, Any]


@dataclass(frozen=True)
class Task:
    id: str
    apps: tuple[tuple[str, ...], ...]
    goal: str  # {dir} is the task's folder
    check: Callable[[Ctx], tuple[bool, str]]
    files: tuple[tuple[str, str], ...] = ()  # written before the run
    side_by_side: bool = False  # the second app's window moved right of the first


def _calc(want: str) -> Callable[[Ctx], tuple[bool, str]]:
    def check(c: Ctx) -> tuple[bool, str]:
        shown = c.display()
        if want not in shown.replace(" ", "").split():
            return False, f"display shows {shown!r}"
        if not answer_has(c.result, want):
            return False, f"display {want}, but the answer does not say it"
        return True, ""
    return check


def _tk(c: Ctx) -> tuple[bool, str]:
    if not c.tk_state.exists():
        return False, "no Tk state"
    state = json.loads(c.tk_state.read_text(encoding="utf-8"))
    ok = state.get("entry") == "order 66" and state.get("clicks", {}).get("Save", 0) >= 1
    return ok, "" if ok else f"entry {state.get('entry')!r}, clicks {state.get('clicks')}"


VIEW = "org/xfce/mousepad/preferences/view"
TASKS = (
    Task("calc-mul", (("galculator",),),
         "Use the calculator (galculator) to compute 37 × 12 and tell me the result.",
         _calc("444")),
    Task("save-as", (MOUSEPAD,),
         "In the text editor (mousepad) type the line: Ship the beta on Friday — then save "
         "the document as {dir}/notes-3.txt",
         lambda c: file_is(c.folder / "notes-3.txt", "Ship the beta on Friday")),
    Task("pref-lines", (MOUSEPAD,),
         "In the text editor (mousepad), open its Preferences dialog and turn on the display "
         "of line numbers.",
         lambda c: setting_is(c.keyfile, VIEW, "show-line-numbers", "true")),
    Task("copy-calc", (MOUSEPAD, ("galculator",)),
         "Compute 37 × 12 in the calculator (galculator, the window on the right), copy the "
         "result into the text editor (mousepad, the window on the left) and save that "
         "document as {dir}/result-7.txt",
         lambda c: file_is(c.folder / "result-7.txt", "444"), side_by_side=True),
    Task("tk-form", (TK,),
         "In the OMG Desk app, type order 66 into its text field and press Save.", _tk),
    Task("open-append", (MOUSEPAD,),
         "In the text editor (mousepad), open the file {dir}/todo-8.txt, add a second line "
         "'call Anna' under the first, and save it.",
         lambda c: lines_are(c.folder / "todo-8.txt", ["buy milk", "call Anna"]),
         files=(("todo-8.txt", "buy milk\n"),)),
    Task("save-cjk", (MOUSEPAD,),
         "In the text editor (mousepad) type the line: 周五发布测试版 🚀 — then save the "
         "document as {dir}/notes-4.txt",
         lambda c: file_is(c.folder / "notes-4.txt", "周五发布测试版 🚀")),
    Task("pref-tabs", (MOUSEPAD,),
         "In the text editor (mousepad), open its Preferences dialog and set the tab width "
         "to 4.",
         lambda c: setting_is(c.keyfile, VIEW, "tab-width", "4")),
    Task("calc-expr", (("galculator",),),
         "Use the calculator (galculator) to compute (125 + 75) / 8 and tell me the result.",
         _calc("25")),
)


@dataclass
class Run:
    task: str
    arm: str
    ok: bool = False
    why: str = ""
    exit: int | None = None
    status: str = ""
    seconds: float = 0.0
    requests: tuple[int, int] | None = None  # the relay's req_A..req_B of this run
    tokens: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def calls(self) -> int:
        return 0 if self.requests is None else self.requests[1] - self.requests[0] + 1


def last_request(relay_dir: Path) -> int:
    nums = [int(p.name[4:]) for p in relay_dir.glob("req_*") if p.name[4:].isdigit()]
    return max(nums, default=0)


def _move_right(backend: X11Backend, pid: int, x: int) -> None:
    """The top-level window of ``pid`` moved to ``x`` (no window manager: it just moves)."""
    d = backend._d  # the Xlib display
    atom = d.intern_atom("_NET_WM_PID")
    for w in d.screen().root.query_tree().children:
        prop = w.get_full_property(atom, 0)
        if prop is not None and len(prop.value) and int(prop.value[0]) == pid:
            w.configure(x=x, y=0)
    d.sync()


def _start_apps(task: Task, env: dict[str, str], home: Path,
                backend: X11Backend) -> list[subprocess.Popen[bytes]]:
    procs = []
    tree = backend.tree
    for argv in task.apps:
        if argv == TK:
            state = home / "tk-state.json"
            procs.append(session.start_app([*argv, str(state)], env,
                                           lambda _pid, s=state: s.exists(), home))
        else:
            assert tree is not None, "no accessibility bus"
            procs.append(session.start_app(list(argv), env,
                                           lambda pid, n=argv[0]: tree.elements(pid, n), home))
    if task.side_by_side:
        _move_right(backend, procs[-1].pid, 760)
    backend.move(150, 150)  # over the first app: the frontmost one
    return procs


def settled(check: Callable[[], tuple[bool, str]], deadline_s: float,
            step: float = 0.2) -> tuple[bool, str]:
    """``check()`` once it passes, or its last verdict after ``deadline_s``: an app may
    write its state a moment after its screen shows it."""
    end = time.monotonic() + deadline_s
    verdict = check()
    while not verdict[0] and time.monotonic() < end:
        time.sleep(step)
        verdict = check()
    return verdict


def calc_display(backend: X11Backend, procs: list[subprocess.Popen[bytes]]) -> str:
    """The calculator's display, from its own accessibility object."""
    tree = backend.tree
    for p in procs:
        els = tree.elements(p.pid, "galculator") if tree else None
        if els and any(e.role == "button" and e.text == "=" for e in els):
            top = min(e.bounds.top for e in els if e.role == "button")
            return " ".join(e.text for e in els if e.role == "text" and e.bounds.top < top
                            and e.text).strip()
    return ""


def agent(goal: str, display: str, arm: str, env: dict[str, str], args: argparse.Namespace,
          runs_dir: Path, resume: str = "") -> tuple[int | None, dict[str, Any], str]:
    """``omg-agent run GOAL`` on the display (or, with ``resume``, ``--resume RUN_DIR
    --answer yes``: the user's yes to a question the gate asked)."""
    start = ["--resume", resume, "--answer", "yes"] if resume else [goal]
    cmd = [str(Path(sys.executable).with_name("omg-agent")), "run", *start, "--device",
           f"desktop={display},{arm}", "--max-steps", str(args.max_steps), "--json",
           "--runs-dir", str(runs_dir)]
    run_env = {**os.environ, **env, "OMG_BASE_URL": args.base_url, "OMG_MODEL": "relay",
               "OMG_API_KEY": "", "OPENAI_API_KEY": "", "OMG_TIMEOUT_S": "590",
               "OMG_MAX_RETRIES": "0",  # this checkout's omg_agent, not the installed one
               "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT),
                                                           os.environ.get("PYTHONPATH"))))}
    try:
        proc = subprocess.run(cmd, env=run_env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=args.run_timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stderr if isinstance(e.stderr, str) else (e.stderr or b"").decode()
        return None, {}, out[-3000:]
    result: dict[str, Any] = {}
    for line in reversed(proc.stdout.strip().splitlines()):
        try:
            result = json.loads(line)
            break
        except json.JSONDecodeError:
            continue
    return proc.returncode, result, (proc.stdout[-2000:] + "\n" + proc.stderr[-3000:])


def run_task(task: Task, arm: str, args: argparse.Namespace, out: Path) -> Run:
    run = Run(task.id, arm)
    home = Path(tempfile.mkdtemp(prefix=f"{task.id}-{arm}-", dir=out))
    folder = home / "files"
    folder.mkdir()
    for name, text in task.files:
        (folder / name).write_text(text, encoding="utf-8")
    xvfb, display = session.start_xvfb()
    bus, env = session.start_session_bus(display, home)
    env["GSETTINGS_BACKEND"] = "keyfile"
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the harness's own tree reads this session's bus
    backend = X11Backend(display)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        procs = _start_apps(task, env, home, backend)
        before = last_request(args.relay_dir)
        t0 = time.monotonic()
        goal = task.goal.format(dir=folder)
        run.exit, result, log = agent(goal, display, arm, env, args, home / "runs")
        while args.yes and run.exit == 5 and result.get("run_dir"):  # waiting for a yes
            run.extra["yes"] = run.extra.get("yes", 0) + 1
            run.exit, result, more = agent(goal, display, arm, env, args, home / "runs",
                                           resume=str(result["run_dir"]))
            log += "\n--- resumed with --answer yes ---\n" + more
        run.seconds = round(time.monotonic() - t0, 1)
        after = last_request(args.relay_dir)
        run.requests = (before + 1, after) if after > before else None
        run.status = str(result.get("status", "timeout" if run.exit is None else "?"))
        (home / "agent.log").write_text(log, encoding="utf-8")
        (home / "result.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
        ctx = Ctx(folder, Path(env["XDG_CONFIG_HOME"]) / KEYFILE,
                  lambda: calc_display(backend, procs), home / "tk-state.json", result)
        run.ok, run.why = settled(lambda: task.check(ctx), args.settle)
    except Exception as e:  # noqa: BLE001 - one broken task must not end the round
        run.why = f"harness: {type(e).__name__}: {e}"
    finally:
        for p in procs:
            session.stop(p)
        backend.close()
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
        session.stop(bus)
        session.stop(xvfb)
    return run


def count_tokens(runs: list[Run], relay_dir: Path, python: str) -> None:
    """Input tokens per run, by ``scripts/peers/relay_tokens.py --json``."""
    specs = [f"{relay_dir}:{r.requests[0]}-{r.requests[1]}={r.task}/{r.arm}"
             for r in runs if r.requests]
    if not specs:
        return
    proc = subprocess.run([python, str(HERE / "peers" / "relay_tokens.py"), *specs, "--json"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"relay_tokens.py failed: {proc.stderr[-500:]}", file=sys.stderr)
        return
    totals = tokens_by_label(proc.stdout)
    for r in runs:
        r.tokens = totals.get(f"{r.task}/{r.arm}")


def tokens_by_label(json_lines: str) -> dict[str, int]:
    """``relay_tokens.py --json`` (one request a line) summed per task label: its
    ``total``, text + image tokens + schema."""
    totals: dict[str, int] = {}
    for line in json_lines.splitlines():
        if line.strip():
            row = json.loads(line)
            label = str(row["task"])
            totals[label] = totals.get(label, 0) + int(row["total"])
    return totals


def table(runs: list[Run]) -> str:
    lines = ["| task | arm | success | calls | input tokens | exit / status | s | why not |",
             "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        yes = f" (yes ×{r.extra['yes']})" if r.extra.get("yes") else ""
        lines.append(f"| {r.task} | {r.arm} | {'yes' if r.ok else 'no'} | {r.calls} "
                     f"| {r.tokens if r.tokens is not None else '—'} "
                     f"| {r.exit} / {r.status}{yes} | {r.seconds:.0f} | {r.why} |")
    for arm in sorted({r.arm for r in runs}, reverse=True):
        mine = [r for r in runs if r.arm == arm]
        tok = sum(r.tokens or 0 for r in mine)
        lines.append(f"| **{arm}** | | {sum(r.ok for r in mine)}/{len(mine)} "
                     f"| {sum(r.calls for r in mine)} | {tok} | | | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--relay-dir", type=Path, required=True)
    p.add_argument("--base-url", default="http://127.0.0.1:8876/v1")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--tasks", default=",".join(t.id for t in TASKS))
    p.add_argument("--arms", default="tree,ocr")
    p.add_argument("--max-steps", type=int, default=20)
    p.add_argument("--run-timeout", type=float, default=1800.0)
    p.add_argument("--settle", type=float, default=5.0,
                   help="seconds a failing check is read again (apps write state late)")
    p.add_argument("--yes", action="store_true",
                   help="answer yes when the gate asks (resume the run with --answer yes)")
    p.add_argument("--tokens-python", default=sys.executable,
                   help="a Python with bpe-openai for relay_tokens.py")
    args = p.parse_args(argv)
    by_id = {t.id: t for t in TASKS}
    wanted = [s.strip() for s in args.tasks.split(",") if s.strip()]
    unknown = [w for w in wanted if w not in by_id]
    if unknown:
        p.error(f"unknown task {unknown[0]!r}: choose from {', '.join(by_id)}")
    lacking = session.missing()
    if lacking:
        p.error(f"needs {lacking}; scripts/setup.sh installs it")
    args.out.mkdir(parents=True, exist_ok=True)
    runs: list[Run] = []
    for tid in wanted:
        for arm in args.arms.split(","):
            print(f"{time.strftime('%H:%M:%S')} {tid} / {arm}…", flush=True)
            run = run_task(by_id[tid], arm, args, args.out)
            runs.append(run)
            print(f"  {'ok' if run.ok else 'FAIL'} {run.why} requests={run.requests} "
                  f"exit={run.exit} {run.seconds}s", flush=True)
            (args.out / "runs.json").write_text(
                json.dumps([asdict(r) for r in runs], indent=1), encoding="utf-8")
    count_tokens(runs, args.relay_dir, args.tokens_python)
    (args.out / "runs.json").write_text(json.dumps([asdict(r) for r in runs], indent=1),
                                        encoding="utf-8")
    print(table(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
