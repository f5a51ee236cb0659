"""The flat action space shared by every preset.

| actions  | meaning                                              |
|----------|------------------------------------------------------|
| 0 - 52   | play a card of that kind (``suit * 13 + rank``; 52 is a Joker) |
| 53 - 56  | name a suit after a wild: clubs, diamonds, hearts, spades |
| 57       | draw (only when the rules make a draw the move)      |
| 58       | announce "one card"                                  |
| 59       | pass (zimbabwe): end the turn after drawing, or when nothing can be drawn; |
|          | or take the skip of a 7 rather than pass it on                |
| 60       | reverse permanent (zimbabwe J): play reverses until the next J |
| 61       | reverse once (zimbabwe J): reversed for the previous player's turn only |
| 62       | stop (zimbabwe): play no more cards of the rank just played   |
"""

from __future__ import annotations

import numpy as np

from .cards import NUM_KINDS, SUITS, card_code, parse_card

PLAY = 0
SUIT = NUM_KINDS
DRAW = SUIT + 4
ANNOUNCE = DRAW + 1
PASS = ANNOUNCE + 1
REVERSE_PERMANENT = PASS + 1
REVERSE_ONCE = REVERSE_PERMANENT + 1
STOP = REVERSE_ONCE + 1
NUM_ACTIONS = STOP + 1

# The actions that are one or two words, by id.
_WORDS = {
    DRAW: "draw",
    ANNOUNCE: "announce",
    PASS: "pass",
    REVERSE_PERMANENT: "reverse permanent",
    REVERSE_ONCE: "reverse once",
    STOP: "stop",
}
_BY_WORDS = {words: action for action, words in _WORDS.items()}


def action_name(action: int) -> str:
    """``"play 8S"``, ``"suit H"``, ``"draw"``, ``"announce"``, ``"pass"``, ``"reverse
    permanent"``, ``"reverse once"`` or ``"stop"``."""
    if not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"not an action: {action!r} (valid: 0..{NUM_ACTIONS - 1})")
    if action < SUIT:
        return "play " + card_code(action - PLAY)
    if action < DRAW:
        return "suit " + SUITS[action - SUIT]
    return _WORDS[action]


def parse_action(text: str) -> int:
    """Inverse of :func:`action_name`; raises ``ValueError`` naming the text and the valid forms."""
    words = text.strip().split() if isinstance(text, str) else []
    verb = words[0].lower() if words else ""
    phrase = " ".join(w.lower() for w in words)
    if phrase in _BY_WORDS:
        return _BY_WORDS[phrase]
    if verb == "play" and len(words) == 2:
        return PLAY + parse_card(words[1])
    if verb == "suit" and len(words) == 2 and words[1].upper() in SUITS:
        return SUIT + SUITS.index(words[1].upper())
    raise ValueError(
        f"bad action {text!r}: valid forms are 'play <card>' (e.g. 'play 8S'), "
        "'suit <C|D|H|S>', " + ", ".join(f"'{w}'" for w in _WORDS.values())
    )


def legal_actions(action_mask: np.ndarray) -> np.ndarray:
    """The legal action ids of a mask; an all-zero mask means the player was asked out of
    turn."""
    legal = np.flatnonzero(action_mask)
    if legal.size == 0:
        raise ValueError("the action mask allows nothing: this agent is not the one to act")
    return legal


def random_legal_action(rng: np.random.Generator, action_mask: np.ndarray) -> int:
    """A legal action of the mask, uniformly at random from ``rng``: the same draw as
    ``rng.choice(legal)``, without its overhead (a self-play hot path)."""
    legal = legal_actions(action_mask)
    return int(legal[rng.integers(len(legal))])
