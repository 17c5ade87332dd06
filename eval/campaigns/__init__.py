"""Human label campaigns (DESIGN §13): models, planning, validation tasks, quality control,
agreement, exports, the report, item sources and the ``judge campaign`` CLI."""
