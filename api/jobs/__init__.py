"""Jobs on Redis: ``/v1/batches`` routes (:mod:`api.jobs.routes`), the job records
(:mod:`api.jobs.store`), the reconciler that queues stored but unqueued batches
(:mod:`api.jobs.reconcile`) and the arq worker (:mod:`api.jobs.worker`; ``judge worker``)
that runs batch items and probes. Probes keep their own subsystem (:mod:`api.probes`): the
worker only dispatches their job to it."""
