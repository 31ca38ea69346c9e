"""``python -m ambi_plugin.vlmeval [run.py arguments]`` (also under ``torchrun -m``)."""

from ambi_plugin.vlmeval.launcher import main

if __name__ == "__main__":
    raise SystemExit(main())
