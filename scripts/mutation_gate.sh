#!/usr/bin/env bash
# Mutation testing of the rules that guard money (issue 24; docs/mutation.md):
# mutmut 3 on the answer rule, the sensitive-action gate, authorisations and the amount
# parser, with only the fast guard unit tests (tests/unit/guards) as the test command.
#
#   scripts/mutation_gate.sh            # run (resumes an earlier run in the same work dir)
#   scripts/mutation_gate.sh --report   # only print the table of the last run
#   scripts/mutation_gate.sh 'omg_agent.guards.landing.*'   # only the mutants named (globs)
#
# MUT_PROFILE=gate3 mutates the Gate v3 rules instead (issue 34): the choke point
# (landing.py, choke.py), the amounts (amounts.py, numerals.py, payable.py) and the done rule
# (ledger.py, task_objects.py, brain/honest.py, brain/end_holds.py), with the unit tests that
# import them. MUT_FILES and MUT_TESTS
# (space-separated paths) override either list; MUT_PYTEST_ARGS adds pytest arguments (e.g.
# --deselect of a test that fails on the tree as it is: mutmut needs a green clean run).
#
# It works on a copy of the checkout (MUT_WORK, default /tmp/omg-mutation), never on the
# tree itself, and installs mutmut into its own venv (MUT_VENV, default /tmp/mutvenv) that
# reuses the project venv's packages (PROJECT_VENV, default .venv) without omg_agent itself,
# so the mutated copy is the one imported. MUT_CHILDREN (default 2) sets the parallelism.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MUT_WORK:-/tmp/omg-mutation}
VENV=${MUT_VENV:-/tmp/mutvenv}
PROJECT_VENV=${PROJECT_VENV:-$ROOT/.venv}
CHILDREN=${MUT_CHILDREN:-2}
MUTMUT_VERSION=3.8.1
case "${MUT_PROFILE:-money}" in
    money)
        FILES=(omg_agent/guards/answers.py omg_agent/guards/sensitive.py
               omg_agent/guards/authorisation.py omg_agent/guards/amounts.py
               omg_agent/guards/numerals.py omg_agent/guards/payable.py)
        TESTS=(tests/unit/guards) ;;
    gate3)
        FILES=(omg_agent/guards/landing.py omg_agent/guards/payable.py
               omg_agent/guards/ledger.py omg_agent/brain/honest.py
               omg_agent/brain/end_holds.py omg_agent/guards/task_objects.py
               omg_agent/guards/amounts.py omg_agent/guards/numerals.py
               omg_agent/guards/choke.py)
        TESTS=(tests/unit/guards tests/unit/drivers/test_choke_seat.py
               tests/unit/brain/test_honest_done.py tests/unit/brain/test_honest_rule.py
               tests/unit/brain/test_honest_screens.py tests/unit/brain/test_end_holds.py
               tests/unit/brain/test_end_holds_rule.py tests/unit/brain/test_listed_objects.py
               tests/unit/brain/test_spent_resume.py
               tests/unit/brain/test_orchestrator_transitions.py) ;;
    *)
        echo "MUT_PROFILE: unknown profile '$MUT_PROFILE' (accepted: money, gate3)" >&2
        exit 2 ;;
esac
if [[ -n "${MUT_FILES:-}" ]]; then read -r -a FILES <<<"$MUT_FILES"; fi
if [[ -n "${MUT_TESTS:-}" ]]; then read -r -a TESTS <<<"$MUT_TESTS"; fi
read -r -a EXTRA <<<"${MUT_PYTEST_ARGS:-}"

report() {
    cd "$WORK"
    "$VENV/bin/mutmut" results --all true >"$WORK/results.txt" 2>/dev/null || true
    "$VENV/bin/python" - "$WORK/results.txt" "${FILES[@]}" <<'EOF'
import sys
from collections import Counter

results, files = sys.argv[1], sys.argv[2:]
counts: dict[str, Counter[str]] = {f: Counter() for f in files}
survivors = []
for line in open(results, encoding="utf-8"):
    name, _, status = line.strip().rpartition(": ")
    if not name:
        continue
    module = name.split(".x", 1)[0]  # omg_agent.guards.sensitive.x_classify__mutmut_3
    path = next((f for f in files if module == f[:-3].replace("/", ".")), None)
    if path is None:
        continue
    counts[path][status] += 1
    if status != "killed":
        survivors.append((path, name, status))
print(f"| file | killed | survived | other | total | killed % |")
print(f"|---|---:|---:|---:|---:|---:|")
total = Counter()
for path, c in counts.items():
    n = sum(c.values())
    other = n - c["killed"] - c["survived"]
    pct = 100 * c["killed"] / n if n else 0
    print(f"| {path} | {c['killed']} | {c['survived']} | {other} | {n} | {pct:.1f} |")
    total.update(c)
n = sum(total.values())
print(f"| **all** | {total['killed']} | {total['survived']} | "
      f"{n - total['killed'] - total['survived']} | {n} | "
      f"{100 * total['killed'] / n if n else 0:.1f} |")
print()
for path, name, status in survivors:
    print(f"{status}: {name}")
EOF
}

if [[ "${1:-}" == "--report" ]]; then
    report
    exit 0
fi

if [[ ! -x "$VENV/bin/mutmut" ]]; then
    "$PROJECT_VENV/bin/python" -m venv "$VENV"
    site=$("$PROJECT_VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    mine=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    # the project's dependencies, as a plain path: its .pth files (the editable omg_agent)
    # are not processed, so `import omg_agent` finds only the mutated copy
    echo "$site" >"$mine/omg_project_deps.pth"
    "$VENV/bin/pip" install -q "mutmut==$MUTMUT_VERSION"
fi

mkdir -p "$WORK"
# the checkout as it is (committed or not), without mutmut's own earlier output
(cd "$ROOT" && git ls-files -co --exclude-standard -- omg_agent tests scripts pyproject.toml \
    | while read -r f; do [[ -e "$f" ]] && echo "$f"; done | tar -cf - -T -) | tar -xf - -C "$WORK"
{
    echo "[mutmut]"
    echo "source_paths = omg_agent"
    printf 'only_mutate =\n'
    for f in "${FILES[@]}"; do printf '    %s\n' "$f"; done
    printf 'also_copy =\n    scripts\n'  # tests/unit/guards/test_gate_rate.py loads one
    printf 'pytest_add_cli_args_test_selection =\n'
    for t in "${TESTS[@]}"; do printf '    %s\n' "$t"; done
    printf 'pytest_add_cli_args =\n    -p\n    no:cacheprovider\n    -p\n    no:xdist\n'
    for a in "${EXTRA[@]}"; do printf '    %s\n' "$a"; done
} >"$WORK/setup.cfg"

cd "$WORK"
start=$(date +%s); echo "== $(date -u +%FT%TZ) mutmut run $*" >>"$WORK/run.log"
"$VENV/bin/mutmut" run --max-children "$CHILDREN" "$@" >>"$WORK/run.log" 2>&1 || true
echo "mutmut run took $(( $(date +%s) - start )) s (log: $WORK/run.log)"
report
