"""Free text that looks blank is refused (issue 21, point 10): the rules of service.text.

Given a seat name or undo reason, when it is judged, then text made only of fillers, blank
symbols, variation selectors, private-use or unassigned characters, or a character under
more than four combining marks, has a problem; real names in many scripts have none.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.text import BLANK_GRAPHICS, MAX_MARKS, text_problem

# Each alone, repeated, and between spaces: never visible.
LOOKS_BLANK = {
    "U+3164 HANGUL FILLER": "\u3164",
    "U+115F HANGUL CHOSEONG FILLER": "\u115f",
    "U+1160 HANGUL JUNGSEONG FILLER": "\u1160",
    "U+FFA0 HALFWIDTH HANGUL FILLER": "\uffa0",
    "U+2800 BRAILLE PATTERN BLANK": "\u2800",
    "U+FE0F VARIATION SELECTOR-16": "\ufe0f",
    "U+FFFC OBJECT REPLACEMENT CHARACTER": "\ufffc",
    "U+1D159 MUSICAL SYMBOL NULL NOTEHEAD": "\U0001d159",
    "U+E000 private use": "\ue000",
    "U+F8FF private use": "\uf8ff",
    "U+F0000 private use (plane 15)": "\U000f0000",
    "U+10FFFD private use (plane 16)": "\U0010fffd",
    "U+0378 unassigned": "\u0378",
    "U+0301 a combining mark alone": "\u0301",
    "U+00A0 no-break space": "\u00a0",
    "U+3000 ideographic space": "\u3000",
}


@pytest.mark.parametrize("char", LOOKS_BLANK.values(), ids=LOOKS_BLANK.keys())
@pytest.mark.parametrize("shape", ["{c}", "{c}{c}{c}", " {c} ", "{c}\u200d{c}"])
def test_text_made_only_of_a_blank_looking_character_is_refused(char: str, shape: str) -> None:
    problem = text_problem(shape.format(c=char))
    assert problem is not None and "visible" in problem


def test_blank_looking_characters_mixed_together_are_refused() -> None:
    assert text_problem("".join(LOOKS_BLANK.values())) is not None


def test_the_blank_graphics_are_allowed_next_to_a_visible_character() -> None:
    # they are refused as the only content, not as content: a name may hold them
    for char in BLANK_GRAPHICS:
        assert text_problem(f"Ann{char}") is None


@pytest.mark.parametrize("marks", [MAX_MARKS + 1, 39, 200])
def test_a_letter_under_more_than_four_combining_marks_is_refused(marks: int) -> None:
    problem = text_problem("a" + "\u0301" * marks)
    assert problem is not None and "combining marks" in problem


def test_four_combining_marks_on_a_letter_are_allowed() -> None:
    assert text_problem("a" + "\u0301\u0302\u0303\u0304"[:MAX_MARKS] + "b") is None


@pytest.mark.parametrize("between", ["\u200d", "\u200c", "\u3164", "\ufe0f\u200d"])
def test_invisible_characters_between_the_marks_do_not_reset_the_count(between: str) -> None:
    # a joiner or a filler after each mark still stacks them on the same letter
    stacked = "a" + ("\u0301" + between) * (MAX_MARKS + 1)
    assert text_problem(stacked) is not None


def test_marks_spread_over_several_letters_are_allowed() -> None:
    assert text_problem(("e\u0301\u0302" * 10)[:40]) is None


ACCEPTED = [
    # Hungarian
    "Szőke Árpád",
    "Gárdonyi Géza",
    "Kőrösi Csoma Sándor",
    # German
    "Jürgen Weiß",
    "Ötzi Müller-Lüdenscheidt",
    # Italian
    "Niccolò",
    "Perché Sì",
    # CJK
    "张伟",
    "山田太郎",
    "김민준",
    "ｶﾀｶﾅ",
    # emoji: a ZWJ family, a flag sequence with VS16, a keycap, a skin tone
    "👩\u200d👩\u200d👧",
    "🏳\ufe0f\u200d🌈",
    "1\ufe0f\u20e3",
    "👍🏽",
    "❤\ufe0f",
    # scripts with marks: Vietnamese (decomposed), Hebrew points, Tibetan stack, Devanagari
    "Tie\u0302\u0301ng Vie\u0323\u0302t",
    "שָׁלוֹם",
    "བསྒྲུབས",
    "क्षत्रिय",
    "สวัสดี",
    "می\u200cخواهم",
    # short ones
    ".",
    "7",
    "A",
]


@pytest.mark.parametrize("name", ACCEPTED)
def test_real_names_in_many_scripts_are_accepted(name: str) -> None:
    assert text_problem(name) is None


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    st.text(
        alphabet=st.characters(categories=["Lu", "Ll", "Nd", "Po", "Sm"]), min_size=1, max_size=40
    )
)
def test_letters_digits_punctuation_and_symbols_are_always_visible(name: str) -> None:
    # given any text of letters, digits, punctuation and maths symbols (none of them
    # default-ignorable or blank), when judged, then it has no problem
    assert text_problem(name) is None
