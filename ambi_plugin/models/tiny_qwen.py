"""A tiny, random-weight Qwen2.5-VL that is built offline in about a second.

``make_tiny_qwen2_5_vl(DIR)`` writes a folder that ``transformers`` (``AutoProcessor``, ``AutoTokenizer``,
``Qwen2_5_VLForConditionalGeneration``) and lmms-eval's ``qwen2_5_vl`` backend (``pretrained=DIR``) load exactly
like a real Qwen2.5-VL checkpoint. It exists to prove that the pipeline runs (image in, text out, metrics written);
**its weights are random and any score it gets is meaningless.** That is said in the folder's README, in
``config.json`` (``"ambi_random_weights": true``) and in a warning when the folder is written.

Nothing is downloaded: the tokenizer is a word-level model over a built-in English word list (so generated text is
made of words), it carries the Qwen special tokens (``<|im_start|>``, ``<|im_end|>``, ``<|endoftext|>``,
``<|vision_start|>``, ``<|vision_end|>``, ``<|image_pad|>``, ``<|video_pad|>``, ...) at the ids the model config
points to, and a chat template that renders messages the way Qwen2.5-VL's does. The output-head rows of the special
tokens are zeroed, so the model writes words and runs to ``max_new_tokens`` instead of stopping at once.

Its token ids differ from the real Qwen vocabulary: tests should assert on shapes, activations and logits, never on
the generated words.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

__all__ = ["BUILTIN_WORDS", "SPECIAL_TOKENS", "TINY_MODEL_MARKER", "TinyModelError", "make_tiny_qwen2_5_vl"]

logger = logging.getLogger(__name__)

#: Key set to ``true`` in the ``config.json`` of every folder this module writes.
TINY_MODEL_MARKER = "ambi_random_weights"

#: Qwen2.5-VL special tokens, in Qwen's own order; here they take ids 0..len-1.
SPECIAL_TOKENS: tuple[str, ...] = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
)
_UNK = "<|unk|>"

_PUNCTUATION = tuple(".,:;!?'\"()[]{}-_/+*=<>#%&@$|~`^\\")
_LETTERS = tuple("abcdefghijklmnopqrstuvwxyz")
_DIGITS = tuple("0123456789")

#: The built-in word list the word-level vocabulary is drawn from (lower case; the tokenizer lower-cases input).
BUILTIN_WORDS: tuple[str, ...] = tuple(
    dict.fromkeys(
        """
    the of and to in is it that for on with as this was are be by at from or an not but what all were when
    there can which one has have had more if will each about how up out them then she he many some so these
    would other into her two him see time could no make than first been its who now people my made over did
    down only way find use may water long little very after words called just where most know get through back
    much before go good new write our used me man too any day same right look think also around another came
    come work three must because does part even place well such here take why help put different away again off
    went old number great tell men say small every found still between name should home big give air line set
    own under read last never us left end along while might next sound below saw something thought both few
    those always show large often together asked house world going want school important until form food keep
    children feet land side without boy once animal life enough took four head above kind began almost live page
    got earth need far hand high year mother light country father let night picture being study second soon story
    since white ever paper hard near sentence better best across during today however sure knew try told young sun
    thing whole hear example heard several change answer room sea against top turned learn point city play toward
    five himself usually money seen car morning drawing body upon family later turn move face door cut done group
    true half red fish plants living black eat short black blue green yellow orange purple pink brown gray grey
    color colour dark bright circle square triangle line lines curve straight shape shapes size larger smaller
    longer shorter taller equal same different image images photo figure object objects background foreground
    center middle corner edge left right upper lower front behind inside outside near far distance depth view
    rotate rotated upright upside illusion ambiguous perspective pattern stripe stripes contrast shadow shade
    system user assistant you helpful
    yes no maybe unsure option options choice choose select correct wrong answer question describe description
    appears seems looks visible hidden count counted box boxes region area person face faces vase duck rabbit
    cube stairs tree trees bird cat dog horse cloud sky road wall floor table chair glass hole ring dot dots grid
    moving motion static still spinning clockwise counterclockwise brighter darker lighter heavier tilt tilted
    parallel converging diverging bent curved flat round oval arrow arrows center grey hue tone
    """.split()
    )
)


class TinyModelError(ValueError):
    """Bad arguments or an output folder that must not be overwritten."""


def _ordered_unique(items: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


# Renders messages the way Qwen2.5-VL's template does: a default system turn, one
# <|vision_start|><|image_pad|><|vision_end|> block per image (the processor expands <|image_pad|> to the right
# number of tokens), "Picture n: " labels when add_vision_id is set, and "<|im_start|>assistant\n" as the
# generation prompt. Written for this module; `content` may be a string or a list of typed parts.
CHAT_TEMPLATE = r"""{%- set counts = namespace(images=0, videos=0) -%}
{%- for message in messages -%}
{%- if loop.first and message['role'] != 'system' -%}
{{- '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' -}}
{%- endif -%}
{{- '<|im_start|>' + message['role'] + '\n' -}}
{%- if message['content'] is string -%}
{{- message['content'] -}}
{%- else -%}
{%- for part in message['content'] -%}
{%- if part['type'] == 'image' or 'image' in part or 'image_url' in part -%}
{%- set counts.images = counts.images + 1 -%}
{%- if add_vision_id -%}{{- 'Picture ' ~ counts.images ~ ': ' -}}{%- endif -%}
{{- '<|vision_start|><|image_pad|><|vision_end|>' -}}
{%- elif part['type'] == 'video' or 'video' in part -%}
{%- set counts.videos = counts.videos + 1 -%}
{%- if add_vision_id -%}{{- 'Video ' ~ counts.videos ~ ': ' -}}{%- endif -%}
{{- '<|vision_start|><|video_pad|><|vision_end|>' -}}
{%- elif 'text' in part -%}
{{- part['text'] -}}
{%- endif -%}
{%- endfor -%}
{%- endif -%}
{{- '<|im_end|>\n' -}}
{%- endfor -%}
{%- if add_generation_prompt -%}
{{- '<|im_start|>assistant\n' -}}
{%- endif -%}"""

_README = """# Tiny random Qwen2.5-VL (RANDOM WEIGHTS, NOT A REAL MODEL)

Written by `ambi_plugin.models.tiny_qwen.make_tiny_qwen2_5_vl` (`ambi make-tiny-model`), seed {seed}.

* The weights are **random** (`"ambi_random_weights": true` in `config.json`). The model proves that a pipeline
  runs (image + prompt in, text out, metrics written). Any score it gets is meaningless; never report one.
* Architecture: Qwen2.5-VL, {n_params:,} parameters; text: {text_layers} layers, hidden {hidden}, {heads} heads;
  vision: depth {vision_depth}, hidden {vision_hidden}, patch {patch}, merge {merge}.
* Tokenizer: word level over {n_words} built-in English words plus single letters, digits and punctuation;
  {vocab_size} ids in total. The Qwen special tokens come first (ids 0..{last_special}); the ids do NOT match
  the real Qwen vocabulary. Input is lower-cased and decoded words are joined by single spaces.
* The output-head rows of the special tokens are zero, so generation writes words and runs to `max_new_tokens`.
* Default image size: {min_pixels} to {max_pixels} pixels (`size` = `shortest_edge` / `longest_edge` in
  `preprocessor_config.json`, what transformers 5 reads; the older `min_pixels` / `max_pixels` keys are not written).

Use with lmms-eval on CPU:

    lmms-eval --model qwen2_5_vl \\
      --model_args pretrained=<this folder>,device=cpu,device_map=cpu,min_pixels=3136,max_pixels=12544 ...
"""


def _check_out_dir(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise TinyModelError(f"{out} exists and is not a folder; pass a new or empty folder for the tiny model.")
    config = out / "config.json"
    if config.is_file():
        try:
            marked = bool(json.loads(config.read_text(encoding="utf-8")).get(TINY_MODEL_MARKER))
        except (OSError, ValueError):
            marked = False
        if not marked:
            raise TinyModelError(
                f"{out} already holds a model (config.json without '{TINY_MODEL_MARKER}'); refusing to overwrite "
                "it with random weights. Pass a new or empty folder."
            )


def _build_tokenizer(vocab_words: int, chat_template: str):
    from tokenizers import Tokenizer, normalizers, pre_tokenizers
    from tokenizers.models import WordLevel
    from transformers import PreTrainedTokenizerFast

    if not 1 <= vocab_words <= len(BUILTIN_WORDS):
        raise TinyModelError(
            f"vocab_words must be between 1 and {len(BUILTIN_WORDS)} (the size of the built-in word list), "
            f"got {vocab_words}."
        )
    words = list(BUILTIN_WORDS[:vocab_words])
    tokens = _ordered_unique([*SPECIAL_TOKENS, _UNK, *_PUNCTUATION, *_LETTERS, *_DIGITS, *words])
    vocab = {tok: i for i, tok in enumerate(tokens)}

    backend = Tokenizer(WordLevel(vocab=vocab, unk_token=_UNK))
    backend.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    # Words, single punctuation marks and single digits; whitespace is dropped (decoding joins with spaces).
    backend.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Whitespace(), pre_tokenizers.Punctuation(), pre_tokenizers.Digits(individual_digits=True)]
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        unk_token=_UNK,
        extra_special_tokens=[t for t in SPECIAL_TOKENS if t not in ("<|im_end|>", "<|endoftext|>")],
        model_max_length=32768,
        padding_side="right",
        chat_template=chat_template,
        clean_up_tokenization_spaces=False,
    )
    return tokenizer, vocab


def make_tiny_qwen2_5_vl(
    out_dir: str | Path,
    *,
    seed: int = 0,
    vocab_words: int = len(BUILTIN_WORDS),
    text_layers: int = 4,
    hidden_size: int = 64,
    num_heads: int = 4,
    vision_depth: int = 2,
    vision_hidden_size: int = 32,
    initializer_range: float = 0.5,
    min_pixels: int = 4 * 28 * 28,
    max_pixels: int = 16 * 28 * 28,
) -> Path:
    """Write a random-weight Qwen2.5-VL (model, tokenizer, processor, chat template, README) to ``out_dir``.

    The result is deterministic for a given ``seed`` and set of arguments. ``vocab_words`` takes the first words of
    :data:`BUILTIN_WORDS`. ``initializer_range`` is the std of the random init (about 0.5 keeps outputs from being
    constant). ``min_pixels``/``max_pixels`` are the image processor's defaults, written as its ``size``
    (``shortest_edge`` / ``longest_edge``: transformers 5 deprecates the ``min_pixels`` / ``max_pixels`` keywords);
    lmms-eval's qwen2_5_vl overrides them with its own ``min_pixels``/``max_pixels`` model args. Returns the folder. Raises :class:`TinyModelError` for bad
    arguments or when ``out_dir`` already holds a model that this function did not write.
    """
    import torch
    from transformers import (
        GenerationConfig,
        Qwen2_5_VLConfig,
        Qwen2_5_VLForConditionalGeneration,
        Qwen2_5_VLProcessor,
        Qwen2VLImageProcessor,
    )
    from transformers.models.qwen2_vl.video_processing_qwen2_vl import Qwen2VLVideoProcessor

    start = time.perf_counter()
    out = Path(out_dir).expanduser()
    _check_out_dir(out)
    if text_layers < 1 or vision_depth < 1:
        raise TinyModelError(f"text_layers and vision_depth must be >= 1, got {text_layers} and {vision_depth}.")
    if hidden_size % num_heads or (hidden_size // num_heads) % 8:
        raise TinyModelError(
            f"hidden_size ({hidden_size}) / num_heads ({num_heads}) must be a multiple of 8 (rotary sections)."
        )
    if vision_hidden_size % 2 or (vision_hidden_size // 2) % 4:
        raise TinyModelError(f"vision_hidden_size must be a multiple of 8, got {vision_hidden_size}.")
    if not 0 < min_pixels <= max_pixels:
        raise TinyModelError(f"need 0 < min_pixels <= max_pixels, got {min_pixels} and {max_pixels}.")

    tokenizer, vocab = _build_tokenizer(vocab_words, CHAT_TEMPLATE)
    vocab_size = len(vocab)
    ids = {tok: vocab[tok] for tok in SPECIAL_TOKENS}
    eot, im_end = ids["<|endoftext|>"], ids["<|im_end|>"]

    head_dim = hidden_size // num_heads
    half = head_dim // 2
    mrope_section = [half - 2 * (half * 3 // 8), half * 3 // 8, half * 3 // 8]  # temporal, height, width
    patch_size, merge_size, temporal_patch_size = 14, 2, 2

    config = Qwen2_5_VLConfig(
        text_config={
            "vocab_size": vocab_size,
            "hidden_size": hidden_size,
            "intermediate_size": hidden_size * 2,
            "num_hidden_layers": text_layers,
            "num_attention_heads": num_heads,
            "num_key_value_heads": max(1, num_heads // 2),
            "max_position_embeddings": 32768,
            "max_window_layers": text_layers,
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": mrope_section},
            "initializer_range": initializer_range,
            "bos_token_id": eot,
            "eos_token_id": im_end,
            "pad_token_id": eot,
        },
        vision_config={
            "depth": vision_depth,
            "hidden_size": vision_hidden_size,
            "intermediate_size": vision_hidden_size * 2,
            "num_heads": 2,
            "patch_size": patch_size,
            "spatial_merge_size": merge_size,
            "temporal_patch_size": temporal_patch_size,
            "window_size": 112,
            "out_hidden_size": hidden_size,
            "fullatt_block_indexes": [vision_depth - 1],
            "initializer_range": initializer_range,
        },
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
        tie_word_embeddings=False,
        initializer_range=initializer_range,
        bos_token_id=eot,
        eos_token_id=im_end,
        pad_token_id=eot,
    )
    setattr(config, TINY_MODEL_MARKER, True)

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = Qwen2_5_VLForConditionalGeneration(config)
    model.eval()
    special_ids = [ids[t] for t in SPECIAL_TOKENS] + [vocab[_UNK]]
    with torch.no_grad():
        model.lm_head.weight[special_ids] = 0.0
    model.generation_config = GenerationConfig(
        bos_token_id=eot, eos_token_id=[im_end, eot], pad_token_id=eot, do_sample=False
    )

    size = {"shortest_edge": min_pixels, "longest_edge": max_pixels}  # pixels, not sides (Qwen2-VL's meaning)
    image_processor = Qwen2VLImageProcessor(
        size=dict(size),
        patch_size=patch_size,
        merge_size=merge_size,
        temporal_patch_size=temporal_patch_size,
    )
    video_processor = Qwen2VLVideoProcessor(
        size=dict(size),
        patch_size=patch_size,
        merge_size=merge_size,
        temporal_patch_size=temporal_patch_size,
        cap_pixels_per_frame=True,
    )
    processor = Qwen2_5_VLProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        video_processor=video_processor,
        chat_template=CHAT_TEMPLATE,
    )

    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    processor.save_pretrained(out)  # processor_config.json (holds both sub-processors), tokenizer, chat template
    tokenizer.save_pretrained(out)
    # Stand-alone copies for loaders that look for the classic file names.
    image_processor.save_pretrained(out)  # preprocessor_config.json
    video_processor.save_pretrained(out)  # video_preprocessor_config.json

    n_params = sum(p.numel() for p in model.parameters())
    (out / "README.md").write_text(
        _README.format(
            seed=seed,
            n_params=n_params,
            text_layers=text_layers,
            hidden=hidden_size,
            heads=num_heads,
            vision_depth=vision_depth,
            vision_hidden=vision_hidden_size,
            patch=patch_size,
            merge=merge_size,
            n_words=vocab_words,
            vocab_size=vocab_size,
            last_special=len(SPECIAL_TOKENS) - 1,
            min_pixels=min_pixels,
            max_pixels=max_pixels,
        ),
        encoding="utf-8",
    )
    logger.warning(
        "Wrote a tiny Qwen2.5-VL with RANDOM weights (%s parameters, seed %d) to %s in %.2f s. It proves that the "
        "pipeline runs; its scores are meaningless.",
        f"{n_params:,}",
        seed,
        out,
        time.perf_counter() - start,
    )
    return out
