"""The harness-neutral task runtime: the task index and its groups, prompts, item scoring and aggregation.

Every task YAML's ``!function`` points here (or into a benchmark's folder), and both harness adapters
(:mod:`ambi_plugin.lmms`, :mod:`ambi_plugin.vlmeval`) call it. It imports only ground, core, judge, synth and
itself.
"""

# Core scores judge-decided items with a judge handed in, else with the judge layer's default provider, which
# ambi_plugin.judge installs when imported (core/judging.py): the runtime's hooks score through it, in both harnesses.
import ambi_plugin.judge  # noqa: E402, F401
