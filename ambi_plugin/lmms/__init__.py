"""lmms-eval adapters: task discovery, preflight, `ambi eval`, plugin models, the judge backend and analysis driver
on lmms-eval models. The YAML hooks themselves live in :mod:`ambi_plugin.runtime`.

Only this subpackage imports ``lmms_eval``, and only lazily.
"""
