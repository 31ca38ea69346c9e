"""Plain VLMEvalKit ``run.py`` with our tasks, through an opt-in ``.pth`` import hook.

VLMEvalKit (ms-vlmeval 0.0.20) offers third parties no way in: ``build_dataset`` walks a list in
``vlmeval.dataset``, ``--config`` accepts only classes of that module, and run.py imports nothing else;
a name it does not know is logged as "not valid", skipped, and the run exits 0 having evaluated nothing.
``ambi vlmeval`` registers our tasks and then runs run.py's main. For users who start run.py themselves,
``ambi vlmeval-hook install`` writes ``ambi_plugin_vlmeval.pth`` into site-packages (``remove`` deletes it).

Python runs the file's one line at start-up. It decides from the program alone (never from the program's
arguments) whether the program is VLMEvalKit's run.py: ``python -m vlmeval.run``, ``python -m vlmeval`` (whose
``__main__`` runs run.py's main), or a script named run.py whose source names ``vlmeval`` (``python run.py``,
``torchrun run.py``'s workers). Any other program imports nothing of ours. For run.py it puts a finder on
``sys.meta_path`` that waits for the ``vlmeval`` package to be imported and nothing else. Once it is, and only
when run.py's ``--data`` or ``--config`` names a task or group of ours, the hook does what ``ambi vlmeval`` does before run.py's main
(:func:`ambi_plugin.vlmeval.launcher.prepare`: registration, groups, per-model entry, prediction format)
and changes run.py's arguments to the expanded ones. Any other process, and any run.py run of VLMEvalKit's
own datasets only, is left exactly as it was: nothing is registered. An error ends the process with one
line (exit 2). What remains ``ambi vlmeval``'s alone: its exit code 1 when a dataset of ours wrote no scores.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys
from pathlib import Path

PTH_NAME = "ambi_plugin_vlmeval.pth"
# The line Python runs at every start in the environment (shipped in the wheel at site-packages' top, read by
# setup.py as a literal; written by `ambi vlmeval-hook install` for other installs). Its first part decides from the
# program alone whether the program is VLMEvalKit's run.py: `-m vlmeval` or `-m vlmeval.run` (while Python looks
# for the module, sys.argv is ['-m', <its arguments>], so the module named is orig_argv[-len(argv)], alone or after
# -m in one argument such as -mvlmeval.run), or a script named run.py whose source names vlmeval (VLMEvalKit's
# run.py wherever it lies; linecache reads it and never raises). The program's own arguments are never looked at,
# and nothing is imported (but linecache, for a run.py) unless the program is run.py: then the hook is.
PTH_LINE = (
    "import sys; "
    "(lambda a, o: a[:1] == ['-m'] and (lambda s: s.split('m', 1)[-1] if s[:1] == '-' else s)"
    "((o[-len(a):] or [''])[0]) in ('vlmeval', 'vlmeval.run') "
    "or __import__('os').path.basename(a[0]) == 'run.py' and 'vlmeval' in ''.join(__import__('linecache').getlines(a[0])))"
    "(getattr(sys, 'argv', None) or [''], getattr(sys, 'orig_argv', None) or []) "
    "and __import__('importlib.util').util.find_spec('ambi_plugin') "
    "and __import__('ambi_plugin.vlmeval.plainrun', fromlist=['install']).install()\n"
)
# The decision alone (an expression over `sys`), for tests.
PTH_TRIGGER = PTH_LINE.removeprefix("import sys; ").split(" and __import__('importlib.util')")[0]
PROG = "ambi-plugin (run.py)"
VLMEVAL_MODULES = ("vlmeval", "vlmeval.run")  # `python -m vlmeval` runs vlmeval/__main__.py: run.main()
_TAKES_VALUE = "cmWX"  # Python's one-letter options that take a value (the rest of the argument or the next one)


def run_py_args(orig_argv: list[str] | None = None) -> list[str] | None:
    """The arguments of VLMEvalKit's run.py when it is this process's program (``python [options] .../run.py``,
    ``python -m vlmeval.run``, ``python -m vlmeval``, options joined as Python allows: ``-mvlmeval``, ``-Bm
    vlmeval``), else None. Only the program decides: an argument of another program is never the program."""
    argv = list(sys.orig_argv if orig_argv is None else orig_argv)
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--":  # the end of Python's options: the script follows
            i += 1
            break
        if arg == "-" or not arg.startswith("-"):
            break
        if arg.startswith("--"):
            i += 2 if arg == "--check-hash-based-pycs" else 1
            continue
        for k, flag in enumerate(arg[1:], start=1):
            if flag in _TAKES_VALUE:
                value = arg[k + 1 :] or (argv[i + 1] if i + 1 < len(argv) else "")
                nxt = i + (1 if arg[k + 1 :] else 2)
                if flag == "c":
                    return None
                if flag == "m":
                    return argv[nxt:] if value in VLMEVAL_MODULES else None
                i = nxt
                break
        else:
            i += 1
    if i < len(argv) and Path(argv[i]).name == "run.py":
        return argv[i + 1 :]
    return None


def names_ours(args: list[str]) -> bool:
    """Whether run.py's ``--data`` (tasks or groups) or ``--config`` (data names or classes) names one of ours."""
    import json

    from ambi_plugin.runtime.taskindex import index
    from ambi_plugin.vlmeval.launcher import _option

    ours = set(index())
    if any(name in ours for name in _option(args, "--data")):
        return True
    for path in _option(args, "--config")[:1]:
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh).get("data") or {}
        except (OSError, ValueError, AttributeError):
            return False  # run.py reports it
        from ambi_plugin.vlmeval.dataset import class_name

        classes = {class_name(t) for t in ours}
        return any(n in ours or (isinstance(e, dict) and e.get("class") in classes) for n, e in data.items())
    return False


def on_vlmeval_imported() -> None:
    args = run_py_args()
    if args is None or not names_ours(args):
        return
    from ambi_plugin.vlmeval import prompt_model as pm
    from ambi_plugin.vlmeval.launcher import LauncherError, prepare
    from ambi_plugin.vlmeval.registry import RegistrationError, VLMEvalKitMissing

    try:
        expanded = prepare(args, prog=PROG)
    except (VLMEvalKitMissing, LauncherError, pm.PromptModelError, RegistrationError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except Exception as exc:  # a run.py run of ours must not go on half prepared
        print(f"{PROG}: error: {type(exc).__name__}: {exc} (run it with `ambi vlmeval` to see more)", file=sys.stderr)
        raise SystemExit(2) from None
    sys.argv[1:] = expanded


class _VLMEvalFinder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when ``vlmeval`` is imported, runs :func:`on_vlmeval_imported` after it loads.

    Each look-up of ``vlmeval`` gets the spec the other finders give, its loader wrapped; the finder leaves
    ``sys.meta_path`` only when the package is executed. (``python -m vlmeval`` looks the package up once to find
    its ``__main__`` and imports it afterwards: a finder gone after the first look-up would miss the import.)"""

    def find_spec(self, name, path=None, target=None):
        if name != "vlmeval":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def exec_then_hook(module):
            sys.meta_path[:] = [f for f in sys.meta_path if f is not self]  # once
            exec_module(module)
            on_vlmeval_imported()

        loader.exec_module = exec_then_hook
        return spec


def install() -> None:
    """Called by the ``.pth`` line at start-up."""
    if "vlmeval" in sys.modules or any(isinstance(f, _VLMEvalFinder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _VLMEvalFinder())


def site_dir() -> Path:
    """This environment's site-packages (where pip puts packages)."""
    import sysconfig

    return Path(sysconfig.get_paths()["purelib"])


def install_pth(where: Path | str | None = None) -> Path:
    folder = Path(where or site_dir())
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder (a site-packages folder, where Python reads .pth files)")
    path = folder / PTH_NAME
    path.write_text(PTH_LINE, encoding="utf-8")
    return path


def remove_pth(where: Path | str | None = None) -> Path | None:
    path = Path(where or site_dir()) / PTH_NAME
    if not path.exists():
        return None
    os.remove(path)
    return path


__all__ = ["PTH_LINE", "PTH_NAME", "install", "install_pth", "names_ours", "remove_pth", "run_py_args", "site_dir"]
