"""The import rule of DESIGN.md, checked on the source."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import pytest

import incremind_daemon

PACKAGE = Path(incremind_daemon.__file__).parent
LAYERS = {"store", "pipeline", "sources", "serve", "embedding", "ops", "cli", "daemon"}
FORBIDDEN = {
    "store": {"pipeline", "serve", "sources", "embedding", "ops", "cli", "daemon"},
    "pipeline": {"serve", "sources", "embedding", "ops", "cli", "daemon"},
    "sources": {"serve", "store", "embedding", "ops", "cli", "daemon"},
    "serve": {"pipeline", "sources", "embedding", "ops", "cli", "daemon"},
    # embedding models may use the store's protocol and the pipeline's HTTP client for model endpoints
    "embedding": {"serve", "sources", "ops", "cli", "daemon"},
    "ops": {"cli", "daemon"},
}
# sources may use the WorkItem types of the pipeline, and nothing else of it
ALLOWED_MODULES = {"sources": {"incremind_daemon.pipeline.work"}}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.add(module)
    return found


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "incremind_daemon" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_only_downstream(layer: str) -> None:
    files = list((PACKAGE / layer).rglob("*.py"))
    assert files
    for path in files:
        for module in imported_modules(path):
            if module in ALLOWED_MODULES.get(layer, set()):
                continue
            target = layer_of(module)
            assert target not in FORBIDDEN[layer], f"{path.relative_to(PACKAGE)} imports {module}"


def test_only_the_entry_modules_sit_at_the_package_root() -> None:
    """Every module belongs to a part (DESIGN.md's layout); the root keeps settings, errors and the stdlib helpers."""
    root = {path.stem for path in PACKAGE.glob("*.py")}
    allowed = {"__init__", "__main__", "config", "daemon", "errors", "locate", "names", "private"}
    assert root <= allowed, f"modules at the package root that belong in a part: {sorted(root - allowed)}"


def test_modules_stay_under_the_hard_size_limit() -> None:
    for path in PACKAGE.rglob("*.py"):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines <= 600, f"{path.relative_to(PACKAGE)} has {lines} lines; split it by step"


def test_library_code_never_prints() -> None:
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "cli" or path.name in {"__main__.py", "hook.py", "client.py"}:  # the fronts
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
        ]
        assert not calls, f"{path.relative_to(PACKAGE)} calls print()"


def test_every_incremind_name_the_benchmarks_import_exists() -> None:
    """mypy checks only the package: a renamed function must not silently break a benchmark script."""
    missing = []
    for path in (PACKAGE.parent / "benchmarks").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("incremind_daemon")):
                continue
            module = importlib.import_module(str(node.module))
            for alias in node.names:
                if not hasattr(module, alias.name) and importlib.util.find_spec(f"{node.module}.{alias.name}") is None:
                    missing.append(f"{path.name}: {node.module}.{alias.name}")
    assert not missing, missing


_SQL = re.compile(
    r"\b(?:SELECT\s.+\sFROM|INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(?:VIRTUAL\s+)?"
    r"(?:TABLE|INDEX|TRIGGER)|PRAGMA\s|BEGIN(?:\s+IMMEDIATE)?$|ROLLBACK$|COMMIT$)",
    re.S,
)


def test_sql_lives_in_the_store_only() -> None:
    """DESIGN.md: all SQL lives in store/; the other parts call its functions."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).parts[0] == "store":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            calls_sql = (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in {"execute", "executemany", "pragma"}
            )
            writes_sql = isinstance(node, ast.Constant) and isinstance(node.value, str) and _SQL.search(node.value)
            if calls_sql or writes_sql:
                found.append(f"{path.relative_to(PACKAGE)}:{getattr(node, 'lineno', '?')}")
    assert not found, f"SQL outside store/: {found}"
