"""Meta-evaluation: score a labelled dataset with the judge and measure agreement with its
labels (correlations with bootstrap CIs, calibration, baselines, ablations, report and plots).
Entry point: ``judge meta-eval`` (:mod:`eval.metaeval.cli`)."""
