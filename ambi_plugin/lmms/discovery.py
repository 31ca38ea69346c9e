"""Make lmms-eval find our tasks, datasets and models without flags.

lmms-eval 0.7 has no entry point for tasks; its only entry-point group is ``lmms_eval.models``, loaded whenever
``lmms_eval.models`` is imported, which every evaluation run does before it builds its ``TaskManager``. Our entry
point (:func:`lmms_eval_entry_point`) therefore

1. returns the manifests of our plugin models (``ambi_replay``, ``ambi_intervene``), and
2. as a side effect installs our patches of lmms-eval internals (:func:`ambi_plugin.lmms.patches.install_hooks`:
   every one of them, what each does and which calls are ours, is listed in :data:`ambi_plugin.lmms.patches.PATCHES`;
   idempotent, never raising, a no-op for tasks that are not ours; ``AMBI_PLUGIN_HOOKS=0`` installs none).
"""

from __future__ import annotations

import logging

from ambi_plugin.lmms.patches import install_hooks

log = logging.getLogger("ambi_plugin")

REPLAY_MODEL = "ambi_replay"
INTERVENE_MODEL = "ambi_intervene"


def model_manifests() -> list:
    from lmms_eval.models.registry_v2 import ModelManifest

    return [
        ModelManifest(model_id=REPLAY_MODEL, simple_class_path="ambi_plugin.lmms.replay.AmbiReplay"),
        ModelManifest(model_id=INTERVENE_MODEL, simple_class_path="ambi_plugin.lmms.intervene.AmbiIntervene"),
    ]


def lmms_eval_entry_point() -> list:
    """Entry point of group ``lmms_eval.models``: our model manifests; installs the patches."""
    install_hooks()
    try:
        return model_manifests()
    except Exception as exc:  # noqa: BLE001 - an entry point must never raise
        log.warning("ambi-plugin: could not register models (%s: %s)", type(exc).__name__, exc)
        return []


__all__ = ["INTERVENE_MODEL", "REPLAY_MODEL", "lmms_eval_entry_point", "model_manifests"]
