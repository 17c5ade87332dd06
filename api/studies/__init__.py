"""Participant studies on the service: registration, participant codes, prompts in Redis.

Modules: ``models`` (request and answer shapes, task validation), ``codes`` (participant
codes), ``store`` (the Redis layout and its atomic writes), ``targets`` (IM target images).
"""
