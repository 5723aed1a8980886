"""Generated English answer/reference pairs for the parity tests and the benchmark (seeded, no data files)."""

from __future__ import annotations

import random

WORDS = (
    "the a an The A An THE of in on at to for with by from and or but not is was are were be been "
    "Paris France Eiffel tower river Seine city capital population million people built 1889 year "
    "running runs ran runner studies studied studying connection connected connecting happily happiness "
    "generalization generalizations organizational relational conditional agreed agreement feed feeding "
    "cats cat dogs dog ponies caresses abilities meeting meetings hopeful hopefulness electrical "
    "3.5 42 1,000 $20 100% U.S. e-mail don't it's o'clock well-known co-operate rock'n'roll x86_64 C++ "
    "answer question model retrieval evaluation metric score system document passage generation"
).split()
PUNCT = ["", "", "", "", ",", ".", "!", "?", ";", ":", "'", '"', "(", ")", "-", "--", "...", "/", "&", "#", "*", "~", "`", "|", "^", "<", ">", "=", "+", "@", "[", "]", "{", "}", "\\", "_"]
SPACES = [" ", " ", " ", " ", "  ", "\t", "\n", " \n "]


def sentence(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        word = rng.choice(WORDS)
        if rng.random() < 0.2:
            word = word.upper() if rng.random() < 0.5 else word.capitalize()
        if rng.random() < 0.25:
            word = word + rng.choice(PUNCT)
        if rng.random() < 0.08:
            word = rng.choice(PUNCT) + word
        out.append(word)
    return out


def join(rng: random.Random, words: list[str]) -> str:
    text = ""
    for i, w in enumerate(words):
        text += (rng.choice(SPACES) if i else "") + w
    return text


def perturb(rng: random.Random, words: list[str]) -> list[str]:
    """A reference near the prediction: words dropped, replaced, inserted and a span moved."""
    out = []
    for w in words:
        r = rng.random()
        if r < 0.15:
            continue
        if r < 0.3:
            out.append(rng.choice(WORDS))
        else:
            out.append(w)
        if rng.random() < 0.1:
            out.append(rng.choice(WORDS))
    if len(out) > 4 and rng.random() < 0.5:
        i = rng.randrange(len(out))
        j = rng.randrange(len(out))
        span = out[i:i + 3]
        del out[i:i + 3]
        out[j:j] = span
    return out


def pairs(count: int, seed: int = 12, min_words: int = 0, max_words: int = 25) -> list[tuple[str, str]]:
    """``count`` (prediction, reference) pairs: related, unrelated, equal up to normalisation, or empty."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        words = sentence(rng, rng.randint(min_words, max_words))
        kind = rng.random()
        if kind < 0.6:
            other = perturb(rng, words)
        elif kind < 0.75:
            other = sentence(rng, rng.randint(min_words, max_words))
        elif kind < 0.9:
            other = [w.lower() if rng.random() < 0.5 else w for w in words]
        else:
            other = words[: rng.randint(0, 3)]
        out.append((join(rng, words), join(rng, other)))
    return out
