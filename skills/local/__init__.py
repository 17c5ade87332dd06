"""The local backend: skill kinds on packaged local models and exemplar memories.

No API key and no network: subjective scores come from predictors over the exemplar
memories, text checkpoints from OCR, safety from packaged classifiers. What cannot be judged
locally is reported unscored with the reason, never guessed.
"""

NEEDS_VLM = "needs a vision-language model; set JUDGE_MODEL"
