"""Size limits (issue 26): no module of omg_agent over 400 lines and no function over 60,
except the vphone's app screens (long, flat screen descriptions) and the entries of
``ALLOWED``, each with its reason. Functions are measured from their ``def`` line to their
last line (decorators excluded; a nested function counts inside its parent too)."""

from __future__ import annotations

import ast
from pathlib import Path

import omg_agent

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
PACKAGE = Path(omg_agent.__file__).parent
EXEMPT_DIRS = ("omg_agent/vphone/apps/",)  # screens: data-like layouts, one per app

# ``path`` (a module) or ``path:Qualified.name`` (a function) -> why it may stay over.
ALLOWED: dict[str, str] = {
}


def _relative(path: Path) -> str:
    return f"omg_agent/{path.relative_to(PACKAGE).as_posix()}"


def long_functions(source: str, limit: int) -> dict[str, int]:
    """Qualified name -> length in lines, for every function of ``source`` over ``limit``."""
    found: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    length = (child.end_lineno or child.lineno) - child.lineno + 1
                    if length > limit:
                        found[name] = length
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def oversized() -> dict[str, int]:
    """``path`` or ``path:function`` -> lines, for everything over its limit."""
    over: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = _relative(path)
        if rel.startswith(EXEMPT_DIRS):
            continue
        source = path.read_text(encoding="utf-8")
        lines = len(source.splitlines())
        if lines > MAX_MODULE_LINES:
            over[rel] = lines
        for name, length in long_functions(source, MAX_FUNCTION_LINES).items():
            over[f"{rel}:{name}"] = length
    return over


def test_no_module_or_function_is_over_its_limit_unless_allowed_with_a_reason() -> None:
    unlisted = {k: v for k, v in oversized().items() if k not in ALLOWED}
    assert unlisted == {}, (
        f"over {MAX_MODULE_LINES} lines per module / {MAX_FUNCTION_LINES} per function: "
        f"{unlisted} — split by meaning, or add to ALLOWED with a reason")


def test_every_allowed_entry_is_still_over_its_limit() -> None:
    stale = sorted(set(ALLOWED) - set(oversized()))
    assert stale == [], f"now under the limit: remove from ALLOWED {stale}"


def test_every_allowed_entry_says_why() -> None:
    assert all(reason.strip() for reason in ALLOWED.values())


def test_a_long_method_is_found_by_its_qualified_name() -> None:
    body = "\n".join(f"        x = {i}" for i in range(MAX_FUNCTION_LINES))
    source = f"class Shop:\n    def pay(self):\n{body}\n    def ok(self):\n        pass\n"
    assert long_functions(source, MAX_FUNCTION_LINES) == {
        "Shop.pay": MAX_FUNCTION_LINES + 1}
