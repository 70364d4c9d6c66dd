"""Run the unchecked mutants of one file the way ``mutmut run`` does, without its clean run.

    cd $MUT_WORK/mutants && CORE="tests/unit/guards/test_amounts.py ..." \
        nice -n 19 /tmp/mutvenv/bin/python ../../path/to/scripts/mutation_drive.py \
        omg_agent/guards/amounts.py

Each mutant is run in a forked child with ``MUTANT_UNDER_TEST`` set, on only the tests
mutmut's statistics tie to its function (``mutants/mutmut-stats.json``, written by an earlier
``scripts/mutation_gate.sh`` run), stopping at the first failure; the exit code goes into
mutmut's own ``.meta`` file, so ``scripts/mutation_gate.sh --report`` counts it.

Why: in one process, a second pytest session gives the parametrised tests of
``tests/unit/guards/test_authz_corpus.py`` other ids than the first, so mutmut's clean run
(its second session) fails with pytest's usage error (exit 4, "not found") for every file
those tests reach (amounts.py, numerals.py). Here that file is run whole instead of by id.
``CORE`` (space-separated test files) keeps only the tests of those files — quicker, and
then a survivor is one those files do not kill (the table says so). ``ALSO`` (space-separated
test files) runs those files first for every mutant: tests written after the statistics run,
which mutmut's statistics do not know. ``ONLY`` (space-separated name fragments) runs only
the unchecked mutants whose names contain one (a function at a time).
"""

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.getcwd())
import pytest  # noqa: E402

CORPUS = "tests/unit/guards/test_authz_corpus.py"
ARGS = ["--rootdir=.", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]


def main(src: str) -> None:
    meta_path = src + ".meta"
    with open(meta_path, encoding="utf-8") as f:
        meta = json.load(f)
    with open("mutmut-stats.json", encoding="utf-8") as f:
        stats = json.load(f)["tests_by_mangled_function_name"]
    core = os.environ.get("CORE", "").split()
    also = os.environ.get("ALSO", "").split()
    only = os.environ.get("ONLY", "").split()

    def tests_of(name: str) -> list[str]:
        ids = {CORPUS if t.startswith(CORPUS + "::") else t
               for t in stats.get(name.rsplit("__mutmut_", 1)[0], [])}
        return also + sorted(t for t in ids if not core or t.split("::")[0] in core)

    todo = [k for k, v in meta["exit_code_by_key"].items()
            if v in (None, 4) and (not only or any(o in k for o in only))]
    if not todo:
        return  # (an empty test list would make pytest collect every test)
    out = os.fdopen(os.dup(1), "w", buffering=1)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    pytest.main([*ARGS, "--collect-only", *sorted({t for n in todo for t in tests_of(n)})])
    os.environ["MUTANT_UNDER_TEST"] = ""
    start = time.time()
    for i, name in enumerate(todo):
        code = run(name, tests_of(name))
        meta["exit_code_by_key"][name] = code
        print(f"{i + 1}/{len(todo)} {time.time() - start:.0f}s {code} {name}", file=out)
        if i % 10 == 0 or i == len(todo) - 1:
            with open(meta_path + ".tmp", "w", encoding="utf-8") as f:
                json.dump(meta, f)
            os.replace(meta_path + ".tmp", meta_path)


def run(name: str, tests: list[str]) -> int:
    if not tests:
        return 33  # mutmut's "no tests"
    pid = os.fork()
    if pid == 0:
        os.environ["MUTANT_UNDER_TEST"] = name
        signal.alarm(60)
        os._exit(int(pytest.main([*ARGS, "-x", *tests])))
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return -24 if code == -signal.SIGALRM else code  # -24: mutmut's timeout


if __name__ == "__main__":
    main(sys.argv[1])
