"""Meta-evaluation against expert labels: adapters, metrics, ablations, reports.

Filled in by the meta-evaluation issue.
"""
