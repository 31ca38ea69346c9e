"""Reports: every benchmark in its paper's layout, the papers' reference rows, statistics and plots.

``ambi report RESULTS... --format md,latex,html`` is :func:`build_report` + :func:`write_report`.
"""

from ambi_plugin.reports.build import Report, build_report, write_report
from ambi_plugin.reports.runs import ReportError, Run, load_runs
from ambi_plugin.reports.stats import bonferroni, bootstrap_ci, mean_std, paired_t_test, welch_t_test
from ambi_plugin.reports.tables import Table, build_tables

__all__ = [
    "Report",
    "ReportError",
    "Run",
    "Table",
    "bonferroni",
    "bootstrap_ci",
    "build_report",
    "build_tables",
    "load_runs",
    "mean_std",
    "paired_t_test",
    "welch_t_test",
    "write_report",
]
