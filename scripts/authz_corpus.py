"""Print the authorisation corpus table: how the task-permission reader does on ≥ 200 task
phrasings (English and Chinese), by category — grants beyond the words (must be 0) and false
asks (words that authorise an action the reader does not grant).

    PYTHONPATH=. .venv/bin/python scripts/authz_corpus.py            # the table (markdown)
    PYTHONPATH=. .venv/bin/python scripts/authz_corpus.py --misses   # and each miss
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from omg_agent.bench.authz_corpus import CORPUS, judge, load, table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the corpus YAML file")
    parser.add_argument("--misses", action="store_true", help="list phrasings not exact")
    args = parser.parse_args(argv)
    verdicts = [judge(p) for p in load(args.corpus)]
    print(table(verdicts))
    if args.misses:
        for v in verdicts:
            if not v.exact:
                print(f"\n{v.phrasing.cat}/{v.phrasing.lang}: {v.phrasing.text}\n"
                      f"  expected {list(v.phrasing.expect)}\n  got      {list(v.got)}")
    return 1 if any(v.beyond for v in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
