"""The LLM gateway: every model call goes through litellm here (docs/design.md#the-model-gateway).

Importing this package sets litellm's offline defaults before any module of it imports
litellm: the bundled price map and Anthropic beta-header table instead of a fetch from GitHub
on import or on the first Claude call (a network round trip, and a stall where there is no
internet). A value already in the environment wins.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")
