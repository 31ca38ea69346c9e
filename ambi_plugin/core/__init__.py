"""Harness-neutral core of ambi-plugin: record schema, answer parsing, term matching and metrics.

Nothing here imports a harness. The pieces every benchmark shares:

* ``schema``: the JSONL record (one evaluation item) and its validation;
* ``parsing``: total parsers from a model's reply to a typed value or an explicit "unparseable"
  (:class:`Parsed`), one module per answer kind, option labels (A / a / i) and ``response_text`` (any reply
  -> its text);
* ``matching``: the :class:`Matcher` interface for open answers and the :class:`OfflineMatcher`
  default (AmbiBench A.5's rule, ground truth as Set 1, with a shipped synonym/hypernym lexicon);
* ``metrics``: pure per-item scores and aggregations (accuracy, FP ratio, AP@0.5, hit rate, RCID
  outcomes, mean and std);
* ``scoring`` / ``judging``: one item score per task type; a judge-decided item uses the judge handed in, else
  the provider ``ambi_plugin.judge`` installs (core never imports the judge package).
"""

from ambi_plugin.core.matching import (
    LEXICON_PATH,
    Matcher,
    OfflineMatcher,
    default_matcher,
    lemmatize,
    match_terms,
    matches,
)
from ambi_plugin.core.metrics import (
    RECALL_THRESHOLDS,
    accuracy,
    average_precision,
    confusion,
    exact_set_match,
    fp_ratio,
    image_hit,
    iou,
    mean_and_std,
    mean_std,
    perception_outcome,
    rate,
)
from ambi_plugin.core.parsing import (
    Parsed,
    extract_answer_marker,
    format_options,
    get_parser,
    option_label,
    parse_answer,
    parse_bool,
    parse_boxes,
    parse_choice,
    parse_free,
    parse_layers,
    parse_letter_set,
    parse_list,
    parse_object,
)
from ambi_plugin.core.schema import (
    ANSWER_FORMATS,
    OPTION_STYLES,
    TASK_TYPES,
    RecordError,
    read_records,
    validate_record,
    write_records,
)

__all__ = [
    "ANSWER_FORMATS",
    "LEXICON_PATH",
    "OPTION_STYLES",
    "RECALL_THRESHOLDS",
    "TASK_TYPES",
    "Matcher",
    "OfflineMatcher",
    "Parsed",
    "RecordError",
    "accuracy",
    "average_precision",
    "confusion",
    "default_matcher",
    "exact_set_match",
    "extract_answer_marker",
    "format_options",
    "fp_ratio",
    "get_parser",
    "image_hit",
    "iou",
    "lemmatize",
    "match_terms",
    "matches",
    "mean_and_std",
    "mean_std",
    "option_label",
    "parse_answer",
    "parse_bool",
    "parse_boxes",
    "parse_choice",
    "parse_free",
    "parse_layers",
    "parse_letter_set",
    "parse_list",
    "parse_object",
    "perception_outcome",
    "rate",
    "read_records",
    "validate_record",
    "write_records",
]
