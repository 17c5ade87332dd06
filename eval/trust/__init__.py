"""Trust policies made from people's labels (docs/trust.md): exact binomial bounds
(``binomial``), fixed-sequence threshold testing for one judge or a cascade (``sequence``),
split-conformal rating intervals (``conformal``), human label files (``human``, ``labels``),
calibration into a :class:`judge.trust.TrustPolicy` (``calibrate``), the final file of judge
and people (``merge``) and the ``judge trust`` CLI. Applying a policy is the engine's:
:mod:`judge.trust`."""
