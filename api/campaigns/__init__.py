"""Human label campaigns in the service (DESIGN §13): Redis storage, routes, the annotator page."""
