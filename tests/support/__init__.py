"""Test and benchmark helpers that are not part of the package: a loopback OpenAI-compatible chat server
(``chat_server``), the AmbiBench fixtures (``ambibench_fixtures``) and the comparison of our answer parsing with
lmms-eval's built-in tasks (``builtin_compare``). ``tests/`` is on ``sys.path`` in tests (``tests/conftest.py``);
the scripts in ``bench/`` put it there themselves."""
