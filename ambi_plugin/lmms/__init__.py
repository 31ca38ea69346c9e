"""lmms-eval adapters: YAML hooks, aggregations, dataset resolution, task discovery, plugin models.

Only this subpackage imports ``lmms_eval``, and only lazily.
"""
