"""Build hook: ship task_yamls/ and hf_dataset_cards/ inside the wheel.

They live at the top of the repository (the layout the design card fixes) and are copied to
``ambi_plugin/_resources/`` when a wheel is built. An editable install reads them from the
repository instead (see ``ambi_plugin.paths``).
"""

import ast
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent
SHIPPED = ("task_yamls", "hf_dataset_cards")


def _pth_line() -> str:
    """``PTH_LINE`` of ambi_plugin/vlmeval/plainrun.py, read without importing the package."""
    tree = ast.parse((ROOT / "ambi_plugin" / "vlmeval" / "plainrun.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PTH_LINE" for t in node.targets):
            return ast.literal_eval(node.value)
    raise RuntimeError("ambi_plugin/vlmeval/plainrun.py defines no PTH_LINE")


class BuildPyWithResources(build_py):
    def run(self):
        super().run()
        if self.editable_mode:
            return
        for name in SHIPPED:
            src = ROOT / name
            dst = Path(self.build_lib) / "ambi_plugin" / "_resources" / name
            if dst.exists():
                shutil.rmtree(dst)
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        # the plain-run.py hook of VLMEvalKit (ambi_plugin/vlmeval/plainrun.py) at site-packages' top, where Python
        # reads .pth files: its one line looks at the program's arguments and imports nothing for any other program
        (Path(self.build_lib) / "ambi_plugin_vlmeval.pth").write_text(_pth_line(), encoding="utf-8")


setup(cmdclass={"build_py": BuildPyWithResources})
