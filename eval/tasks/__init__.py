"""The ``judge tasks`` verb in one package: ``check``, ``checklist``, ``from-posts``, ``edits``
and ``run-report`` (docs/tasks.md, docs/tasks-from-posts.md, docs/edit-tasks.md).

The command line is parsed here, at the edge (:mod:`eval.tasks.cli`); each action calls the
public functions of the workflow that does the work: task suites and checklists in
:mod:`eval.studies`, suites from posts and run reports in :mod:`eval.evidence`, edit
instructions in :mod:`eval.edit_tasks`. No workflow imports this package.
"""
