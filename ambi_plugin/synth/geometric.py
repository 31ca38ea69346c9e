"""Geometric illusion stimuli drawn with pyllusion, with the physical truth known exactly.

Each stimulus compares two red targets ``a`` and ``b`` (upper/lower lines, left/right circles or lines).
We choose the physical relation (``a`` larger, ``b`` larger or equal) and the side the illusion
*favours* (the target the inducers make look larger), then translate both into pyllusion's
``difference`` and ``illusion_strength``:

* ``classic``: the targets are equal, or the physically larger one is also the favoured one;
* ``trap``: the physical difference contradicts the illusion (pyllusion's "incongruent" case);
* ``no_illusion``: the same targets without inducers (``illusion_strength=0``, ``target_only``).

Difficulty follows the size of the physical difference (``easy`` large, ``neutral`` medium, ``hard``
small or zero with inducers); see ``docs/synth.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from .common import cycle_plan

IMAGE_CATEGORIES = ("classic", "trap", "no_illusion")
DIFFICULTY_RANGES = {"easy": (0.35, 0.5), "neutral": (0.15, 0.25), "hard": (0.05, 0.1)}
WIDTH, HEIGHT = 400, 300


@dataclass(frozen=True)
class IllusionSpec:
    """How one pyllusion illusion is drawn and talked about."""

    key: str  # breakdown name
    display: str  # name in golden descriptions
    pyllusion_class: str
    targets: tuple[str, str]  # position words of target a and target b
    noun: str  # "line" | "circle"
    comparative: str  # "longer" | "larger"
    same_phrase: str  # "the same length" | "the same size"
    plural_phrase: str  # "the two horizontal red lines"
    strength_range: tuple[float, float]
    draw_kwargs: tuple[tuple[str, Any], ...]
    has_target_only: bool
    # which target pyllusion treats as "the larger one" for a given signed difference
    reference: Callable[[float], str]
    inducer_text: str  # how the inducers look, for descriptions
    aliases: str  # key-term alternatives for the illusion's name


def _ref_ge(d: float) -> str:
    return "a" if d >= 0 else "b"


def _ref_gt(d: float) -> str:
    return "a" if d > 0 else "b"


ILLUSIONS: dict[str, IllusionSpec] = {
    spec.key: spec
    for spec in (
        IllusionSpec(
            key="muller-lyer",
            display="Müller-Lyer",
            pyllusion_class="MullerLyer",
            targets=("upper", "lower"),
            noun="line",
            comparative="longer",
            same_phrase="the same length",
            plural_phrase="the two horizontal red lines",
            strength_range=(25.0, 40.0),
            draw_kwargs=(("outline", 8),),
            has_target_only=True,
            reference=_ref_ge,
            inducer_text="black arrowhead fins at their ends, pointing inwards on one line and outwards on the other",
            aliases="müller-lyer|muller-lyer|mueller-lyer|muller lyer|müller lyer|arrow|fins",
        ),
        IllusionSpec(
            key="ponzo",
            display="Ponzo",
            pyllusion_class="Ponzo",
            targets=("upper", "lower"),
            noun="line",
            comparative="longer",
            same_phrase="the same length",
            plural_phrase="the two horizontal red lines",
            strength_range=(12.0, 20.0),
            draw_kwargs=(("outline", 8),),
            has_target_only=True,
            reference=_ref_gt,
            inducer_text="two black converging lines on either side, like railway tracks receding into the distance",
            aliases="ponzo|railway|converging|railroad|perspective",
        ),
        IllusionSpec(
            key="ebbinghaus",
            display="Ebbinghaus",
            pyllusion_class="Ebbinghaus",
            targets=("left", "right"),
            noun="circle",
            comparative="larger",
            same_phrase="the same size",
            plural_phrase="the two red central circles",
            strength_range=(1.0, 2.0),
            draw_kwargs=(),
            has_target_only=True,
            reference=_ref_gt,
            inducer_text="a ring of small black circles around one and a ring of large black circles around the other",
            aliases="ebbinghaus|titchener|surrounded|surrounding circles",
        ),
        IllusionSpec(
            key="delboeuf",
            display="Delboeuf",
            pyllusion_class="Delboeuf",
            targets=("left", "right"),
            noun="circle",
            comparative="larger",
            same_phrase="the same size",
            plural_phrase="the two red circles",
            strength_range=(0.8, 1.2),
            draw_kwargs=(("outline", 4),),
            has_target_only=True,
            reference=_ref_gt,
            inducer_text="a thin black ring drawn closely around one of them",
            aliases="delboeuf|ring|annulus|outline",
        ),
        IllusionSpec(
            key="vertical-horizontal",
            display="vertical-horizontal",
            pyllusion_class="VerticalHorizontal",
            targets=("left", "right"),
            noun="line",
            comparative="longer",
            same_phrase="the same length",
            plural_phrase="the two red lines",
            strength_range=(60.0, 90.0),
            draw_kwargs=(),
            has_target_only=False,
            reference=_ref_ge,
            inducer_text="one line lying horizontally and the other turned towards the vertical",
            aliases="vertical-horizontal|vertical horizontal|horizontal-vertical|fick|vertical|tilted",
        ),
    )
}
ILLUSION_KEYS = tuple(ILLUSIONS)


@dataclass(frozen=True)
class GeoStimulus:
    """One geometric image's physical truth and the illusion acting on it."""

    illusion: str
    category: str  # classic | trap | no_illusion
    difficulty: str  # easy | neutral | hard
    larger: str  # "a" | "b" | "equal"
    favoured: str | None  # "a" | "b" | None (no inducers)
    magnitude: float  # |difference| given to pyllusion
    strength: float  # signed illusion_strength given to pyllusion

    @property
    def spec(self) -> IllusionSpec:
        return ILLUSIONS[self.illusion]

    @property
    def difference(self) -> float:
        """pyllusion's signed ``difference``: positive when target ``a`` is the larger one."""
        if self.larger == "equal":
            return 0.0
        return self.magnitude if self.larger == "a" else -self.magnitude

    def target_word(self, which: str) -> str:
        return self.spec.targets[0 if which == "a" else 1]


def other(side: str) -> str:
    return "b" if side == "a" else "a"


def favoured_side(illusion: str, difference: float, strength: float) -> str | None:
    """The target pyllusion's inducers make look larger, for a signed difference and strength."""
    if strength == 0:
        return None
    if illusion == "delboeuf":
        # pyllusion grows the ring of one circle; a close ring makes its circle look *larger*
        # (Delboeuf's assimilation regime, ring/circle diameter ratio about 1.3-1.5).
        ringed = "a" if (difference > 0) == (strength > 0) else "b"
        return ringed
    ref = ILLUSIONS[illusion].reference(difference)
    # pyllusion: positive strength is "incongruent", i.e. it favours the target that is not its reference
    return ref if strength < 0 else other(ref)


def strength_for(illusion: str, difference: float, favoured: str, magnitude: float) -> float:
    """The signed ``illusion_strength`` of size ``magnitude`` that favours ``favoured``."""
    for strength in (magnitude, -magnitude):
        if favoured_side(illusion, difference, strength) == favoured:
            return strength
    raise AssertionError(f"no strength sign favours {favoured} for {illusion}")  # pragma: no cover


def plan_stimuli(rng: np.random.Generator, n: int, start: int = 0) -> list[tuple[str, str, str]]:
    """(illusion, image category, difficulty) of each of ``n`` stimuli, cycled evenly.

    Difficulties cycle in a fixed order so that every one appears as soon as ``n >= 3``: the
    breakdown metrics (``acc_easy`` ...) of the synthetic tasks then always have items. ``start`` is the
    index of the first stimulus in the whole plan (a block of it): the cycles continue across blocks.
    """
    illusions = cycle_plan(rng, ILLUSION_KEYS, n, start=start)
    categories = cycle_plan(rng, ("classic", "trap", "classic", "no_illusion", "trap"), n, start=start)
    difficulties = [("easy", "neutral", "hard")[(start + i) % 3] for i in range(n)]
    return list(zip(illusions, categories, difficulties, strict=True))


def draw_stimulus(rng: np.random.Generator, illusion: str, category: str, difficulty: str | None = None) -> GeoStimulus:
    """Draw the physical truth and the illusion of one stimulus of ``category``.

    ``difficulty`` (planned) fixes the size of the physical difference; equal targets (no
    difference) are drawn only in "hard" slots of classic items and "neutral" slots of
    no-illusion items, the labels those cases carry.
    """
    if category not in IMAGE_CATEGORIES:
        raise ValueError(f"unknown image category {category!r}; expected one of {IMAGE_CATEGORIES}")
    spec = ILLUSIONS[illusion]
    planned = difficulty
    if category == "classic" and planned in (None, "hard") and rng.random() < 0.5:
        larger, difficulty, magnitude = "equal", "hard", 0.0
    else:
        difficulty = planned or ("easy", "neutral", "hard")[int(rng.integers(0, 3))]
        larger = "a" if rng.random() < 0.5 else "b"
        magnitude = round(float(rng.uniform(*DIFFICULTY_RANGES[difficulty])), 3)
    if category == "no_illusion":
        if planned in (None, "neutral") and rng.random() < 0.34:
            larger, magnitude = "equal", 0.0
            difficulty = "neutral"
        return GeoStimulus(illusion, category, difficulty, larger, None, magnitude, 0.0)
    size = round(float(rng.uniform(*spec.strength_range)), 2)
    if larger == "equal":
        favoured = "a" if rng.random() < 0.5 else "b"
    else:
        favoured = larger if category == "classic" else other(larger)
    d = 0.0 if larger == "equal" else (magnitude if larger == "a" else -magnitude)
    strength = strength_for(illusion, d, favoured, size)
    return GeoStimulus(illusion, category, difficulty, larger, favoured, magnitude, strength)


def _pyllusion() -> Any:
    try:
        import pyllusion
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the geometric tasks of the synthetic suite need pyllusion: pip install 'ambi-plugin[synth]'"
        ) from exc
    return pyllusion


def render_stimulus(stim: GeoStimulus) -> Image.Image:
    """The pyllusion image of ``stim`` (WIDTH x HEIGHT, white background, red targets)."""
    cls = getattr(_pyllusion(), stim.spec.pyllusion_class)
    obj = cls(illusion_strength=stim.strength, difference=stim.difference)
    kwargs: dict[str, Any] = dict(stim.spec.draw_kwargs)
    if stim.favoured is None and stim.spec.has_target_only:
        kwargs["target_only"] = True
    return obj.to_image(width=WIDTH, height=HEIGHT, **kwargs).convert("RGB")
