"""``omg-agent memory list|show|clear``: the values runs saved (``runs/memory.sqlite``);
``memory learned``: the steps learned from takeovers on the mirror (``runs/learned``).

Reads the :class:`~omg_agent.brain.memory.MemoryBank` file that runs write (``memory_db``,
default ``<runs_dir>/memory.sqlite``, or ``--db``). A missing file is reported, never
created by ``list`` or ``show``.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from omg_agent.cli.console import console, fail

if TYPE_CHECKING:
    from omg_agent.brain.memory import MemoryBank, MemoryItem

app = typer.Typer(help="List, show and clear the values runs saved (mem_save, $name).\n\n"
                       "Example: omg-agent memory list", no_args_is_help=True)

DbOpt = typer.Option(None, "--db", help="Memory file (default: memory_db setting, "
                                        "else <runs_dir>/memory.sqlite).")
RunOpt = typer.Option(None, "--run", help="Only this run's values (its run id).")
_CLI_RUN = "omg-agent-memory-cli"  # the bank needs a run id; this one owns nothing
_PREVIEW = 60


def _db_path(db: Path | None) -> Path:
    if db is not None:
        return db
    from omg_agent.config import Settings
    from omg_agent.errors import ConfigError

    try:
        return Settings.load().memory_path
    except ConfigError as exc:
        fail(str(exc))


def _open(db: Path | None) -> MemoryBank:
    from omg_agent.brain.memory import MemoryBank
    from omg_agent.errors import MemoryBankError

    path = _db_path(db)
    if not path.is_file():
        fail(f"no memory file at {path}: runs write it once they save a value "
             "(or pass --db PATH)")
    try:
        return MemoryBank(path, _CLI_RUN)
    except MemoryBankError as exc:
        fail(str(exc))


def _item_json(item: MemoryItem) -> dict[str, Any]:
    return {"key": item.key, "value": item.value, "scope": item.scope, "source": item.source,
            "app": item.app, "step": item.step, "run": item.run_id,
            "saved_at": datetime.fromtimestamp(item.saved_at).isoformat(timespec="seconds")}


@app.command(name="list")
def list_(db: Path | None = DbOpt, run: str | None = RunOpt,
          as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List saved values: key, value (shortened), scope, run, app, source, time.

    Example: omg-agent memory list --run 20260101-120000-ab12
    """
    with _open(db) as bank:
        items = bank.stored(run)
    if as_json:
        print(json.dumps([_item_json(i) for i in items], ensure_ascii=False, indent=2))
        return
    if not items:
        console.print("no saved values" + (f" for run {run}" if run else ""))
        return
    from rich.table import Table

    table = Table("key", "value", "scope", "run", "app", "source", "saved")
    for i in items:
        shown = i.value if len(i.value) <= _PREVIEW else i.value[:_PREVIEW - 1] + "…"
        row = _item_json(i)
        table.add_row(i.key, shown, i.scope, i.run_id, i.app, i.source, row["saved_at"])
    console.print(table)


@app.command()
def show(key: str = typer.Argument(..., help="The key (as in $key)."),
         db: Path | None = DbOpt, run: str | None = RunOpt,
         as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Show every saved value of one key in full, with where it came from.

    Example: omg-agent memory show price
    """
    with _open(db) as bank:
        items = [i for i in bank.stored(run) if i.key == key]
    if not items:
        fail(f"no saved value named {key!r}" + (f" in run {run}" if run else "")
             + ": see `omg-agent memory list`")
    if as_json:
        print(json.dumps([_item_json(i) for i in items], ensure_ascii=False, indent=2))
        return
    for i in items:
        row = _item_json(i)
        console.print(f"{i.key} = {i.value}\n  {i.scope} scope, run {i.run_id}, app "
                      f"{i.app or '-'}, step {i.step}, from {i.source}, saved "
                      f"{row['saved_at']}", markup=False, highlight=False)


@app.command()
def clear(db: Path | None = DbOpt, run: str | None = RunOpt,
          long_term: bool = typer.Option(False, "--long", help="Only the long-term scope."),
          everything: bool = typer.Option(False, "--all", help="Every value in the file.")
          ) -> None:
    """Delete saved values: one run's (--run), the long-term ones (--long) or all (--all).

    Example: omg-agent memory clear --all
    """
    chosen = sum((run is not None, long_term, everything))
    if chosen != 1:
        fail("give exactly one of --run RUN_ID, --long, --all")
    with _open(db) as bank:
        gone = bank.clear(None if everything else "" if long_term else run)
    what = "every run" if everything else "the long-term scope" if long_term else f"run {run}"
    console.print(f"deleted {gone} value{'s' * (gone != 1)} of {what}", highlight=False)


def _learned_dir(folder: Path | None) -> Path:
    if folder is not None:
        return folder
    from omg_agent.config import Settings
    from omg_agent.errors import ConfigError
    from omg_agent.hitl.learn import LEARNED_DIR

    try:
        return Settings.load().runs_dir / LEARNED_DIR
    except ConfigError as exc:
        fail(str(exc))


@app.command()
def learned(delete: str | None = typer.Option(None, "--delete", metavar="ID",
                                              help="Delete this learned entry."),
            folder: Path | None = typer.Option(None, "--dir", help="Learned steps folder "
                                               "(default: <runs_dir>/learned)."),
            as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List the steps learned from a human's takeovers on the mirror, or delete one.

    Each entry is offered, as a flow, before the model when a run meets the same app, screen
    and step again.

    Example: omg-agent memory learned

    Example: omg-agent memory learned --delete ID
    """
    from omg_agent.hitl.learn import LearnedStore

    store = LearnedStore(_learned_dir(folder))
    if delete is not None:
        if not store.delete(delete):
            known = ", ".join(m["key"] for m in store.entries()) or "none"
            fail(f"no learned entry {delete!r}; the ids are: {known}")
        console.print(f"deleted learned entry {delete}", highlight=False, markup=False)
        return
    rows = []
    for meta in store.entries():
        entry = store.store.get(meta["key"], retired=True)
        steps = [c.label() for c in entry.flow.commands] if entry is not None else []
        rows.append({"id": meta["key"], "app": meta.get("app", ""),
                     "intent": meta.get("intent", ""), "screen": meta.get("signature", ""),
                     "steps": steps, "hits": meta.get("hits", 0),
                     "failures": meta.get("failures", 0),
                     "learned": datetime.fromtimestamp(float(meta.get("created", 0)))
                     .isoformat(timespec="seconds")})
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not rows:
        console.print("no learned steps yet: they come from takeovers on the mirror "
                      "(omg-agent run --mirror)")
        return
    from rich.markup import escape

    for r in rows:  # one block per entry: readable at any width, the id whole for --delete
        console.print(f"[bold]{escape(str(r['id']))}[/]  {escape(str(r['app']))} · "
                      f"hits {r['hits']} · failures {r['failures']} · learned {r['learned']}",
                      soft_wrap=True)
        console.print(f"  intent: {escape(str(r['intent']))}", soft_wrap=True)
        for line in r["steps"]:
            console.print(f"    {escape(str(line))}", soft_wrap=True)


def register(root: typer.Typer) -> None:
    """Add the ``memory`` group to the ``omg-agent`` app."""
    root.add_typer(app, name="memory")
