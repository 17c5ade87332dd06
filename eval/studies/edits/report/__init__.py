"""The edit-study report (``judge study report DIR`` on an edit study's folder): statistics
(:mod:`.stats`), figures (:mod:`.plots`), the Markdown page (:mod:`.markdown`), written by
:func:`write_edit_report`."""

from eval.studies.edits.report.build import is_edit_run, write_edit_report

__all__ = ["is_edit_run", "write_edit_report"]
