"""Chat backends of the LLM judge: ``openai_chat`` (OpenAI-compatible HTTP), ``lmms`` (lmms-eval providers), ``hf``."""
