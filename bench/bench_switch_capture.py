"""Benchmark: cost of capturing every head's output during generation, and bytes stored per image.

    python bench/bench_switch_capture.py [--layers 8] [--hidden 512] [--heads 8] [--new-tokens 16] [--reps 7]

A random-weight Qwen2.5-VL (text: ``--layers`` layers, hidden ``--hidden``, ``--heads`` query heads; built offline by
``ambi make-tiny-model``'s builder) generates greedily from one image + prompt, on CPU. Plain generation is timed
against generation with a :class:`HeadRecorder` on every layer (position ``last_prompt``, the default, and
``mean_generated``, which records at every step), including moving the vectors to the CPU. Runs alternate (plain,
captured, plain, ...) and the best of ``--reps`` runs is reported (the least disturbed by other load). Measured
directly as well, as a share of the captured runs' time: the time inside the whole torch hook closure that
:class:`HookSet` installs (call counting, the ``[B, S, H, D]`` view, the recording functions) plus
:meth:`HeadRecorder.result` (the copy to the CPU). Not in it: torch's own cost of dispatching to a Python pre-hook,
which only the wall-clock figure includes. The storage per image is the size of one capture's ``acts/<id>.npz``
(two prompts x layers x heads x head_dim float32, uncompressed).
Prints a Markdown table to paste into docs/performance.md.
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from pathlib import Path


def _timed(fn, spent: list[float]):
    def wrapper(*args):
        t0 = time.perf_counter()
        try:
            return fn(*args)
        finally:
            spent[0] += time.perf_counter() - t0

    return wrapper


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--new-tokens", type=int, default=16)
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()

    import numpy as np
    import torch
    from PIL import Image
    from transformers import AutoProcessor, Qwen2_5_VLForConditionalGeneration

    from ambi_plugin.analysis.capture import HeadRecorder
    from ambi_plugin.analysis.hooks import HookSet
    from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

    torch.set_num_threads(max(1, torch.get_num_threads()))
    tmp = Path(tempfile.mkdtemp(prefix="bench-switch-"))
    folder = make_tiny_qwen2_5_vl(tmp / "model", text_layers=args.layers, hidden_size=args.hidden, num_heads=args.heads,
                                  vision_hidden_size=64, initializer_range=0.02)  # fmt: skip
    model = Qwen2_5_VLForConditionalGeneration.from_pretrained(folder).eval()
    proc = AutoProcessor.from_pretrained(folder)
    msgs = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "what do you see in this image"}]}]
    text = proc.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False)
    inputs = proc(text=[text], images=[Image.new("RGB", (112, 112), (120, 40, 200))], return_tensors="pt")
    n_prompt = int(inputs["input_ids"].shape[1])
    gen = {"max_new_tokens": args.new_tokens, "min_new_tokens": args.new_tokens, "do_sample": False}

    def plain() -> float:
        t0 = time.perf_counter()
        with torch.no_grad():
            model.generate(**inputs, **gen)
        return time.perf_counter() - t0

    def captured(position: str):
        hooks = HookSet(model)
        rec = HeadRecorder(hooks, position=position)
        spent = [0.0]
        make_hook = hooks._make_hook
        hooks._make_hook = lambda layer: _timed(make_hook(layer), spent)  # the whole closure torch calls
        result = _timed(rec.result, spent)

        def run() -> float:
            t0 = time.perf_counter()
            with hooks, torch.no_grad():
                rec.start()
                model.generate(**inputs, **gen)
                result()
            return time.perf_counter() - t0

        return run, rec, spent

    plain()  # warm-up
    rows = []
    for position in ("last_prompt", "mean_generated"):
        run, rec, spent = captured(position)
        run()
        base, cap = [], []
        spent[0] = 0.0
        for _ in range(args.reps):
            base.append(plain())
            cap.append(run())
        b, c = min(base), min(cap)
        share = 100 * spent[0] / sum(cap)
        per_run_ms = 1000 * spent[0] / len(cap)
        acts = rec.result()
        buf = io.BytesIO()
        np.savez(buf, pre=acts, post=acts)
        rows.append((position, b, c, 100 * (c - b) / b, share, per_run_ms, len(buf.getvalue())))

    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: random Qwen2.5-VL, {args.layers} layers, hidden {args.hidden}, {args.heads} heads "
          f"({n_params / 1e6:.1f} M parameters); prompt {n_prompt} tokens, {args.new_tokens} new tokens; "
          f"CPU, {torch.get_num_threads()} threads; best of {args.reps} alternating runs\n")  # fmt: skip
    print(
        "| position | plain generate (s) | with capture (s) | wall-clock overhead | hook closures + result() "
        "| stored per image |"
    )
    print("|---|---|---|---|---|---|")
    for position, b, c, pct, share, ms, nbytes in rows:
        print(f"| {position} | {b:.3f} | {c:.3f} | {pct:+.1f}% | {share:.2f}% ({ms:.1f} ms per run) | {nbytes:,} B |")


if __name__ == "__main__":
    main()
