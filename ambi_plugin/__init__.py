"""ambi-plugin: perception benchmarks for vision-language models, for lmms-eval and VLMEvalKit.

AmbiBench, IllusionBench, IllusionVQA, VIA-Bench and RCID, plus an embedded procedurally
generated suite (``ambi_synth``) with exact ground truth that runs offline.
"""

from ambi_plugin.paths import cache_dir, cards_dir, tasks_dir

__version__ = "0.2.0"

__all__ = ["__version__", "cache_dir", "cards_dir", "tasks_dir"]
