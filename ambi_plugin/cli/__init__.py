"""The ``ambi`` command (console script ``ambi = ambi_plugin.cli:main``): :mod:`.parser` builds it from one module
per command group (:mod:`.tasks`, :mod:`.run`, :mod:`.results`, :mod:`.data`, :mod:`.datasets`, :mod:`.judge`,
:mod:`.switch_heads_args` (its steps: :mod:`.switch_heads`), :mod:`.vlmeval`). Run ``ambi --help`` for the list, ``ambi <command> --help`` for each.
"""

from ambi_plugin.cli.parser import COMMANDS, PASSTHROUGH, build_parser, main

__all__ = ["COMMANDS", "PASSTHROUGH", "build_parser", "main"]
