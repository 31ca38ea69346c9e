"""Benchmark: what capturing every head's output costs on top of generation, through lmms-eval's backend.

    python bench/bench_switch_capture.py                          # CPU: the tiny random Qwen2.5-VL, a few minutes
    python bench/bench_switch_capture.py --device cuda:0 --layers 28 --hidden 1536 --heads 12     # GPU, ~0.7 B
    python bench/bench_switch_capture.py --device cuda:0 --layers 28 --hidden 3584 --heads 28     # GPU, ~3.6 B
    python bench/bench_switch_capture.py --device cuda:0 --pretrained /path/to/Qwen2.5-VL-7B-Instruct

The model is a random-weight Qwen2.5-VL written by ``ambi make-tiny-model``'s builder (``--layers``, ``--hidden``,
``--heads``; special tokens never win, so every answer runs to ``--new-tokens``) or a local ``--pretrained`` folder.
It is loaded by lmms-eval's own ``qwen2_5_vl`` backend (bfloat16, as that backend loads every model) and driven the
way ``ambi switch-heads capture`` drives it: one image + one prompt per ``generate_until`` call, greedy, batch 1.

Arms: plain generation, and generation with a :class:`HeadRecorder` on every layer for each ``--positions`` entry
(the timed call includes :meth:`HeadRecorder.result`, the copy to the host). After ``--warmup`` untimed rounds, each
of ``--repeats`` rounds runs every arm once, in an order rotated from round to round (so no arm always runs first or
after the same neighbour). Each call is timed with CUDA events on a GPU (``torch.cuda.Event``, synchronised after
the call); on the CPU with the process's CPU time (``time.process_time``, every thread: other jobs on a shared
machine move it far less than the wall clock; ``--clock wall`` for ``time.perf_counter``). The overhead of a position in one round is its time over the plain
time of the same round, minus 1; reported: the median over rounds with the interquartile range (25th-75th
percentile) and the range, next to the median times. Also printed: the Python hook calls per generated token
(counted in an untimed run; 0 means nothing of ours runs while decoding) and the bytes stored per image
(``pre`` + ``post``, bfloat16, as ``capture`` writes them). Prints Markdown to paste into docs/performance.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cpu", help="cpu (default) or cuda:N")
    ap.add_argument("--pretrained", default=None, help="a local Qwen2.5-VL folder (default: a random model)")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--positions", default="last_prompt,mean_prompt,mean_generated")
    ap.add_argument("--image-size", type=int, default=112)
    ap.add_argument("--max-pixels", type=int, default=112 * 112, help="the backend's max_pixels (image tokens)")
    ap.add_argument("--clock", choices=("auto", "wall"), default="auto",
                    help="auto: CUDA events on a GPU, process CPU time on the CPU; wall: time.perf_counter")  # fmt: skip
    args = ap.parse_args()
    if args.repeats < 20:
        print(f"note: {args.repeats} repeats (the method asks for at least 20)", file=sys.stderr)

    import torch
    from PIL import Image

    from ambi_plugin.analysis.capture import HeadRecorder, parse_position
    from ambi_plugin.analysis.heads import head_layout, unwrap_model
    from ambi_plugin.analysis.hooks import HookSet
    from ambi_plugin.lmms.analysis_driver import BackendModel, load_backend
    from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

    tmp = Path(tempfile.mkdtemp(prefix="bench-switch-"))
    folder = args.pretrained
    if folder is None:
        folder = make_tiny_qwen2_5_vl(tmp / "model", text_layers=args.layers, hidden_size=args.hidden,
                                      num_heads=args.heads, vision_hidden_size=64, initializer_range=0.02)  # fmt: skip
    image = tmp / "image.png"
    Image.new("RGB", (args.image_size, args.image_size), (120, 40, 200)).save(image)
    margs = f"pretrained={folder},device={args.device},device_map={args.device},max_pixels={args.max_pixels}"
    margs += f",min_pixels={min(3136, args.max_pixels)}"
    lm = load_backend("qwen2_5_vl", margs)
    model = unwrap_model(lm)
    layout = head_layout(lm)
    driver = BackendModel(lm, gen_kwargs={"max_new_tokens": args.new_tokens})
    prompt = "What do you see in this image? Answer with one word."
    cuda = args.device.startswith("cuda")

    def timed(fn) -> float:
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record()
            fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) / 1000
        clock = time.perf_counter if args.clock == "wall" else time.process_time
        t0 = clock()
        fn()
        return clock() - t0

    positions = [parse_position(p) for p in args.positions.split(",") if p.strip()]
    arms: dict[str, object] = {"plain": lambda: driver.generate(prompt, [str(image)])}
    counters: dict[str, list[int]] = {}
    for pos in positions:
        hooks = HookSet(lm, layout=layout)
        rec = HeadRecorder(hooks, position=pos)
        calls = counters.setdefault(str(pos), [0, 0])  # [our hook calls, counting on]
        make_hook = hooks._make_hook

        def counting(layer, make_hook=make_hook, calls=calls):
            hook = make_hook(layer)

            def wrapper(module, a):
                if calls[1]:
                    calls[0] += 1
                return hook(module, a)

            return wrapper

        hooks._make_hook = counting

        def run(hooks=hooks, rec=rec):
            with hooks:
                rec.start()
                driver.generate(prompt, [str(image)])
                rec.result()

        arms[str(pos)] = run

    # untimed: forwards per answer (lm_head calls) and our hook calls per generated token
    forwards = [0]
    handle = model.lm_head.register_forward_hook(lambda m, a, o: forwards.__setitem__(0, forwards[0] + 1))
    try:
        arms["plain"]()
        n_forward = forwards[0]
        per_token = {}
        for pos in map(str, positions):
            counters[pos][:] = [0, 1]
            arms[pos]()
            counters[pos][1] = 0
            per_token[pos] = (counters[pos][0] - layout.n_layers) / max(1, n_forward - 1)  # minus the prompt's calls
    finally:
        handle.remove()

    names = list(arms)
    for _ in range(args.warmup):
        for name in names:
            arms[name]()
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(args.repeats):
        order = names[r % len(names) :] + names[: r % len(names)]
        if r % 2:
            order.reverse()
        for name in order:
            times[name].append(timed(arms[name]))

    n_params = sum(p.numel() for p in model.parameters())
    device = (
        torch.cuda.get_device_name(torch.device(args.device)) if cuda else f"CPU, {torch.get_num_threads()} threads"
    )
    nbytes = 2 * layout.n_layers * layout.n_heads * layout.head_dim * 2
    src = args.pretrained or (
        f"random Qwen2.5-VL, {layout.n_layers} layers, hidden {args.hidden}, {layout.n_heads} heads"
    )
    size = f"{n_params / 1e9:.2f} B" if n_params >= 1e9 else f"{n_params / 1e6:.2f} M"
    print(f"model: {src} ({size} parameters, bfloat16); {device}; lmms-eval qwen2_5_vl backend; "
          f"{args.new_tokens} new tokens ({n_forward} forwards per answer), batch 1; {args.repeats} interleaved "
          f"rounds after {args.warmup} warm-up rounds; {'CUDA events' if cuda else 'perf_counter' if args.clock == 'wall' else 'process CPU time'}\n")  # fmt: skip
    plain = times["plain"]
    print(
        "| position | plain (median) | with capture (median) | overhead: median | IQR | range "
        "| hook calls per generated token | stored per image |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for pos in map(str, positions):
        over = [100 * (c / p - 1) for c, p in zip(times[pos], plain)]
        print(f"| `{pos}` | {statistics.median(plain):.4f} s | {statistics.median(times[pos]):.4f} s "
              f"| {statistics.median(over):+.2f}% | {_quantile(over, 0.25):+.2f}% .. {_quantile(over, 0.75):+.2f}% "
              f"| {min(over):+.2f}% .. {max(over):+.2f}% | {per_token[pos]:g} | {nbytes:,} B |")  # fmt: skip


if __name__ == "__main__":
    main()
