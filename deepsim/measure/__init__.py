"""deepsim's metric language: one spelling of a number of the balance report for every
command (``check``, ``compare``, ``sweep``, ``tune``) and one way to estimate it.

- :mod:`~deepsim.measure.names`: the metric names, their units and kinds (shares in
  percent, differences of shares in percentage points, everywhere);
- :mod:`~deepsim.measure.spec`: the grammar (``win_share[company=Wisp Wardancer]``,
  ``win_share[company]``, ``rounds[players=4]``, ``company_spread``), old spellings with
  deprecation lines, amounts in a metric's unit, and the expansion of a spelling into single
  numbers (:class:`~deepsim.measure.spec.Instance`) for a scenario;
- :mod:`~deepsim.measure.values`: observations per game or deal, estimates with the
  report's intervals, weighted values and paired differences (common random numbers).
"""

from deepsim.measure.names import ALIASES, METRICS, Metric, known_metrics_text
from deepsim.measure.spec import (
    Instance,
    Selection,
    Universe,
    expand,
    parse_amount,
    parse_metric_spec,
    player_counts,
    split_terms,
    target_of,
    universe_from_frames,
)
from deepsim.measure.values import (
    Codes,
    Estimate,
    Obs,
    columns_needed,
    concat,
    estimate,
    estimate_obs,
    influence,
    measure,
    observe,
    paired,
    value_obs,
)

__all__ = [
    "ALIASES", "METRICS", "Codes", "Estimate", "Instance", "Metric", "Obs",
    "Selection", "Universe", "columns_needed", "concat", "estimate", "estimate_obs", "expand",
    "influence", "known_metrics_text", "measure", "observe", "paired",
    "parse_amount", "parse_metric_spec", "player_counts", "split_terms",
    "target_of", "universe_from_frames", "value_obs",
]
