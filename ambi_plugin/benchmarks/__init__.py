"""One module per real benchmark: its description (categories, task types, prompts), importers
from the released layouts into the canonical record schema, and its Hub loader
(``materialize_from_hub() -> Path``) used by ``dataset_path: ambi://<benchmark>``."""

# Core scores judge-decided items with a judge handed in, else with the judge layer's default provider, which
# ambi_plugin.judge installs when imported (core/judging.py); every benchmark scores through it.
import ambi_plugin.judge  # noqa: E402, F401
