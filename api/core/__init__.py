"""The service core every route shares: settings, dependencies (auth, Redis, the engine),
error bodies, request limits, per-request option policy, Prometheus metrics, readiness, the
embedded Redis, the Redis response cache and the one place the engine is built."""
