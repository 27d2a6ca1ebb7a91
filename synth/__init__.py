"""LLM-driven synthesis pipelines.

- `synth.core`: the shared machinery (structured output, response cache, resumable stages, stats);
- `synth.env`: questions, corpora or domains -> verified tool environments;
- `synth.sft`: tool documents -> multi-turn SFT trajectories;
- `synth.catalogue`: every code a check emits, with its meaning and a failing example (`astra checks`).
"""
