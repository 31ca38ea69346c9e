"""The harness-neutral task runtime: the task index and its groups, prompts, item scoring and aggregation.

Every task YAML's ``!function`` points here (or into a benchmark's folder), and both harness adapters
(:mod:`ambi_plugin.lmms`, :mod:`ambi_plugin.vlmeval`) call it. It imports only ground, core, judge, synth and
itself.
"""
