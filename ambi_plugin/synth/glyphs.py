"""Glyph rendering: text masks from Pillow's bundled font, a 5x7 block alphabet, and Navon figures.

Text uses ``ImageFont.load_default(size)`` (the Aileron font shipped inside Pillow), so no system
font is needed and the suite works offline. Glyphs are thresholded to binary masks, so every glyph
pixel has exactly its fill color.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .imaging import crop_to_content

# 5 x 7 block letters for the global layer of Navon figures ('#' = a local letter goes there).
BLOCK_LETTERS: dict[str, tuple[str, ...]] = {
    "A": (".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"),
    "C": (".####", "#....", "#....", "#....", "#....", "#....", ".####"),
    "E": ("#####", "#....", "#....", "####.", "#....", "#....", "#####"),
    "F": ("#####", "#....", "#....", "####.", "#....", "#....", "#...."),
    "H": ("#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"),
    "K": ("#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"),
    "L": ("#....", "#....", "#....", "#....", "#....", "#....", "#####"),
    "N": ("#...#", "##..#", "##..#", "#.#.#", "#..##", "#..##", "#...#"),
    "P": ("####.", "#...#", "#...#", "####.", "#....", "#....", "#...."),
    "S": (".####", "#....", "#....", ".###.", "....#", "....#", "####."),
    "T": ("#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."),
    "U": ("#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."),
    "X": ("#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"),
    "Z": ("#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"),
}
NAVON_LETTERS = tuple(BLOCK_LETTERS)


def letter_label(letter: str) -> str:
    """Matcher label of a letter, e.g. ``"letter h|h"``."""
    low = letter.lower()
    return f"letter {low}|{low}"


@lru_cache(maxsize=64)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


@lru_cache(maxsize=256)
def _text_mask(text: str, size: int) -> np.ndarray:
    img = Image.new("L", (size * (len(text) + 2), size * 3), 0)
    ImageDraw.Draw(img).text((size // 2, size // 2), text, font=_font(size), fill=255)
    # a copy, not a view: a view would keep the whole uncropped canvas alive in the cache (~25x the mask)
    mask = crop_to_content(np.asarray(img) > 127).copy()
    mask.setflags(write=False)
    return mask


def text_mask(text: str, size: int) -> np.ndarray:
    """Binary mask of ``text`` rendered at font size ``size``, cropped to the ink."""
    return _text_mask(text, size).copy()


def block_letter(letter: str) -> np.ndarray:
    """The 7 x 5 boolean grid of a block letter."""
    try:
        rows = BLOCK_LETTERS[letter]
    except KeyError:
        raise ValueError(f"no block letter {letter!r}; available: {''.join(NAVON_LETTERS)}") from None
    return np.array([[ch == "#" for ch in row] for row in rows], dtype=bool)


def navon_mask(global_letter: str, local_letter: str, cell: int) -> np.ndarray:
    """Mask of a Navon figure: ``global_letter`` laid out on a 5 x 7 grid of ``cell``-pixel cells,
    each filled cell holding one small ``local_letter`` centred in it."""
    if global_letter == local_letter:
        raise ValueError("a Navon figure needs different global and local letters")
    grid = block_letter(global_letter)
    glyph = text_mask(local_letter, max(6, int(cell * 1.2)))
    gh, gw = glyph.shape
    if gh > cell or gw > cell:
        glyph = glyph[:cell, :cell]
        gh, gw = glyph.shape
    out = np.zeros((grid.shape[0] * cell, grid.shape[1] * cell), dtype=bool)
    for r, c in zip(*np.nonzero(grid), strict=True):
        y = int(r) * cell + (cell - gh) // 2
        x = int(c) * cell + (cell - gw) // 2
        out[y : y + gh, x : x + gw] |= glyph
    return out


def pick_navon_pair(rng: np.random.Generator) -> tuple[str, str]:
    """A (global, local) pair of different letters."""
    g, loc = rng.choice(len(NAVON_LETTERS), size=2, replace=False)
    return NAVON_LETTERS[int(g)], NAVON_LETTERS[int(loc)]
