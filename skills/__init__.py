"""The skill library: skill kinds as code, skill cards as data (docs/design.md#skills-and-cards)."""
