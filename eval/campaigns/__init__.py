"""Human label campaigns (docs/design.md#human-label-campaigns): models, planning, validation
tasks, quality control, agreement, exports, the report, item sources and the
``judge campaign`` CLI."""
