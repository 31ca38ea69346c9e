"""The harness-neutral task runtime: the task index and its groups, prompts, item scoring and aggregation.

Every task YAML's ``!function`` points here (or into a benchmark's folder), and both harness adapters
(:mod:`ambi_plugin.lmms`, :mod:`ambi_plugin.vlmeval`) call it. It imports only ground, core, judge, synth and
itself.

Importing it builds and installs no judge: item scoring (``hooks.score_record``) hands core the judge of the run in
progress (:mod:`ambi_plugin.runtime.run_state`), built when a judge-decided item first needs one.
"""
