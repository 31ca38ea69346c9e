"""Print the parsing comparison tables of docs/illusionbench.md and docs/illusionvqa.md.

    python bench/compare_builtin_parsing.py

Runs our parsers and lmms-eval's installed built-in ``illusionbench`` / ``illusionvqa`` code on the same
realistic model outputs (``tests/support/builtin_compare.py``). The docs hold this script's output; a test
checks they are up to date.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support: the comparison's cases

from support.builtin_compare import ILLUSIONBENCH_CASES, ILLUSIONVQA_CASES, markdown


def main() -> None:
    print("## IllusionBench (true-or-false and multiple-choice)\n")
    print(markdown(ILLUSIONBENCH_CASES))
    print("\n## IllusionVQA\n")
    print(markdown(ILLUSIONVQA_CASES))


if __name__ == "__main__":
    main()
