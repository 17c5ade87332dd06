"""The skill library: skill kinds as code, skill cards as data (DESIGN.md §5)."""
