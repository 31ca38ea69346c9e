"""The top-level keys lmms-eval accepts in a task YAML and in a group YAML, read from its own config classes: what
``ambi validate-tasks`` checks a YAML against, and what discovery checks our folder against each time lmms-eval indexes
it (lmms-eval alone names an unknown key but not its file)."""

from __future__ import annotations


def lmms_eval_keys() -> tuple[frozenset[str], frozenset[str]]:
    """The top-level keys lmms-eval accepts in a task YAML and in a group YAML: its ``TaskConfig`` and
    ``GroupConfig`` fields, plus ``include`` (imports lmms-eval)."""
    import dataclasses

    from lmms_eval.api.group import GroupConfig
    from lmms_eval.api.task import TaskConfig

    def names(cls: type) -> frozenset[str]:
        return frozenset(f.name for f in dataclasses.fields(cls)) | {"include"}

    return names(TaskConfig), names(GroupConfig)


__all__ = ["lmms_eval_keys"]
