"""Free text of players (seat names, undo reasons): one line of text that can be seen.

Three rules, each judged on Unicode properties (the ``regex`` package's ``\\p{…}`` classes,
with its own, current Unicode data) rather than on a hand-kept list of look-alikes:

1. No character of :data:`TEXT_REFUSED` anywhere: controls, bidi controls and the invisible
   format characters (the list the contract's text patterns are made of).
2. At least one *visible* character: a letter, digit, punctuation mark or symbol
   (``\\p{L}``, ``\\p{N}``, ``\\p{P}``, ``\\p{S}``) that is not a Default_Ignorable_Code_Point
   and not one of :data:`BLANK_GRAPHICS`. So spaces (``Zs``), marks alone (``M``), private-use
   (``Co``), unassigned (``Cn``) and format (``Cf``) characters never make a text visible, nor
   do the Hangul fillers U+115F, U+1160, U+3164, U+FFA0 (letters, ``Lo``, but
   Default_Ignorable) or the variation selectors (U+FE0F).
3. At most :data:`MAX_MARKS` combining marks (``\\p{M}``) on one character: a run of marks,
   in which default-ignorable and format characters (a joiner, a Hangul filler) count as
   nothing, may be at most that long. Real scripts need up to three or four (Vietnamese,
   Hebrew points with cantillation, Tibetan stacks, a keycap emoji ``1️⃣``); "Zalgo" text
   stacks dozens.

No Unicode property says that a graphic character is drawn without ink, so rule 2 needs
one small, closed list: :data:`BLANK_GRAPHICS`, the symbols (``So``) whose code charts show
an empty cell. Names are shown, never compared: text is kept as sent (not normalized).
"""

from __future__ import annotations

import re

import regex

# Characters refused in free text anywhere, as a regex class body: C0 and C1 controls (NUL,
# BEL, TAB, LF, DEL, ...), the soft hyphen, the Arabic letter mark, the Mongolian vowel
# separator, zero-width space, LRM/RLM, the line and paragraph separators, the bidi
# embeddings and overrides (U+202A-U+202E), the word joiner, invisible operators and bidi
# isolates (U+2060-U+206F), the byte order mark, the interlinear annotation characters, the
# noncharacters U+FFFE/U+FFFF, lone surrogates and the tag characters (U+E0000-U+E007F,
# invisible ASCII look-alikes). Zero-width (non-)joiners U+200C/U+200D stay allowed: emoji
# sequences and several scripts need them. The first two lines are the BMP part, which
# the contract's text patterns are made of (service.api.schemas.TEXT_PATTERN).
TEXT_REFUSED = (
    r"\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b\u200e\u200f\u2028-\u202e"
    r"\u2060-\u206f\ufeff\ufff9-\ufffb\ufffe\uffff"
    r"\ud800-\udfff\U000e0000-\U000e007f"
)

# Graphic characters (General_Category So) drawn as an empty cell: U+2800 BRAILLE PATTERN
# BLANK (the Braille cell with no dot raised), U+1D159 MUSICAL SYMBOL NULL NOTEHEAD (a
# spacing placeholder) and U+FFFC OBJECT REPLACEMENT CHARACTER (stands for an object that
# plain text does not hold; shown as nothing or as an empty box). None of them makes a
# text visible; next to visible characters they are allowed.
BLANK_GRAPHICS = "\u2800\U0001d159\ufffc"

MAX_MARKS = 4  # combining marks on one character

_REFUSED_CHAR = re.compile(f"[{TEXT_REFUSED}]")  # the standard re: 30x faster here
_VISIBLE = regex.compile(
    rf"(?V1)[[\p{{L}}\p{{N}}\p{{P}}\p{{S}}]--[\p{{Default_Ignorable_Code_Point}}{BLANK_GRAPHICS}]]"
)
# MAX_MARKS + 1 marks with only ignorable characters between them. The classes are
# disjoint and the inner repeat possessive: linear time, no backtracking.
_TOO_MANY_MARKS = regex.compile(
    rf"(?V1)\p{{M}}(?:[[\p{{Default_Ignorable_Code_Point}}\p{{Cf}}]--\p{{M}}]*+\p{{M}}){{{MAX_MARKS}}}"
)


def text_problem(value: str) -> str | None:
    """Why ``value`` is not acceptable free text (the module's three rules), or None."""
    bad = _REFUSED_CHAR.search(value)
    if bad is not None:
        return (
            f"character U+{ord(bad.group()):04X} at index {bad.start()} is not allowed "
            "(control, bidi control or invisible format character)"
        )
    if _VISIBLE.search(value) is None:
        return (
            "must contain a visible character (a letter, digit, punctuation mark or symbol; "
            "spaces, fillers, private-use and blank characters are not)"
        )
    stacked = _TOO_MANY_MARKS.search(value)
    if stacked is not None:
        return (
            f"more than {MAX_MARKS} combining marks on one character (from index {stacked.start()})"
        )
    return None
