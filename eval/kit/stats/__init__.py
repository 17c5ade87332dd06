"""The statistics the workflows share, one concept a module:

- :mod:`eval.kit.stats.resample` — draws with replacement (row indices or draw counts),
  deterministic for ``(n, n_boot, seed)``;
- :mod:`eval.kit.stats.bootstrap` — :func:`bootstrap_ci`, the percentile bootstrap interval
  of a metric over items (joint or cluster resampling), :func:`mean_ci` and
  :func:`rounded_ci`;
- :mod:`eval.kit.stats.percentile` — :func:`percentile_ci`, the interval of each column of a
  block of bootstrap samples;
- :mod:`eval.kit.stats.kendall` — :func:`kendall_tau_b`, Kendall's τ-b with ties;
- :mod:`eval.kit.stats.krippendorff` — :func:`krippendorff_alpha`, Krippendorff's α at the
  nominal, ordinal, interval and ratio levels;
- :mod:`eval.kit.stats.ppi` — :func:`ppi_mean`, the prediction-powered (PPI++, power-tuned)
  mean from few human and many judge labels, plain or weighted by selection probabilities;
- :mod:`eval.kit.stats.hybrid_means` — :func:`hybrid_means`, hybrid mean ratings per group;
- :mod:`eval.kit.stats.pairwise` — :func:`pairwise_accuracy` and
  :func:`tie_calibrated_accuracy`, agreement on the order of item pairs, ties included.

Example:
    >>> from eval.kit.stats import kendall_tau_b, krippendorff_alpha
    >>> kendall_tau_b([1, 2, 3], [1, 2, 3]), krippendorff_alpha([[1, 1], [2, 2]], "nominal")
    (1.0, 1.0)
"""

from eval.kit.stats.bootstrap import bootstrap_ci, ci_text, mean_ci, rounded_ci
from eval.kit.stats.hybrid_means import hybrid_means
from eval.kit.stats.kendall import kendall_tau_b
from eval.kit.stats.krippendorff import krippendorff_alpha
from eval.kit.stats.pairwise import pairwise_accuracy, tie_calibrated_accuracy
from eval.kit.stats.percentile import percentile_ci
from eval.kit.stats.ppi import ppi_mean
from eval.kit.stats.resample import resample_counts, resample_indices

__all__ = [
    "bootstrap_ci",
    "ci_text",
    "hybrid_means",
    "kendall_tau_b",
    "krippendorff_alpha",
    "mean_ci",
    "pairwise_accuracy",
    "percentile_ci",
    "ppi_mean",
    "resample_counts",
    "resample_indices",
    "rounded_ci",
    "tie_calibrated_accuracy",
]
