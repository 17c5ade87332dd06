"""What every workflow shares: one way to get a judgment (:mod:`eval.kit.client`: in-process,
over HTTP to the service, or through a provider's batch API), one admin client of the service
(:mod:`eval.kit.admin`: studies, campaigns, memory exemplars) and one crash-safe journal of
finished steps (:mod:`eval.kit.journal`)."""
