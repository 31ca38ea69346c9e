"""Build hook: ship task_yamls/ and hf_dataset_cards/ inside the wheel.

They live at the top of the repository (the layout the design card fixes) and are copied to
``ambi_plugin/_resources/`` when a wheel is built. An editable install reads them from the
repository instead (see ``ambi_plugin.paths``).
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent
SHIPPED = ("task_yamls", "hf_dataset_cards")


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


setup(cmdclass={"build_py": BuildPyWithResources})
