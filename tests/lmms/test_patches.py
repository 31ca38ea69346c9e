"""Every patch of an lmms-eval internal (``ambi_plugin.lmms.patches``), against lmms-eval as installed (0.7.3).

For each patched method: (a) every positional and keyword argument reaches lmms-eval's method unchanged, a keyword
our wrapper does not know included (only the argument a patch exists to change differs, for a call of ours); (b) for a
task that is not ours the result is exactly lmms-eval's and none of our side effects happen; (c) installing twice
wraps once; (d) the patched targets are exactly the expected ones, and no module outside ``patches.py`` patches
lmms-eval.

The classes and modules patched are lmms-eval's own. lmms-eval's methods need a model, a built task or an index of
every task to run, so each is replaced (for the test) by a recording stand-in with the real method's signature plus
one keyword lmms-eval does not have: the stand-in checks each call against that signature, records it as received
and returns a fresh object, so "unchanged" is identity (``is``), not equality.
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import ambi_plugin
from ambi_plugin.lmms import ownership, patches, run_guards

EXPECTED = {
    "lmms_eval.tasks.TaskManager.initialize_tasks",
    "lmms_eval.tasks.TaskManager.match_tasks",
    "lmms_eval.tasks.TaskManager._get_config",
    "lmms_eval.caching.response_cache.ResponseCache.execute",
    "lmms_eval.caching.response_cache.ResponseCache.create",
    "lmms_eval.evaluator.simple_evaluate",
    "lmms_eval.api.task.ConfigurableTask.download",
    "lmms_eval.api.task.ConfigurableTask.process_results",
    "lmms_eval.api.task.ConfigurableTask.doc_to_text",
    "lmms_eval.api.task.ConfigurableTask.doc_to_target",
    "lmms_eval.api.task.ConfigurableTask.build_all_requests",
    "lmms_eval.loggers.evaluation_tracker.EvaluationTracker.save_results_aggregated",
    "sys.excepthook",  # not lmms-eval's: Ctrl-C in a child of ambi eval
}
NEW = "ambi_new_keyword"  # a keyword a later lmms-eval might add
TASK = "lmms_eval.api.task.ConfigurableTask"
CACHE = "lmms_eval.caching.response_cache.ResponseCache"


def _owner(target: str):
    """The object holding the patched attribute, and its name (the module part is the longest importable prefix)."""
    parts = target.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:-1]:
            owner = getattr(owner, part)
        return owner, parts[-1]
    raise AssertionError(target)


def _function(owner, name):
    raw = inspect.getattr_static(owner, name)
    return raw.__func__ if isinstance(raw, (classmethod, staticmethod)) else raw


def _lmms_evals_own(target: str):
    """lmms-eval's method under any wrapper of ours."""
    fn = _function(*_owner(target))
    while getattr(fn, patches.MARK, False):
        fn = fn.__wrapped__
    return fn


class StandIn:
    """lmms-eval's method with one more keyword (``NEW``): records each call as received, answers ``result(args)``."""

    def __init__(self, target: str, result=None):
        real = _lmms_evals_own(target)
        sig = inspect.signature(real)
        params = list(sig.parameters.values())
        extra = inspect.Parameter(NEW, inspect.Parameter.KEYWORD_ONLY, default=None)
        at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
        self.signature = sig.replace(parameters=[*params[:at], extra, *params[at:]])
        self.calls: list[tuple[tuple, dict]] = []
        self.results: list = []
        self.result = result or (lambda arguments: object())

        def stand_in(*args, **kwargs):
            self.calls.append((args, kwargs))
            arguments = self.signature.bind(*args, **kwargs).arguments  # a call lmms-eval would reject fails here
            self.results.append(self.result(arguments))
            return self.results[-1]

        stand_in.__signature__ = self.signature
        stand_in.__name__, stand_in.__qualname__, stand_in.__module__ = (
            real.__name__,
            real.__qualname__,
            real.__module__,
        )
        self.fn = stand_in


def _install_over_stand_in(monkeypatch, target: str, result=None) -> StandIn:
    """Our patch of ``target``, installed over a stand-in for lmms-eval's method (restored after the test)."""
    owner, name = _owner(target)
    stand_in = StandIn(target, result)
    is_classmethod = isinstance(inspect.getattr_static(owner, name), classmethod)
    monkeypatch.setattr(owner, name, classmethod(stand_in.fn) if is_classmethod else stand_in.fn)
    assert patches.install(target) is True
    wrapper = _function(owner, name)
    assert wrapper is not stand_in.fn and getattr(wrapper, patches.MARK) and wrapper.__wrapped__ is stand_in.fn
    return stand_in


def _received_as_given(stand_in: StandIn, args: tuple, kwargs: dict, call: int = 0, changed: dict | None = None):
    """Call ``call`` reached the stand-in with the very objects given (``changed``: what a patch of ours changes)."""
    got_args, got_kwargs = stand_in.calls[call]
    bound = stand_in.signature.bind(*got_args, **got_kwargs).arguments
    given = stand_in.signature.bind(*args, **kwargs).arguments
    changed = changed or {}
    assert set(bound) == set(given) | set(changed)
    for name, value in bound.items():
        if name in changed:
            assert value == changed[name], name
        else:
            assert value is given[name], name
    if not changed:  # not even rebound: the same positional / keyword split
        assert len(got_args) == len(args) and all(a is b for a, b in zip(got_args, args, strict=True))
        assert got_kwargs.keys() == kwargs.keys() and all(got_kwargs[k] is kwargs[k] for k in kwargs)


@pytest.fixture
def spies(monkeypatch):
    """Our side effects, each recorded when it happens: the preflight, the CPU check, derived metrics, the section."""
    from ambi_plugin.lmms import category_hooks, preflight, results_meta

    seen: dict[str, list] = {}

    def spy(module, name):
        real = getattr(module, name)

        def record(*args, **kwargs):
            seen.setdefault(name, []).append(args)
            return None if name in ("check_or_exit", "derive_metrics") else real(*args, **kwargs)

        monkeypatch.setattr(module, name, record)

    for module, name in (
        (preflight, "check_or_exit"),
        (run_guards, "cuda_problem"),
        (run_guards, "masked_model_args"),
        (category_hooks, "derive_metrics"),
        (results_meta, "add_section"),
        (results_meta, "note_item_scores"),
    ):
        spy(module, name)
    monkeypatch.setattr(patches, "_preflighted", set())
    monkeypatch.delenv(run_guards.EVAL_ENV, raising=False)
    monkeypatch.delenv(run_guards.RESUME_CHUNK_ENV, raising=False)
    return seen


def _config(task: str, dataset_path: str, dataset_name: str = ""):
    from lmms_eval.api.task import TaskConfig

    return TaskConfig(task=task, dataset_path=dataset_path, dataset_name=dataset_name, test_split="test")


def _theirs():
    return SimpleNamespace(config=_config("theirs", "lmms-lab/MME"), DATASET_PATH="lmms-lab/MME", DATASET_NAME=None)


# ----------------------------------------------------------------------------------------------------- TaskManager


def test_initialize_tasks_keeps_every_argument_and_adds_only_our_folders(monkeypatch, spies):
    """The one patch that acts on every run: lmms-eval finds our tasks through it. The user's include path stays
    first, every other argument is the one given, lmms-eval's answer is returned as is."""
    from lmms_eval.tasks import TaskManager

    from ambi_plugin.lmms.include_path import with_our_path

    stand_in = _install_over_stand_in(monkeypatch, "lmms_eval.tasks.TaskManager.initialize_tasks")
    manager, defaults, new = object(), False, object()
    out = TaskManager.initialize_tasks(manager, "/tmp/theirs", defaults, **{NEW: new})
    assert out is stand_in.results[0]
    _received_as_given(
        stand_in, (manager, "/tmp/theirs", defaults), {NEW: new}, changed={"include_path": with_our_path("/tmp/theirs")}
    )
    assert with_our_path("/tmp/theirs")[0] == "/tmp/theirs"
    with pytest.raises(TypeError):  # a call lmms-eval rejects reaches it as given: lmms-eval's own error
        TaskManager.initialize_tasks(manager, no_such_keyword=1)
    assert stand_in.calls[1] == ((manager,), {"no_such_keyword": 1})


def test_match_tasks_answers_lmms_evals_names_and_preflights_ours_only(monkeypatch, spies):
    from lmms_eval.tasks import TaskManager

    stand_in = _install_over_stand_in(
        monkeypatch, "lmms_eval.tasks.TaskManager.match_tasks", lambda arguments: list(arguments["task_list"])
    )
    manager, new = SimpleNamespace(all_tasks=["mme", "ambi_synth_all"]), object()
    theirs = ["mme"]
    assert TaskManager.match_tasks(manager, theirs, **{NEW: new}) is stand_in.results[0]
    _received_as_given(stand_in, (manager, theirs), {NEW: new})
    assert "check_or_exit" not in spies  # no preflight for a run without a task of ours
    ours = ["ambi_synth_all"]
    assert TaskManager.match_tasks(manager, task_list=ours, **{NEW: new}) is stand_in.results[1]
    _received_as_given(stand_in, (manager,), {"task_list": ours, NEW: new}, call=1)
    assert spies["check_or_exit"] == [(["ambi_synth_all"],)]


def test_get_config_adds_joining_tasks_to_our_groups_only(monkeypatch, spies):
    from lmms_eval.tasks import TaskManager

    from ambi_plugin.paths import tasks_dir
    from ambi_plugin.runtime.taskindex import index

    group = next(i for i in index().values() if i.kind == "group" and Path(i.path).is_relative_to(tasks_dir()))
    stand_in = _install_over_stand_in(
        monkeypatch, "lmms_eval.tasks.TaskManager._get_config", lambda arguments: {"group": "g", "task": ["a"]}
    )
    theirs_index = {
        "mme": {"type": "task", "yaml_path": "/elsewhere/mme.yaml"},
        "their_group": {"type": "group", "yaml_path": "/elsewhere/their_group.yaml"},
        group.name: {"type": "group", "yaml_path": str(group.path)},
    }
    manager = SimpleNamespace(task_index=theirs_index, _ambi_joins={"their_group": ["mine"], group.name: ["mine"]})
    new = object()
    for i, name in enumerate(("mme", "their_group")):
        assert TaskManager._get_config(manager, name, **{NEW: new}) is stand_in.results[i]
        _received_as_given(stand_in, (manager, name), {NEW: new}, call=i)
    assert stand_in.results[1] == {"group": "g", "task": ["a"]}  # not joined: not our group
    out = TaskManager._get_config(manager, name=group.name, **{NEW: new})
    _received_as_given(stand_in, (manager,), {"name": group.name, NEW: new}, call=2)
    assert out == {"group": "g", "task": ["a", "mine"]} and stand_in.results[2] == {"group": "g", "task": ["a"]}


# ------------------------------------------------------------------------------------------------ response cache


def test_execute_goes_in_chunks_only_when_ambi_eval_asks(monkeypatch, spies):
    from lmms_eval.caching.response_cache import ResponseCache

    stand_in = _install_over_stand_in(monkeypatch, f"{CACHE}.execute", lambda arguments: list(arguments["requests"]))
    cache, lm, new = object(), object(), object()
    requests = list(range(5))
    assert ResponseCache.execute(cache, lm, "generate_until", requests, **{NEW: new}) is stand_in.results[0]
    _received_as_given(stand_in, (cache, lm, "generate_until", requests), {NEW: new})
    monkeypatch.setenv(run_guards.RESUME_CHUNK_ENV, "5")  # as many as requested: one call, as given
    assert ResponseCache.execute(cache, lm, "generate_until", requests=requests, **{NEW: new}) is stand_in.results[1]
    _received_as_given(stand_in, (cache, lm, "generate_until"), {"requests": requests, NEW: new}, call=1)
    monkeypatch.setenv(run_guards.RESUME_CHUNK_ENV, "2")
    stand_in.calls.clear()
    assert ResponseCache.execute(cache, lm, "generate_until", requests, **{NEW: new}) == requests
    for i, part in enumerate(([0, 1], [2, 3], [4])):
        _received_as_given(
            stand_in, (cache, lm, "generate_until", requests), {NEW: new}, call=i, changed={"requests": part}
        )


def test_create_masks_secrets_for_runs_of_ours_only(monkeypatch, spies):
    from lmms_eval.caching.response_cache import ResponseCache

    stand_in = _install_over_stand_in(monkeypatch, f"{CACHE}.create")
    secret, new = "model_version=m,api_key=sk-PlantedSecret0123456789", object()
    theirs = {"mme": _theirs()}
    kwargs = {"model": "openai", "model_args": secret, "task_dict": theirs, NEW: new}
    assert ResponseCache.create("/tmp/cache", **kwargs) is stand_in.results[0]
    _received_as_given(stand_in, (ResponseCache, "/tmp/cache"), kwargs)
    assert "masked_model_args" not in spies
    ours = {"ambi_synth_all": {"ambi_synth_geometric_yn": SimpleNamespace(config=_config("x", "ambi://synth"))}}
    kwargs = {**kwargs, "task_dict": ours}
    ResponseCache.create("/tmp/cache", **kwargs)
    masked = {"model_version": "m", "api_key": "***"}
    _received_as_given(stand_in, (ResponseCache, "/tmp/cache"), kwargs, call=1, changed={"model_args": masked})


# ----------------------------------------------------------------------------------------------------- evaluator


def test_simple_evaluate_checks_cuda_for_runs_of_ours_only(monkeypatch, spies):
    import torch
    from lmms_eval import evaluator

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    stand_in = _install_over_stand_in(monkeypatch, "lmms_eval.evaluator.simple_evaluate")
    new, theirs = object(), ["mme"]
    assert evaluator.simple_evaluate("qwen2_5_vl", "pretrained=/m", theirs, **{NEW: new}) is stand_in.results[0]
    _received_as_given(stand_in, ("qwen2_5_vl", "pretrained=/m", theirs), {NEW: new})
    assert "cuda_problem" not in spies  # not even asked
    ours, cpu = ["ambi_synth_all"], "pretrained=/m,device=cpu,device_map=cpu"
    assert evaluator.simple_evaluate("qwen2_5_vl", model_args=cpu, tasks=ours, **{NEW: new}) is stand_in.results[1]
    _received_as_given(stand_in, ("qwen2_5_vl",), {"model_args": cpu, "tasks": ours, NEW: new}, call=1)
    assert len(spies["cuda_problem"]) == 1
    with pytest.raises(SystemExit):
        evaluator.simple_evaluate("qwen2_5_vl", model_args="pretrained=/m", tasks=ours)
    assert len(stand_in.calls) == 2


# ----------------------------------------------------------------------------------------------- ConfigurableTask


def test_download_resolves_ambi_datasets_and_leaves_theirs_alone(monkeypatch, spies, tmp_path):
    from lmms_eval.api.task import ConfigurableTask

    from ambi_plugin.runtime.hooks import process_results
    from ambi_plugin.synth import build_suite

    stand_in = _install_over_stand_in(monkeypatch, f"{TASK}.download")
    monkeypatch.setattr(ownership, "_ours", set(ownership._ours))  # what this test notes is forgotten after it
    noted = set(ownership._ours)
    theirs, kwargs, new = _theirs(), {"data_files": "x.json"}, object()
    assert ConfigurableTask.download(theirs, kwargs, **{NEW: new}) is stand_in.results[0]
    _received_as_given(stand_in, (theirs, kwargs), {NEW: new})
    assert (theirs.DATASET_PATH, theirs.DATASET_NAME) == ("lmms-lab/MME", None)
    assert ownership._ours == noted and "derive_metrics" not in spies

    # ours by its YAML function, on a dataset of its own: lmms-eval's loader as called, the task noted as ours
    mine = SimpleNamespace(config=_config("mine_by_function", "json"), DATASET_PATH="json", DATASET_NAME=None)
    mine.config.process_results = process_results
    ConfigurableTask.download(mine, dataset_kwargs=kwargs, **{NEW: new})
    _received_as_given(stand_in, (mine,), {"dataset_kwargs": kwargs, NEW: new}, call=1)
    assert "mine_by_function" in ownership._ours

    # ambi:// resolved to a local JSONL read by lmms-eval's json loader; every other argument as given
    monkeypatch.setenv("AMBI_SYNTH_DIR", str(build_suite(tmp_path / "suite", seed=4, n=2)))
    ours = SimpleNamespace(
        config=_config("ambi_synth_navon_open", "ambi://synth", "ambi_synth_navon_open"),
        DATASET_PATH="ambi://synth",
        DATASET_NAME="ambi_synth_navon_open",
    )
    ConfigurableTask.download(ours, kwargs, **{NEW: new})
    (jsonl,) = stand_in.calls[2][0][1]["data_files"].values()
    assert Path(jsonl).is_file() and (ours.DATASET_PATH, ours.DATASET_NAME) == ("json", None)
    _received_as_given(
        stand_in, (ours, kwargs), {NEW: new}, call=2, changed={"dataset_kwargs": {"data_files": {"test": jsonl}}}
    )
    assert spies["derive_metrics"] == [(mine,), (ours,)]


def test_process_results_shows_our_tasks_their_model_kwargs_only(monkeypatch, spies):
    from lmms_eval.api.task import ConfigurableTask

    from ambi_plugin.runtime import task_kwargs

    def score(arguments):
        return {"acc": {"id": 1, "seen": dict(task_kwargs.current())}}

    stand_in = _install_over_stand_in(monkeypatch, f"{TASK}.process_results", score)
    kwargs, new = {"box_format": "norm1000"}, object()
    theirs = _theirs()
    theirs.lmms_eval_specific_kwargs = kwargs
    doc, results = {"q": 1}, ["A"]
    out = ConfigurableTask.process_results(theirs, doc, results, **{NEW: new})
    assert out is stand_in.results[0] and out == {"acc": {"id": 1, "seen": {}}}  # nothing added to its items
    _received_as_given(stand_in, (theirs, doc, results), {NEW: new})
    assert "note_item_scores" not in spies
    ours = SimpleNamespace(config=_config("ambi_x", "ambi://synth"), lmms_eval_specific_kwargs=kwargs)
    out = ConfigurableTask.process_results(ours, doc, results=results, full_docs=None, **{NEW: new})
    assert out is stand_in.results[1] and out == {"acc": {"id": 1, "seen": kwargs, "task": "ambi_x"}}
    _received_as_given(stand_in, (ours, doc), {"results": results, "full_docs": None, NEW: new}, call=1)
    assert task_kwargs.current() == {}  # only while it scored


@pytest.mark.parametrize("name", ["doc_to_text", "doc_to_target", "build_all_requests"])
def test_tasks_without_records_are_ours_alone(monkeypatch, spies, name):
    from lmms_eval.api.task import ConfigurableTask

    from ambi_plugin.data import no_records

    stand_in = _install_over_stand_in(monkeypatch, f"{TASK}.{name}")
    method = getattr(ConfigurableTask, name)
    monkeypatch.setitem(no_records.NO_RECORDS, ("ambi://illusionbench", "illusionbench_description"), "none")
    args, kwargs = ((), {"limit": 3, NEW: object()}) if name == "build_all_requests" else (({"q": 1},), {NEW: object()})
    with_records = SimpleNamespace(config=_config("ambi_x", "ambi://illusionbench", "illusionbench_color"))
    for i, task in enumerate((_theirs(), with_records)):  # theirs, and ours with records: lmms-eval's, as called
        assert method(task, *args, **kwargs) is stand_in.results[i]
        _received_as_given(stand_in, (task, *args), kwargs, call=i)
    if name != "build_all_requests":  # ours without records: the stand-in row is never read
        empty = SimpleNamespace(config=_config("ambi_d", "ambi://illusionbench", "illusionbench_description"))
        assert method(empty, *args, **kwargs) == "" and len(stand_in.calls) == 2


# ------------------------------------------------------------------------------------------------ results writer


def test_save_results_adds_our_section_to_runs_of_ours_only(monkeypatch, spies):
    from lmms_eval.loggers.evaluation_tracker import EvaluationTracker

    from ambi_plugin.lmms.results_meta import SECTION

    target = "lmms_eval.loggers.evaluation_tracker.EvaluationTracker.save_results_aggregated"
    stand_in = _install_over_stand_in(monkeypatch, target)
    tracker, samples, new = object(), {}, object()
    theirs = {"results": {"mme": {"acc,none": 1.0}}, "configs": {"mme": {"dataset_path": "lmms-lab/MME"}}}
    before = copy.deepcopy(theirs)
    out = EvaluationTracker.save_results_aggregated(tracker, theirs, samples, "d", **{NEW: new})
    assert out is stand_in.results[0] and theirs == before and "add_section" not in spies
    _received_as_given(stand_in, (tracker, theirs, samples, "d"), {NEW: new})
    ours = {"results": {"ambi_x": {}}, "configs": {"ambi_x": {"dataset_path": "ambi://synth", "task": "ambi_x"}}}
    EvaluationTracker.save_results_aggregated(tracker, results=ours, samples=samples, datetime_str="d", **{NEW: new})
    _received_as_given(
        stand_in, (tracker,), {"results": ours, "samples": samples, "datetime_str": "d", NEW: new}, call=1
    )
    assert SECTION in ours and spies["add_section"] == [(ours,)]


# ------------------------------------------------------------------------------------------------------- Ctrl-C


def test_excepthook_is_quiet_only_for_an_interrupt_in_a_child_of_ambi_eval(monkeypatch, spies):
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    assert patches.install("sys.excepthook") is False and not getattr(sys.excepthook, patches.MARK, False)
    monkeypatch.setenv(run_guards.EVAL_ENV, "1")
    stand_in = _install_over_stand_in(monkeypatch, "sys.excepthook")
    error = ValueError("x")
    assert sys.excepthook(ValueError, error, None) is stand_in.results[0]
    _received_as_given(stand_in, (ValueError, error, None), {})
    assert sys.excepthook(KeyboardInterrupt, KeyboardInterrupt(), None) is None and len(stand_in.calls) == 1


# ---------------------------------------------------------------------------------------------- (c) and (d)


@pytest.mark.parametrize("target", sorted(EXPECTED))
def test_installing_twice_wraps_once(monkeypatch, target):
    monkeypatch.setenv(run_guards.EVAL_ENV, "1")  # sys.excepthook is patched in a child of ambi eval only
    if target == "sys.excepthook":
        monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    owner, name = _owner(target)
    stand_in = _install_over_stand_in(monkeypatch, target)
    wrapper = inspect.getattr_static(owner, name)
    assert patches.install(target) is False
    assert inspect.getattr_static(owner, name) is wrapper and _function(owner, name).__wrapped__ is stand_in.fn


def test_every_patch_installed_twice_over_lmms_eval_is_one_wrapper(monkeypatch):
    monkeypatch.setenv(run_guards.EVAL_ENV, "1")
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    import lmms_eval.evaluator  # noqa: F401 - simple_evaluate exists once lmms-eval has imported it

    assert patches.install_hooks() is True
    first = {t: _function(*_owner(t)) for t in EXPECTED}
    assert patches.install_hooks() is True
    for target, wrapper in first.items():
        assert _function(*_owner(target)) is wrapper and getattr(wrapper, patches.MARK), target
        assert not getattr(wrapper.__wrapped__, patches.MARK, False), f"{target} is wrapped twice"


def test_the_patched_targets_are_exactly_the_expected_ones():
    """A new patch is one more entry of PATCHES (and of EXPECTED); none hides elsewhere (next test)."""
    assert set(patches.TARGETS) == EXPECTED and len(patches.TARGETS) == len(EXPECTED)
    assert sorted(_marked_in_lmms_eval()) == sorted(t for t in EXPECTED if t.startswith("lmms_eval."))


def _marked_in_lmms_eval() -> list[str]:
    """Every function of a loaded lmms-eval module or class that carries our mark, after install_hooks()."""
    import lmms_eval.evaluator  # noqa: F401

    patches.install_hooks()
    found = []
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("lmms_eval") or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if inspect.isfunction(value) and value.__module__ == module_name and getattr(value, patches.MARK, 0):
                found.append(f"{module_name}.{attr}")
            elif inspect.isclass(value) and value.__module__ == module_name:
                for name in list(vars(value)):
                    try:
                        marked = getattr(_function(value, name), patches.MARK, False) is True
                    except Exception:  # noqa: BLE001 - an attribute that cannot be read is none of ours
                        marked = False
                    if marked:
                        found.append(f"{module_name}.{value.__qualname__}.{name}")
    return found


def _patch_sites(tree: ast.AST) -> list[str]:
    """Assignments to (and setattr on) an lmms_eval name, sys.excepthook, or the marker, in one module."""
    ours: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lmms_eval"):
            ours.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            ours.update((a.asname or a.name).split(".")[0] for a in node.names if a.name.startswith("lmms_eval"))

    def root(expr) -> str:
        while isinstance(expr, (ast.Attribute, ast.Subscript)):
            expr = expr.value
        return expr.id if isinstance(expr, ast.Name) else ""

    sites = []
    for node in ast.walk(tree):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AugAssign | ast.AnnAssign)
            else []
        )
        for t in targets:
            if isinstance(t, (ast.Attribute, ast.Subscript)) and (
                root(t) in ours or ast.unparse(t) == "sys.excepthook"
            ):
                sites.append(f"line {node.lineno}: {ast.unparse(t)} = ...")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and node.args:
            if root(node.args[0]) in ours:
                sites.append(f"line {node.lineno}: setattr({ast.unparse(node.args[0])}, ...)")
        if isinstance(node, ast.Constant) and node.value == patches.MARK:
            sites.append(f"line {node.lineno}: the marker {patches.MARK!r}")
    return sites


def test_no_module_but_patches_py_patches_lmms_eval():
    package = Path(ambi_plugin.__file__).parent
    found = {}
    for path in sorted(package.rglob("*.py")):
        sites = _patch_sites(ast.parse(path.read_text(encoding="utf-8")))
        if sites:
            found[str(path.relative_to(package))] = sites
    assert set(found) == {"lmms/patches.py"}, f"lmms-eval patched outside lmms/patches.py: {found}"


def test_the_scan_finds_a_patch_where_there_is_one():
    """The scan above can fail: each way of patching lmms-eval is found."""
    for source in (
        "from lmms_eval.api.task import ConfigurableTask\nConfigurableTask.download = f\n",
        "import lmms_eval.evaluator\nlmms_eval.evaluator.simple_evaluate = f\n",
        "def g():\n    from lmms_eval import evaluator as ev\n    setattr(ev, 'simple_evaluate', f)\n",
        "import sys\nsys.excepthook = f\n",
        "f.__ambi_plugin_wrapped__ = True\nMARK = '__ambi_plugin_wrapped__'\n",
    ):
        assert _patch_sites(ast.parse(source)), source
