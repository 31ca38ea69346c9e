"""The import contract: every import inside ``ambi_plugin`` goes down the layers of docs/architecture.md.

Read from the source with ``ast`` (lazy imports inside functions included, ``TYPE_CHECKING`` ones too), so an
import added anywhere is checked without running it. The layers, lowest first:

    ground     paths, config, inputfiles, redact, installcheck, models/ (and the package's __init__)
    core       pure: schema, parsing, matching, metrics, scoring (a judge is handed in)
    judge      judge backends, voting, cache
    synth      the procedural generators and the default suite
    runtime    the harness-neutral task runtime (task index, prompts, item scoring, aggregation)
    benchmarks one folder per benchmark
    data       release -> rows (sources), replay files, status, hub/
    analysis   perceptual-switch heads (a model driver is handed in by the adapter)
    reports    results, paper layouts, statistics, rendering, re-scoring
    lmms | vlmeval   the harness adapters: independent of each other
    cli        the ``ambi`` command

A module may import its own layer or any layer below; ``lmms`` and ``vlmeval`` never import each other, and the
harnesses themselves (``lmms_eval``, ``vlmeval``) are imported only inside their adapter. No module is exempt: the
deprecated aliases of 0.1's import paths are gone (CHANGELOG.md, 0.2.0), and none may come back. Inside a folder no
two modules import each other, directly or round a circle; the one thing allowed is a package's face (its
``__init__``) importing its own modules. The generic layers name no benchmark: what one benchmark knows is on its
registry entry (``benchmarks/<b>/entry.py``).
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "ambi_plugin"

LAYERS: list[tuple[str, ...]] = [
    ("__init__", "paths", "config", "inputfiles", "redact", "installcheck", "models"),
    ("core",),
    ("judge",),
    ("synth",),
    ("runtime",),
    ("benchmarks",),
    ("data",),
    ("analysis",),
    ("reports",),
    ("lmms", "vlmeval"),
    ("cli",),
]
INDEPENDENT = [("lmms", "vlmeval")]
HARNESSES = {"lmms_eval": "lmms", "vlmeval": "vlmeval"}
MAX_LINES = 450


def _module_name(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


@lru_cache(maxsize=1)
def _modules() -> dict[str, tuple[Path, bool, ast.Module]]:
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        name, is_pkg = _module_name(path)
        out[name] = (path, is_pkg, ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return out


def _resolve(dotted: str) -> str | None:
    mods = _modules()
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        candidate = ".".join(parts[:i])
        if candidate in mods:
            return candidate
    return None


@lru_cache(maxsize=1)
def _imports() -> dict[str, list[tuple[str, int, str]]]:
    """module -> [(imported module of ours or a harness top name, line, raw text)]."""
    out: dict[str, list[tuple[str, int, str]]] = {}
    for name, (_path, is_pkg, tree) in _modules().items():
        package = name if is_pkg else name.rpartition(".")[0]
        found: list[tuple[str, int, str]] = []
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                targets = [f"{module}.{a.name}" if a.name != "*" else module for a in node.names]
            else:
                continue
            for target in targets:
                top = target.split(".")[0]
                if top in HARNESSES:
                    found.append((top, node.lineno, target))
                elif top == "ambi_plugin":
                    resolved = _resolve(target)
                    if resolved:
                        found.append((resolved, node.lineno, target))
        out[name] = found
    return out


def _unit(module: str) -> str:
    """The top-level folder or module of ours a module belongs to (``ambi_plugin.core.parsing`` -> ``core``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _layer(unit: str) -> int:
    for i, names in enumerate(LAYERS):
        if unit in names:
            return i
    raise KeyError(unit)


def test_every_module_belongs_to_a_layer():
    strays = sorted({_unit(m) for m in _modules()} - {u for names in LAYERS for u in names})
    assert not strays, f"modules outside every layer of docs/architecture.md: {strays}"


def test_imports_go_down_the_layers():
    bad = []
    for module, found in _imports().items():
        here = _unit(module)
        for target, line, raw in found:
            if target in HARNESSES:
                continue
            there = _unit(target)
            if here == there:
                continue
            if _layer(there) > _layer(here):
                bad.append(f"{module}:{line} imports {raw} (layer {there} is above {here})")
            elif any({here, there} == set(pair) for pair in INDEPENDENT):
                bad.append(f"{module}:{line} imports {raw} ({here} and {there} are independent)")
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_harnesses_are_imported_only_in_their_adapter():
    bad = [
        f"{module}:{line} imports {raw}"
        for module, found in _imports().items()
        for target, line, raw in found
        if target in HARNESSES and _unit(module) != HARNESSES[target]
    ]
    assert not bad, "harness imports outside the adapters:\n" + "\n".join(bad)


def test_no_cycle_between_folders():
    graph: dict[str, set[str]] = {}
    for module, found in _imports().items():
        for target, _line, _raw in found:
            if target not in HARNESSES and _unit(target) != _unit(module):
                graph.setdefault(_unit(module), set()).add(_unit(target))
    seen: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> list[str] | None:
        seen[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if seen.get(nxt) == 1:
                return [*stack, node, nxt]
            if nxt not in seen and (cycle := visit(nxt, [*stack, node])):
                return cycle
        seen[node] = 2
        return None

    for start in sorted(graph):
        if start not in seen:
            cycle = visit(start, [])
            assert cycle is None, "a cycle between folders: " + " -> ".join(cycle)


def test_no_module_over_the_size_limit():
    long = sorted(
        (len(path.read_text(encoding="utf-8").splitlines()), str(path.relative_to(ROOT)))
        for path, _k, _t in _modules().values()
    )
    over = [f"{path}: {n} lines" for n, path in long if n > MAX_LINES]
    assert not over, f"modules over {MAX_LINES} lines:\n" + "\n".join(over)


FUNCTION = re.compile(r"!function\s+([A-Za-z_][\w.]*)")


def test_every_yaml_function_points_into_runtime_or_a_benchmark():
    bad = []
    for path in sorted((ROOT / "task_yamls").rglob("*.yaml")):
        for target in FUNCTION.findall(path.read_text(encoding="utf-8")):
            if not target.startswith(("ambi_plugin.runtime.", "ambi_plugin.benchmarks.")):
                bad.append(f"{path.relative_to(ROOT)}: {target}")
    assert not bad, "YAML !function targets outside runtime/ and benchmarks/:\n" + "\n".join(sorted(set(bad))[:40])


def test_no_deprecated_alias_remains():
    """0.2.0 removed every alias of an old import path (CHANGELOG.md); a module that only forwards to another is not
    to come back."""
    forwarding = [m for m, (_p, _k, tree) in _modules().items() if "__deprecated_alias__" in ast.unparse(tree)]
    assert not forwarding, f"deprecated aliases: {forwarding}"


def test_architecture_doc_names_only_what_exists():
    """docs/architecture.md matches the code: every module it names exists, and every layer folder is in its
    picture."""
    import importlib.util

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = []
    for dotted in sorted(set(re.findall(r"`(ambi_plugin(?:\.\w+)+)", text))):
        parts = dotted.split(".")
        found = any(
            (ROOT / Path(*parts[:i])).with_suffix(".py").is_file()
            or (ROOT / Path(*parts[:i]) / "__init__.py").is_file()
            for i in range(len(parts), 1, -1)
        )
        if not found:
            missing.append(dotted)
    for rel in sorted(
        set(
            re.findall(
                r"(?<![\w/])((?:core|runtime|data|reports|lmms|vlmeval|cli|benchmarks|judge|analysis|synth)/[\w/]+\.py)",
                text,
            )
        )
    ):
        if not (PKG / rel).is_file():
            missing.append(rel)
    assert not missing, f"docs/architecture.md names what does not exist: {missing}"
    for names in LAYERS[1:]:
        for name in names:
            assert f"{name}/" in text, f"layer {name} is not in docs/architecture.md's picture"
    assert importlib.util.find_spec("ambi_plugin") is not None


def _is_face_edge(module: str, target: str) -> bool:
    """A package's ``__init__`` importing one of its own modules (the one in-folder circle allowed)."""
    path, is_pkg, _tree = _modules()[module]
    return is_pkg and target.startswith(module + ".")


def test_no_cycle_between_modules_of_a_folder():
    graph: dict[str, set[str]] = {}
    for module, found in _imports().items():
        for target, _line, _raw in found:
            if target in HARNESSES or target == module or _unit(target) != _unit(module):
                continue
            if not _is_face_edge(module, target):
                graph.setdefault(module, set()).add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def strongconnect(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    assert not circles, "modules of one folder that import each other (round a circle):\n" + "\n".join(
        " <-> ".join(c) for c in circles
    )


# The generic layers ask the benchmark registry (ambi_plugin/benchmarks/registry.py) and never name a benchmark.
GENERIC_LAYERS = ("data", "reports", "lmms", "vlmeval", "cli")
BENCHMARK_NAME = re.compile(r"ambibench|illusionbench|illusionvqa|via[-_ ]?bench|rcid", re.IGNORECASE)


def _docstrings(tree: ast.Module) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _code_texts(tree: ast.Module):
    """(line, text) of every identifier and string literal of a module's code (docstrings and comments, which
    explain with examples, are not code)."""
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            texts = [node.value]
        elif isinstance(node, ast.Name):
            texts = [node.id]
        elif isinstance(node, ast.Attribute):
            texts = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            texts = [node.name]
        elif isinstance(node, ast.alias):
            texts = [node.name, node.asname or ""]
        elif isinstance(node, ast.ImportFrom):
            texts = [node.module or ""]
        elif isinstance(node, ast.arg):
            texts = [node.arg]
        elif isinstance(node, ast.keyword):
            texts = [node.arg or ""]
        else:
            continue
        for text in texts:
            yield getattr(node, "lineno", 0), text


def test_generic_layers_name_no_benchmark():
    """data, reports, lmms, vlmeval and cli ask the registry: no identifier or string of their code names one of the
    five benchmarks. A benchmark's own command, importer options, report layout or analysis defaults are on its
    registry entry (``benchmarks/<b>/entry.py``), not in a generic module."""
    found: dict[str, list[str]] = {}
    for module, (_path, _pkg, tree) in _modules().items():
        if _unit(module) not in GENERIC_LAYERS:
            continue
        hits = [f"{line}: {text[:80]!r}" for line, text in _code_texts(tree) if BENCHMARK_NAME.search(text)]
        if hits:
            found[module] = hits
    assert not found, "generic modules that name a benchmark (ask the registry instead):\n" + "\n".join(
        f"{m}: {', '.join(h[:4])}" for m, h in sorted(found.items())
    )


# The one task route: the VLMEvalKit adapter takes every task from the runtime (runtime/task.py) and reads no YAML.
YAML_DIALECT = frozenset(
    {
        "metric_list", "aggregation", "higher_is_better", "process_results", "lmms_eval_specific_kwargs",
        "doc_to_text", "doc_to_visual", "doc_to_target", "doc_to_messages", "dataset_path", "dataset_name",
        "generation_kwargs", "include", "metadata",
    }
)  # fmt: skip
YAML_READERS = frozenset({"load_yaml", "load_yaml_with_origins"})  # runtime.taskindex's raw readers


def _yaml_reading(tree: ast.Module) -> list[str]:
    """Where a module reads the task YAML dialect itself: a YAML parser or the index's raw YAML readers imported, a
    ``TaskInfo.config`` read, a ``!function`` tag or a key of the dialect in its code."""
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            hits += [f"{node.lineno}: import {a.name}" for a in node.names if a.name.split(".")[0] == "yaml"]
        elif isinstance(node, ast.ImportFrom):
            if (node.module or "").split(".")[0] == "yaml":
                hits.append(f"{node.lineno}: from {node.module} import ...")
            hits += [f"{node.lineno}: imports {a.name}" for a in node.names if a.name in YAML_READERS]
        elif isinstance(node, ast.Attribute) and node.attr == "config":
            if not (isinstance(node.value, ast.Name) and node.value.id == "vlmeval"):  # VLMEvalKit's own vlmeval.config
                hits.append(f"{node.lineno}: reads .config")
        elif isinstance(node, ast.Attribute) and node.attr in YAML_READERS:
            hits.append(f"{node.lineno}: calls {node.attr}")
    skip = _docstrings(tree)
    for node in ast.walk(tree):  # string literals of the code (docstrings explain, they do not read)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            if node.value in YAML_DIALECT or node.value.lstrip().startswith("!function"):
                hits.append(f"{node.lineno}: {node.value!r}")
    return hits


def test_vlmeval_reads_no_task_yaml():
    """The VLMEvalKit adapter gets each task, its prompt hooks and its evaluation from the runtime
    (``ambi_plugin.runtime.task.Task``): none of its modules imports a YAML parser, reads a task's raw config or names
    a key of the YAML dialect (``metric_list``, ``!function``, ``lmms_eval_specific_kwargs`` ...)."""
    found = {
        module: hits
        for module, (_path, _pkg, tree) in _modules().items()
        if _unit(module) == "vlmeval" and (hits := _yaml_reading(tree))
    }
    assert not found, "vlmeval modules that read the task YAML dialect (use runtime.task.Task):\n" + "\n".join(
        f"{m}: {', '.join(h[:6])}" for m, h in sorted(found.items())
    )


def test_the_yaml_reading_check_finds_what_it_looks_for():
    """The check above is not vacuous: it finds each kind of YAML reading in a module that does it."""
    src = (
        "import yaml\nfrom ambi_plugin.runtime.taskindex import load_yaml\n"
        "def spec(info):\n    cfg = info.config\n    return cfg.get('metric_list'), '!function x.y'\n"
    )
    hits = _yaml_reading(ast.parse(src))
    assert [h.split(":")[0] for h in hits] == ["1", "2", "4", "5", "5"], hits
    assert not _yaml_reading(ast.parse("import vlmeval.config\nvlmeval.config.supported_VLM['x'] = 1\n"))
