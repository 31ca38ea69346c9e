"""lmms-eval adapters: YAML hooks, aggregations, dataset resolution, task discovery, plugin models.

Only this subpackage imports ``lmms_eval``, and only lazily.
"""

# Core scores judge-decided items with a judge handed in, else with the judge layer's default provider, which
# ambi_plugin.judge installs when imported (core/judging.py): the YAML hooks score through it.
import ambi_plugin.judge  # noqa: E402, F401
