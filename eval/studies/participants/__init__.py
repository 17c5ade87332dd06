"""Human prompts collected on the service's participant page (``/ui/studies/{id}``).

``judge study publish`` registers a study from a suite file; ``judge study import-prompts``
downloads what participants wrote as the ``{"task_id", "prompt"}`` JSONL a ``human``
prompter of a study file reads. Modules: ``client`` (HTTP), ``publish`` (the registration
body), ``prompts_file`` (writing prompt files), ``cli``.
"""
