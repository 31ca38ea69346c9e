"""``python -m ambi_plugin.cli``: the ``ambi`` command."""

from ambi_plugin.cli.parser import main

if __name__ == "__main__":
    raise SystemExit(main())
