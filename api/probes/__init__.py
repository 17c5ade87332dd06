"""Adaptive probes over HTTP: ``/v1/probes`` routes, the stored probe records and the runner
that grows a probe's topic tree (:mod:`eval.probing` does the probing itself)."""
