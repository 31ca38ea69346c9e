"""The user's ambi configuration: one YAML file, overridden by environment variables.

``$AMBI_CONFIG`` names the file; default ``~/.config/ambi/config.yaml``. Known sections::

    data:                 # local copies of the benchmarks (what ``ambi://<name>`` resolves to)
      ambibench: /data/ambibench
    judge:                # the judge every judge-based metric uses (see docs/judges.md)
      backend: offline

For a dataset, ``$AMBI_<NAME>_DIR`` (e.g. ``AMBI_AMBIBENCH_DIR``) wins over the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from ambi_plugin.inputfiles import named_input


class ConfigError(ValueError):
    """The config file cannot be read."""


def config_path() -> Path:
    env = os.environ.get("AMBI_CONFIG")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "ambi" / "config.yaml"


def load_config() -> dict[str, Any]:
    """The config file's content ({} when there is none). A malformed file names itself."""
    path = config_path()
    if not path.is_file():
        return {}
    try:
        with named_input(path, "the ambi config"):
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read the ambi config ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the ambi config must be a mapping, got {type(data).__name__}")
    return data


def section(name: str) -> dict[str, Any]:
    val = load_config().get(name) or {}
    if not isinstance(val, dict):
        raise ConfigError(f"{config_path()}: section '{name}' must be a mapping")
    return val


def data_dir(benchmark: str) -> Path | None:
    """The configured local copy of a benchmark: ``$AMBI_<NAME>_DIR``, else ``data.<name>`` in the file."""
    env = os.environ.get(f"AMBI_{benchmark.upper()}_DIR")
    if env:
        return Path(env).expanduser()
    val = section("data").get(benchmark)
    return Path(str(val)).expanduser() if val else None


def data_dir_origin(benchmark: str) -> str | None:
    """Where the local copy of :func:`data_dir` is configured: ``AMBI_<NAME>_DIR`` or ``data.<name> in <file>``."""
    if os.environ.get(f"AMBI_{benchmark.upper()}_DIR"):
        return f"AMBI_{benchmark.upper()}_DIR"
    return f"data.{benchmark} in {config_path()}" if section("data").get(benchmark) else None


def strict_mode() -> bool:
    """``$AMBI_STRICT`` (1/true/yes), else ``strict`` in the ambi config; default off: a bad row or unreadable item
    stops the run instead of being skipped and counted."""
    env = os.environ.get("AMBI_STRICT")
    if env is not None and env.strip() != "":
        return env.strip().lower() in ("1", "true", "yes", "on")
    return bool(load_config().get("strict", False))
