"""Human label campaigns in the service (docs/design.md#human-label-campaigns): Redis storage,
routes, the annotator page."""
