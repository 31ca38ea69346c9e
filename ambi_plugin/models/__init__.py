"""Model helpers for tests and demos: a tiny random-weight Qwen2.5-VL that loads offline (``tiny_qwen``).

Nothing here is a real model. The tiny model proves that the evaluation pipeline runs end to end; it has random
weights and its scores mean nothing.
"""
