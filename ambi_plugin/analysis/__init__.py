"""Perceptual-switch heads (AmbiBench 4.3-4.4): capture, scores, heatmaps, interventions, attention overlays.

Modules, each small and named for what it holds:

* ``heads`` - the language model's o_proj modules (found by name) and the head layout (query heads, GQA aware);
* ``hooks`` - :class:`HookSet`, the one context manager that owns every hook and removes them in ``finally``;
* ``capture`` - :class:`HeadRecorder`, per-head activations at a token position (default: last prompt token);
* ``prompts`` - the two capture prompts (ours: the paper does not print them) and the switch decision (judge);
* ``backend`` - lmms-eval model backends built by its registry, driven one request at a time; DP sharding/gather;
* ``collect`` - the resumable capture run; ``scores`` - cos, s = 1 - cos, switch heads, sparsity, Pearson;
* ``interventions`` - epsilon masking, ITI shifts and their fit; ``tables`` - Tables 3/4 via lmms-eval runs;
* ``patching`` - the causal check: activation patching of heads from the second run into the first, AtP, AtP*;
  ``patch_model`` (runs, patched runs, gradients), ``patch_stats`` (bootstrap, layer-matched permutation test,
  Spearman), ``patch_summary`` (the table's data); ``positions`` - token positions that mean the same in both prompts;
* ``heldout`` - Table 4's copy of the records without the items the ITI directions were fitted on (by id);
* ``plots`` / ``attention`` - heatmap PNG (Figure 4/16) and the A.8 attention overlay; ``cli`` - ``ambi switch-heads``.

The lmms-eval model ``ambi_intervene`` (``ambi_plugin.lmms.intervene``) scores any task under an intervention.
torch, transformers and matplotlib are imported lazily (``pip install 'ambi-plugin[analysis]'``).
"""

from ambi_plugin.analysis.capture import HeadRecorder
from ambi_plugin.analysis.heads import HeadLayout, find_head_modules, head_layout
from ambi_plugin.analysis.hooks import HookSet, remaining_hooks
from ambi_plugin.analysis.interventions import HeadsSpec, add_intervention, fit_iti, load_heads_file, random_heads
from ambi_plugin.analysis.scores import SwitchScores, pearson, switch_heads, switching_scores

__all__ = [
    "HeadLayout",
    "HeadRecorder",
    "HeadsSpec",
    "HookSet",
    "SwitchScores",
    "add_intervention",
    "find_head_modules",
    "fit_iti",
    "head_layout",
    "load_heads_file",
    "pearson",
    "random_heads",
    "remaining_hooks",
    "switch_heads",
    "switching_scores",
]
