"""One module per real benchmark: its description (categories, task types, prompts), importers
from the released layouts into the canonical record schema, and its Hub loader
(``materialize_from_hub() -> Path``) used by ``dataset_path: ambi://<benchmark>``. Importing it builds and installs
no judge: a benchmark's scoring takes the judge of the run in progress (``ambi_plugin.runtime.run_state``)."""
