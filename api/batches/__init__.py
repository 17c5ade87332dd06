"""Batch jobs: ``/v1/batches`` routes, the job records on Redis (:mod:`api.batches.jobs`) and
the arq worker that scores them (:mod:`api.batches.worker`; ``judge worker``)."""
