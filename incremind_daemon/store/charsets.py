"""Which characters are Chinese, Japanese or Korean: the ranges every part of incremind agrees on.

Each constant is the inside of a regex character class (``f"[{CJK}]"``), so a
module can combine them with its own characters.
"""

from __future__ import annotations

import re

HAN_BASIC = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Extension A, the unified block, compatibility
HAN_SUPPLEMENTARY = "\U00020000-\U0003134f"  # Extensions B to G: rare, but names and classics use them
HAN = HAN_BASIC + HAN_SUPPLEMENTARY
KANA = "\u3040-\u30ff\u31f0-\u31ff"
HANGUL = "\uac00-\ud7af"  # syllables
CJK = HAN + KANA + HANGUL
WIDE_PUNCTUATION = "\u3000-\u303f\uff00-\uffef"  # 。，「」 and full-width forms

CJK_CHAR = re.compile(f"[{CJK}]")
