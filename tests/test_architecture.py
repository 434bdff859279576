"""The package's shape, read from its source with ``ast`` (nothing is imported).

- No import circles among gradacc_desktop's modules. Every ``import`` and
  ``from … import`` anywhere in a module counts, at module level or inside a function
  or class; only imports under ``if TYPE_CHECKING:`` are left out, as they never run.
  Relative imports are resolved, and ``from pkg import name`` points at the submodule
  ``pkg.name`` when there is one, else at ``pkg``. Importing ``a.b.c`` also runs
  ``a/__init__`` and ``a/b/__init__``; those implicit edges are not counted (every
  package that re-exports its submodules would otherwise be a circle with them).
- Module sizes: at most 600 lines, 450 in viewmodels and ui.
- No private name (``_x``, not a dunder) imported from another module of the package.
  A private *module* (``from . import _common``) is a module, not a name, and is allowed.
  Imports under ``if TYPE_CHECKING:`` count here.
- The layers: core imports neither Qt nor viewmodels/ui/app/cli; viewmodels import
  neither ui nor app. Imports under ``if TYPE_CHECKING:`` count here too.

Each check is split by area so a failure says which part of the house is at fault.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "gradacc_desktop"
PACKAGE = PACKAGE_DIR.name

LINE_LIMIT = 600
# The presentation layers hold widgets and texts: smaller pieces.
SMALL_LINE_LIMIT = 450
SMALL_AREAS = ("viewmodels", "ui")
QT_PREFIXES = ("PySide6", "shiboken6", "PyQt5", "PyQt6")


@dataclass(frozen=True)
class Import:
    line: int
    target: str  # the module it points at (a gradacc_desktop module, or an outside name)
    names: tuple[str, ...] = ()  # for ``from target import names`` (not submodules)
    type_checking: bool = False


@dataclass
class Module:
    name: str
    path: Path
    is_package: bool
    imports: list[Import] = field(default_factory=list)
    lines: int = 0

    @property
    def area(self) -> str:
        parts = self.name.split(".")
        return parts[1] if len(parts) > 2 or (len(parts) == 2 and self.is_package) else "app"

    @property
    def relpath(self) -> str:
        return str(self.path.relative_to(PACKAGE_DIR.parent))


def _module_name(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _import_nodes(
    tree: ast.AST, type_checking: bool = False
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import node with whether it sits under ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, type_checking
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.body:
                yield from _import_nodes(ast.Module(body=[stmt], type_ignores=[]), True)
            for stmt in child.orelse:
                yield from _import_nodes(ast.Module(body=[stmt], type_ignores=[]), type_checking)
        else:
            yield from _import_nodes(child, type_checking)


def _owning(name: str, known: set[str]) -> str:
    """The longest known module that ``name`` is or lies in (``name`` if none)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            return candidate
    return name


def parse_imports(text: str, name: str, is_package: bool, known: set[str]) -> list[Import]:
    """Every import in module ``name``'s source, resolved against the ``known`` modules."""
    imports: list[Import] = []
    tree = ast.parse(text)
    package = name if is_package else name.rpartition(".")[0]
    for node, type_checking in _import_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _owning(alias.name, known)
                imports.append(Import(node.lineno, target, (), type_checking))
            continue
        if node.level:
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        plain: list[str] = []
        for alias in node.names:
            submodule = f"{source}.{alias.name}"
            if submodule in known:
                imports.append(Import(node.lineno, submodule, (), type_checking))
            else:
                plain.append(alias.name)
        if plain:
            target = _owning(source, known)
            imports.append(Import(node.lineno, target, tuple(plain), type_checking))
    return imports


@cache
def modules() -> dict[str, Module]:
    found: dict[str, Module] = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        name, is_package = _module_name(path)
        found[name] = Module(name, path, is_package)
    known = set(found)
    for module in found.values():
        text = module.path.read_text(encoding="utf-8")
        module.imports = parse_imports(text, module.name, module.is_package, known)
        module.lines = len(text.splitlines())
    return found


def import_graph() -> dict[str, set[str]]:
    """Module → the package modules it imports at run time (no self-edges)."""
    found = modules()
    return {
        name: {
            imp.target
            for imp in module.imports
            if not imp.type_checking and imp.target in found and imp.target != name
        }
        for name, module in found.items()
    }


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative); only components of two or more modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _short(name: str) -> str:
    return name.removeprefix(PACKAGE + ".")


def _shortest_cycle(start: str, members: set[str], graph: dict[str, set[str]]) -> list[str]:
    """The shortest path start -> ... -> start inside one component (breadth-first)."""
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for succ in sorted(graph[node] & members):
                if succ == start:
                    chain = [node]
                    while chain[-1] != start:
                        chain.append(parents[chain[-1]])
                    return [*reversed(chain), start]
                if succ not in parents:
                    parents[succ] = node
                    following.append(succ)
        frontier = following
    return [start]


def _circle_report(component: list[str], graph: dict[str, set[str]]) -> str:
    members = set(component)
    cycle = _shortest_cycle(component[0], members, graph)
    return (
        f"{len(component)} modules ({', '.join(_short(m) for m in component)}); "
        f"e.g. {' -> '.join(_short(m) for m in cycle)}"
    )


# Subpackages by name; "app" is the top-level modules (app, measure, paths, …).
AREAS = sorted({module.area for module in modules().values()})


# --- the tests ------------------------------------------------------------------


def test_imports_are_resolved_wherever_they_are() -> None:
    known = {"p", "p.a", "p.a.b", "p.a.c", "p.d"}
    text = """
from . import c
from .b import Thing, _hidden
from .. import d
import p.a.b.missing
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from .c import Only
else:
    from .c import Run

def late():
    from p.d import something
"""
    found = parse_imports(text, "p.a.x", False, known)
    by_target = {(i.target, i.names, i.type_checking) for i in found}
    assert ("p.a.c", (), False) in by_target  # from pkg import submodule
    assert ("p.a.b", ("Thing", "_hidden"), False) in by_target
    assert ("p.d", (), False) in by_target  # two levels up, then a submodule
    assert ("p.a.b", (), False) in by_target  # the longest known prefix
    assert ("p.a.c", ("Only",), True) in by_target  # under TYPE_CHECKING
    assert ("p.a.c", ("Run",), False) in by_target  # its else runs
    assert ("p.d", ("something",), False) in by_target  # inside a function
    # in a package's __init__, "." is the package itself
    init = parse_imports("from .b import Thing", "p.a", True, known)
    assert [(i.target, i.names) for i in init] == [("p.a.b", ("Thing",))]


def test_the_real_graph_has_the_packages_edges() -> None:
    graph = import_graph()
    reader = f"{PACKAGE}.core.frameworks.config_import.reader"
    assert f"{PACKAGE}.core.frameworks.config_import.model" in graph[reader]
    assert f"{PACKAGE}.core.memory.setup" in graph[reader]


def test_strongly_connected_finds_every_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": {"d"}, "f": set()}
    assert strongly_connected(graph) == [["a", "b", "c"], ["d", "e"]]
    assert _shortest_cycle("a", {"a", "b", "c"}, graph) == ["a", "b", "c", "a"]


def test_no_import_circles() -> None:
    graph = import_graph()
    circles = [_circle_report(c, graph) for c in strongly_connected(graph)]
    assert circles == [], "import circles:\n" + "\n".join(circles)


@pytest.mark.parametrize("area", AREAS)
def test_modules_stay_small(area: str) -> None:
    limit = SMALL_LINE_LIMIT if area in SMALL_AREAS else LINE_LIMIT
    over = []
    for module in modules().values():
        if module.area != area:
            continue
        if module.lines > limit:
            over.append(f"{module.relpath}: {module.lines} lines")
    assert over == [], f"over {limit} lines:\n" + "\n".join(over)


@pytest.mark.parametrize("area", AREAS)
def test_no_private_names_cross_modules(area: str) -> None:
    found = modules()
    crossings = []
    for module in found.values():
        if module.area != area:
            continue
        for imp in module.imports:
            if imp.target not in found or imp.target == module.name:
                continue
            for name in imp.names:
                if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
                    crossings.append(
                        f"{module.relpath}:{imp.line} {name} from {_short(imp.target)}"
                    )
    assert crossings == [], "private names imported from another module:\n" + "\n".join(crossings)


# Layer → what it must never import: outside packages, and modules of the package (a
# prefix: a package and everything in it). The top-level helpers (paths, logs) are
# below every layer; start-up (app) is above them all.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "core": (
        *QT_PREFIXES,
        f"{PACKAGE}.viewmodels",
        f"{PACKAGE}.ui",
        f"{PACKAGE}.cli",
        f"{PACKAGE}.app",
    ),
    "viewmodels": (f"{PACKAGE}.ui", f"{PACKAGE}.app"),
}


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layers_import_only_downward(layer: str) -> None:
    wrong = [
        f"{module.relpath}:{imp.line} imports {imp.target}"
        for module in modules().values()
        if module.area == layer
        for imp in module.imports
        if _within(imp.target, FORBIDDEN[layer])
    ]
    assert wrong == [], f"{layer} imports upward:\n" + "\n".join(wrong)


def test_the_layer_check_sees_qt() -> None:
    assert _within("PySide6.QtCore", FORBIDDEN["core"])
    assert _within(f"{PACKAGE}.ui.main_window", FORBIDDEN["viewmodels"])
    assert not _within(f"{PACKAGE}.uix", FORBIDDEN["viewmodels"])


def test_every_core_and_cli_module_imports_on_its_own() -> None:
    """The circle check above leaves out the imports a package's ``__init__`` runs
    implicitly; eager package faces can still make a run-time circle ("partially
    initialized module"). So each module of the core and the CLI is imported first, in a
    fresh process, with nothing of the package imported before it."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    names = sorted(
        ".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        for area in ("core", "cli")
        for p in (root / "gradacc_desktop" / area).rglob("*.py")
        if p.name != "__main__.py"  # runs the command line
    )
    script = (
        "import importlib, sys\n"
        "failed = []\n"
        f"for name in {names!r}:\n"
        "    for loaded in [m for m in sys.modules if m.startswith('gradacc_desktop')]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as exc:\n"
        "        failed.append(f'{name}: {exc!r}')\n"
        "print('\\n'.join(failed))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=root, check=True
    )
    assert done.stdout.strip() == "", done.stdout
    assert len(names) > 100


# --- names: every public name is used, every class name is one class ---------------

#: where a name may be called from besides the package itself (never tests/)
CALLER_DIRS = ("benchmarks", "scripts", "packaging")

#: public names with no caller in the package that stay, and why. Methods named in
#: camelCase are Qt's own virtual methods overridden (``paintEvent``, ``eventFilter``,
#: ``fixup``…): Qt calls them, and they need no entry here.
KEPT_WITHOUT_CALLER: dict[str, str] = {
    # the measurement library's documented Python API (gradacc_desktop.measure.__all__),
    # used by people measuring their own models and by the measure tier
    "measure_activation": "measure API",
    "build_model": "measure API",
    "head_kind": "measure API",
    "random_batch": "measure API",
    # Qt's own virtual methods with a one-word name (camelCase ones are recognised)
    "fixup": "QAbstractSpinBox.fixup, called by Qt",
}


@dataclass(frozen=True)
class Definition:
    name: str
    where: str
    kind: str  # "function", "class", "constant" or "method of <Class>"


def _definitions(path: Path) -> Iterator[Definition]:
    """The public module-level functions, classes and constants of a module, and the
    public methods of its classes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = str(path.relative_to(PACKAGE_DIR.parent))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            yield Definition(node.name, f"{where}:{node.lineno}", kind)
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("_"):
                    method = f"method of {node.name}"
                    yield Definition(item.name, f"{where}:{item.lineno}", method)
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        for target in targets:
            if isinstance(target, ast.Name) and not target.id.startswith("_"):  # not __all__
                yield Definition(target.id, f"{where}:{node.lineno}", "constant")


def _uses(path: Path) -> Iterator[str]:
    """Every name a file reads: names, attributes, and identifier strings (a name looked
    up with ``getattr`` or declared in a table); ``__all__`` lists are not uses."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    listed: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            listed.update(id(n) for n in ast.walk(node))
    for node in ast.walk(tree):
        if id(node) in listed:
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.Constant) and str(node.value).isidentifier():
            yield str(node.value)


def _is_qt_override(definition: Definition) -> bool:
    name = definition.name
    return definition.kind.startswith("method") and name[0].islower() and name != name.lower()


def test_every_public_name_has_a_caller_outside_tests() -> None:
    """A name only tests call is code the app does not run: delete it (and its tests)."""
    root = PACKAGE_DIR.parent
    files = [*PACKAGE_DIR.rglob("*.py")]
    for directory in CALLER_DIRS:
        files += (root / directory).rglob("*.py")
    used: set[str] = set()
    for path in files:
        used.update(_uses(path))
    unused = [
        f"{d.where} {d.kind} {d.name}"
        for path in sorted(PACKAGE_DIR.rglob("*.py"))
        for d in _definitions(path)
        if d.name not in used and d.name not in KEPT_WITHOUT_CALLER and not _is_qt_override(d)
    ]
    assert unused == [], "public names without a caller outside tests:\n" + "\n".join(unused)


def test_the_caller_check_sees_an_unused_name(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "__all__ = ['kept', 'lonely']\n"
        "def kept(): return helper()\n"
        "def helper(): return LOOKED_UP\n"
        "def lonely(): pass\n"
        "LOOKED_UP = getattr(object, 'hooked', 1)\n"
        "def hooked(): pass\n",
        encoding="utf-8",
    )
    uses = set(_uses(source))
    assert {"helper", "LOOKED_UP", "hooked"} <= uses
    assert "lonely" not in uses and "kept" not in uses


def test_no_class_name_is_defined_twice() -> None:
    """One name, one class: ``Inputs`` in two modules makes every import a riddle."""
    where: dict[str, list[str]] = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                place = f"{path.relative_to(PACKAGE_DIR.parent)}:{node.lineno}"
                where.setdefault(node.name, []).append(place)
    twice = [f"{name}: {', '.join(places)}" for name, places in where.items() if len(places) > 1]
    assert twice == [], "class names defined more than once:\n" + "\n".join(twice)
