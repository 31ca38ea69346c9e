"""Questions about the geometric stimuli: true/false, roman multiple choice, yes/no, lettered choice and
golden descriptions. All five tasks share one pool of images (several questions per image, as in
IllusionBench and AmbiBench's geometric category); every answer follows from the stimulus's physical
parameters, never from how it looks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from .common import BuildContext, balanced_bools, base_record, shuffle_options
from .geometric import GeoStimulus, draw_stimulus, other, plan_stimuli, render_stimulus

GEOMETRIC_TASKS = (
    "ambi_synth_geometric_tf",
    "ambi_synth_geometric_mc",
    "ambi_synth_geometric_yn",
    "ambi_synth_geometric_letter",
    "ambi_synth_description",
)
CLAIMS = ("a", "b", "equal")  # "target a is larger", "target b is larger", "they are equal"
OPPOSITE = {"longer": "shorter", "larger": "smaller"}


def _breakdown(stim: GeoStimulus) -> dict[str, str]:
    return {"image_category": stim.category, "difficulty": stim.difficulty, "illusion": stim.illusion}


def _stimulus(stim: GeoStimulus) -> dict[str, Any]:
    """The physical parameters behind the answer (pyllusion's ``difference`` and ``illusion_strength``)."""
    return {
        "illusion": stim.illusion,
        "difference": stim.difference,
        "illusion_strength": stim.strength,
        "larger": "equal" if stim.larger == "equal" else stim.target_word(stim.larger),
        "looks_larger": None if stim.favoured is None else stim.target_word(stim.favoured),
    }


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def claim_statement(stim: GeoStimulus, claim: str) -> str:
    """A declarative sentence stating ``claim`` about the two targets."""
    s = stim.spec
    if claim == "equal":
        return f"{_cap(s.plural_phrase)} are {s.same_phrase}."
    this, that = stim.target_word(claim), stim.target_word(other(claim))
    return f"The {this} red {s.noun} is {s.comparative} than the {that} red {s.noun}."


def claim_question(stim: GeoStimulus, claim: str) -> str:
    """A yes/no question asking whether ``claim`` holds."""
    s = stim.spec
    if claim == "equal":
        return f"Are {s.plural_phrase} {s.same_phrase}?"
    this, that = stim.target_word(claim), stim.target_word(other(claim))
    return f"Is the {this} red {s.noun} {s.comparative} than the {that} red {s.noun}?"


def pick_claim(rng: np.random.Generator, stim: GeoStimulus, want_true: bool) -> str:
    """A claim whose truth is ``want_true``; false claims prefer what the illusion suggests."""
    if want_true:
        return stim.larger
    false_claims = [c for c in CLAIMS if c != stim.larger]
    if stim.favoured is not None and stim.favoured in false_claims:
        return stim.favoured
    return false_claims[int(rng.integers(0, len(false_claims)))]


def _binary_record(ctx: BuildContext, i: int, stim: GeoStimulus, image: str, want: bool, *, kind: str) -> dict:
    """A true/false statement (``kind="true_false"``) or a yes/no question (``"yes_no"``) about ``stim``."""
    task = "ambi_synth_geometric_tf" if kind == "true_false" else "ambi_synth_geometric_yn"
    claim = pick_claim(ctx.rng(task[len("ambi_synth_") :], i), stim, want)
    phrase = claim_statement if kind == "true_false" else claim_question
    return base_record(
        task,
        i,
        category="geometric",
        task_type=kind,
        answer_format=kind,
        image=image,
        question=phrase(stim, claim),
        answer_bool=claim == stim.larger,
        breakdown=_breakdown(stim),
        stimulus=_stimulus(stim),
    )


def _absent_option(stim: GeoStimulus) -> str:
    noun = stim.spec.noun
    return f"There are no red {noun}s in the image" if noun == "circle" else f"There is no red {noun} in the image"


def _mc_record(ctx: BuildContext, i: int, stim: GeoStimulus, image: str) -> dict:
    s = stim.spec
    options = [
        f"The {s.targets[0]} {s.noun} is {s.comparative}",
        f"The {s.targets[1]} {s.noun} is {s.comparative}",
        f"Both {s.noun}s are {s.same_phrase}",
        _absent_option(stim),
    ]
    correct = CLAIMS.index(stim.larger)
    shuffled, index = shuffle_options(ctx.rng("geometric_mc", i), options, correct)
    return base_record(
        "ambi_synth_geometric_mc",
        i,
        category="geometric",
        task_type="choice",
        answer_format="roman",
        image=image,
        question=f"Which statement about {s.plural_phrase} is correct?",
        options=shuffled,
        option_style="roman",
        answer_index=index,
        breakdown=_breakdown(stim),
        stimulus=_stimulus(stim),
    )


def _letter_record(ctx: BuildContext, i: int, stim: GeoStimulus, image: str) -> dict:
    s = stim.spec
    rng = ctx.rng("geometric_letter", i)
    options = [f"the {s.targets[0]} one", f"the {s.targets[1]} one", f"both are {s.same_phrase}"]
    correct = CLAIMS.index(stim.larger)
    roll = rng.random()
    if stim.larger != "equal" and roll < 0.25:
        options = options[:2]
    elif roll > 0.67:
        options.append(f"there is only one red {s.noun}")
    shuffled, index = shuffle_options(rng, options, correct)
    return base_record(
        "ambi_synth_geometric_letter",
        i,
        category="geometric",
        task_type="choice",
        answer_format="letter",
        image=image,
        question=f"Which red {s.noun} is {s.comparative}?",
        options=shuffled,
        option_style="letter_lower",
        answer_index=index,
        breakdown=_breakdown(stim),
        stimulus=_stimulus(stim),
    )


# --------------------------------------------------------------------------------------------------
# Golden descriptions
# --------------------------------------------------------------------------------------------------


def _truth_sentence(stim: GeoStimulus) -> str:
    s = stim.spec
    if stim.larger == "equal":
        return f"{_cap(s.plural_phrase)} are exactly {s.same_phrase}"
    big, small = stim.target_word(stim.larger), stim.target_word(other(stim.larger))
    return f"The {big} {s.noun} is physically {s.comparative} than the {small} {s.noun}"


def golden_description(stim: GeoStimulus) -> str:
    """A golden description in IllusionBench's spirit: content, presence of an illusion, its cause."""
    s = stim.spec
    truth = _truth_sentence(stim)
    if stim.category == "no_illusion":
        return (
            f"{_cap(s.plural_phrase)} on a white background, without any surrounding context. "
            f"{truth}. There is no visual illusion."
        )
    fav = stim.target_word(stim.favoured or "a")
    if stim.category == "trap":
        return (
            f"An image that resembles the {s.display} illusion: {s.plural_phrase} with {s.inducer_text}. "
            f"It is a trap: {truth[0].lower() + truth[1:]}, although the context makes the {fav} {s.noun} "
            f"look {s.comparative}."
        )
    if stim.larger == "equal":
        effect = f"although the {fav} {s.noun} looks {s.comparative} because of the surrounding context"
    else:
        effect = "and the surrounding context exaggerates the difference"
    return f"A {s.display} illusion: {s.plural_phrase} with {s.inducer_text}. {truth}, {effect}."


def _same_terms(stim: GeoStimulus) -> str:
    if stim.spec.noun == "line":
        return "same length|equal length|equally long|equal in length|identical length|same size"
    return "same size|equal size|equally large|equal in size|identical size|same diameter"


def _larger_terms(stim: GeoStimulus, side: str) -> str:
    s = stim.spec
    big, small = stim.target_word(side), stim.target_word(other(side))
    opp = OPPOSITE[s.comparative]
    return "|".join(
        (
            f"{big} {s.noun} is {s.comparative}",
            f"{big} one is {s.comparative}",
            f"{big} {s.noun} is actually {s.comparative}",
            f"{big} {s.noun} is physically {s.comparative}",
            f"{small} {s.noun} is {opp}",
            f"{small} one is {opp}",
        )
    )


def key_terms(stim: GeoStimulus) -> list[str]:
    """Lowercase cues a correct description contains; alternatives separated by ``|``."""
    truth = _same_terms(stim) if stim.larger == "equal" else _larger_terms(stim, stim.larger)
    if stim.category == "no_illusion":
        return [f"{stim.spec.noun}", truth]
    return [stim.spec.aliases, truth]


def conflict_terms(stim: GeoStimulus) -> list[str]:
    """Lowercase phrases contradicting the physical truth."""
    s = stim.spec
    opp = OPPOSITE[s.comparative]
    if stim.larger == "equal":
        out = []
        for side in ("a", "b"):
            w = stim.target_word(side)
            out += [f"{w} {s.noun} is {s.comparative}", f"{w} one is {s.comparative}", f"{w} {s.noun} is {opp}"]
        dim = "length" if s.noun == "line" else "size"
        return out + [f"different {dim}s", f"different {dim}", f"not the same {dim}"]
    small, big = stim.target_word(other(stim.larger)), stim.target_word(stim.larger)
    return [
        f"{small} {s.noun} is {s.comparative}",
        f"{small} one is {s.comparative}",
        f"{big} {s.noun} is {opp}",
        f"are {s.same_phrase}",
        f"have {s.same_phrase}",
        f"are exactly {s.same_phrase}",
    ]


def _description_record(i: int, stim: GeoStimulus, image: str) -> dict:
    return base_record(
        "ambi_synth_description",
        i,
        category="geometric",
        task_type="description",
        answer_format="free",
        image=image,
        description=golden_description(stim),
        key_terms=key_terms(stim),
        conflict_terms=conflict_terms(stim),
        breakdown=_breakdown(stim),
        stimulus=_stimulus(stim),
    )


def generate_geometric(ctx: BuildContext) -> Iterator[tuple[str, dict[str, Any]]]:
    """Records of the five geometric tasks over one shared pool of ``ctx.n`` pyllusion images."""
    plan = ctx.plan("geometric", lambda rng, start, size: plan_stimuli(rng, size, start=start))
    tf_want = ctx.plan("geometric_tf", lambda rng, start, size: balanced_bools(rng, size, start=start))
    yn_want = ctx.plan("geometric_yn", lambda rng, start, size: balanced_bools(rng, size, start=start))
    for (i, (illusion, category, difficulty)), (_, tf), (_, yn) in zip(plan, tf_want, yn_want, strict=True):
        stim = draw_stimulus(ctx.rng("geometric", i), illusion, category, difficulty)
        image = ctx.save_image(render_stimulus(stim), "geometric", i)
        yield "ambi_synth_geometric_tf", _binary_record(ctx, i, stim, image, tf, kind="true_false")
        yield "ambi_synth_geometric_mc", _mc_record(ctx, i, stim, image)
        yield "ambi_synth_geometric_yn", _binary_record(ctx, i, stim, image, yn, kind="yes_no")
        yield "ambi_synth_geometric_letter", _letter_record(ctx, i, stim, image)
        yield "ambi_synth_description", _description_record(i, stim, image)
        ctx.tick()
