"""Edit studies: edit tasks × instruction writers × image editors → the judge's edit mode →
a report ranking the editors per edit category and family (docs/edit-studies.md).

Run through the study verbs: ``judge study run EDIT_STUDY.toml --out DIR`` (a study file with
``[study] kind = "edit"``) and ``judge study report DIR``.
"""
