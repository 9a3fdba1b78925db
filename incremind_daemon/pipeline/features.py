"""What a text names, as weighted features both languages share: words, numbers and concepts.

Latin words are lightly stemmed; Chinese words come from jieba plus the character bigrams
of each run (so a different segmentation still overlaps); numbers are kept with the words
beside them (their unit), and a date or a time of day is one value however it is written
("3/14", "March 14", "3 月 14 日"; "23:00", "11 pm"); a small bilingual concept map (复习 =
review, 间隔 = interval, a list of days = an interval schedule) lets the two languages meet
on common ground. Similarity is the weighted Dice overlap of two texts' features. ``keys_of``
picks the named things: Latin words, numbers and concepts, which decide whether two
statements say the same.
"""

from __future__ import annotations

import functools
import itertools
import logging
import re
from dataclasses import dataclass

from incremind_daemon.pipeline.cues import fold, wordset
from incremind_daemon.store.charsets import HAN
from incremind_daemon.store.glossary import CONCEPT as _CONCEPT
from incremind_daemon.store.glossary import CONCEPT_NAMES as CONCEPT_NAMES
from incremind_daemon.store.glossary import SURFACES as _SURFACES
from incremind_daemon.store.glossary import stem as _stem
from incremind_daemon.store.tokenizer import STOPWORDS, iter_tokens

log = logging.getLogger(__name__)

_BIGRAM_WEIGHT = 0.25
_SINGLE_WEIGHT = 0.5


# fmt: off
_STANCE_WORDS = wordset(
    "fixed adjust coarse wrong always never avoid stop instead rather longer too better worse must should "
    "总是 从不 避免 停止 而不是 不是 并不是 不再 应该 必须 太 更好 更差 不要 别"
)
# Words that carry no topic: in a negation's scope, "don't *use* pip" is about pip.
_GENERIC = wordset(
    "use using used make do does get go put keep run have has need want try take set also just then now "
    "mean means called one thing things way it's that's there's i'm we're you're "
    "decision decided decide plan plans change changed switch switched let's go going now here repo project "
    "slip slipped slips pushed moved postponed delayed bumped replaced back until further notice new "
    "codebase always never please pls just still again stay stays keep keeps "
    "before after over under into onto about above below yourself myself itself ourselves each every "
    "btw pls plz thx thanks ok okay yeah same so then already like got goes went gone told said "
    "anything everything something but let lets see show tell give "
    "don't doesn't isn't aren't not no can't dont doesnt isnt arent cant ever even "
    # a currency's code is the unit of an amount, not what it is of ("KES 18,500" of school fees)
    "usd eur gbp kes ugx tzs ngn zar inr cny rmb jpy krw sgd hkd twd myr thb aud nzd cad chf sek nok dkk "
    "用 使用 做 进行 一下 时候 这样 那样 还是 就是 需要 可以 应该 一些 一个 时先 再 先 之前 以前 之后 以后 每次 都是 "
    "我都 已经 现在 然后 只在 都要 要先 统一 一遍 全部 所有 通过 以内 之内"
)
# fmt: on
_FUNCTION_CHARS = frozenset(
    "的了是在和与及也都就把被让给对从向之其这那有要会能而或并且但如若则即等着过得地很更最再才又还"
)


_NUMBER = re.compile(r"\d+(?:\.\d+)*")
# a number written with thousands separators is one number: "€1,989", "RM 1,200" (not a list: "1,2,3")
_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])")
_SPLIT_WORD = re.compile(r"_|\d-?[a-z]|[a-z]\d")
# a lockfile names the tool that writes it: "poetry.lock", "Cargo.lock", "pnpm-lock.yaml", "package-lock.json" (npm's)
_LOCKFILE = re.compile(r"([a-z][\w-]*?)(?:\.lock|-lock\.(?:ya?ml|json))")
_PARTS = re.compile(r"\d+(?:\.\d+)*|[a-z]+")
# a number and its unit in one word: "8ms", "30-day", "5-minute"
_MEASURE = re.compile(r"(\d+(?:\.\d+)?)([a-z]{1,3}|-[a-z]{2,12})")
# the version in an address is the host's value: "https://api-staging.kopiloka.sg/v2" against ".../v3"
_ADDRESS_VERSION = re.compile(r"(?<![\w.-])([a-z0-9-]+(?:\.[a-z0-9-]+)+)/(?:[\w-]+/)*v(\d+(?:\.\d+)*)(?![\w.])")
# a segment of "gpu-a07" or "api.v2" with letters and digits names the thing itself, so "a07" meets "gpu-a07"
_NAMED_SEGMENT = re.compile(r"(?<![a-z0-9])(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{2,}(?![a-z0-9])")
_HAN = re.compile(f"[{HAN}]")
# "days 1, 2, 4, 7, 15" and "第 1、2、4、7、15 天" are interval schedules, whatever else they say
_DAY_LIST = re.compile(r"(?:days?|第)\s*\d+(?:\s*(?:,|、|，|and|和|及)\s*\d+){2,}|every \d+ days?|每(?:隔)?\s*\d+\s*天")


@dataclass(frozen=True, slots=True)
class Features:
    weights: dict[str, float]  # feature -> weight; a feature is a word, a bigram, a number or a concept
    topical: frozenset[str]  # features that name what the text is about (no stance, no generic verb)
    # a word beside numbers -> those numbers ("port" -> {"#8080"}); "@date", "@clock" -> the dates and times
    units: dict[str, frozenset[str]]
    # the words of ``units`` that stand before their numbers ("每页 24"), not only after them ("20 个交易日")
    leading: frozenset[str] = frozenset()

    @property
    def total(self) -> float:
        return sum(self.weights.values())


_CN_NUMBER = re.compile(r"[零一二两三四五六七八九十百千万]+(?=分钟|[天个次小秒公元块点周杯遍页章行字倍度岁年号条人])")
_EN_NUMBERS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
# "five minutes" meets "5 minutes" and "5 分钟"; "one" is as often a pronoun ("start one per test") as a count
_EN_NUMBER = re.compile(rf"(?<![a-z-])({'|'.join(_EN_NUMBERS)})(?:-|(?![a-z]))")
_CN_DIGIT = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2}
_CN_UNIT = {"十": 10, "百": 100, "千": 1000, "万": 10000}


# how many things a list names, which is no value of the last one: "scope 就 app 和 server 两个", "town 只看
# Tampines、Bedok、Pasir Ris 三个"
_LISTED_COUNT = re.compile(r"([和与及、][^，。,;；]{1,40}?)\s*[两二三四五六七八九十]\s*个(?=\s*(?:都|$|[，。,;；]))")


def _arabic(match: re.Match[str]) -> str:
    """Return a Chinese numeral such as 二十 or 两千五百 in digits, so 五公里 meets 5 公里."""
    numeral = match.group()
    if numeral == "一" or any(a in _CN_DIGIT and b in _CN_DIGIT for a, b in itertools.pairwise(numeral)):
        return numeral  # 一周 "a week"; 唯一一个 "the only one": no numeral has two digits in a row
    total = section = digit = 0
    for char in numeral:
        if char in _CN_DIGIT:
            digit = _CN_DIGIT[char]
        elif char == "万":
            total, section, digit = (total + section + digit) * 10000, 0, 0
        else:
            section += (digit or 1) * _CN_UNIT[char]
            digit = 0
    return f" {total + section + digit} "


_MONTH = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# a date however it is written ("3/14", "2026-03-14", "3 月 14 日", "March 14th", "14 Mar") and a time of day
_DATE = re.compile(
    rf"(?<![\d/.:])(?:\d{{4}}[-/.])?(?P<m>\d{{1,2}})/(?P<d>\d{{1,2}})(?![\d/:]|\.\d)"
    rf"|(?<![\d.])\d{{4}}-(?P<im>\d{{1,2}})-(?P<id>\d{{1,2}})(?!\d)"
    rf"|(?<![\d.])(?P<cm>\d{{1,2}})\s*月\s*(?P<cd>\d{{1,2}})\s*[日号]?"
    rf"|(?<![a-z])(?P<month>{_MONTH})\.?\s+(?P<md>\d{{1,2}})(?:st|nd|rd|th)?(?![\d:])"
    rf"|(?<![\d.])(?P<dm>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<month2>{_MONTH})(?![a-z])"
)
_CLOCK = re.compile(
    r"(?<![\d:.])(?P<h>\d{1,2})(?::(?P<min>\d{2})(?![\d:])(?:\s*[ap]\.?m\b\.?)?|\s*[ap]\.?m\b\.?)"
    r"|(?P<part>上午|早上|中午|下午|晚上)?\s*(?P<ch>\d{1,2})\s*点(?:\s*(?P<half>半)|\s*(?P<cmin>\d{1,2})\s*分)?"
)
_DATE_UNIT, _CLOCK_UNIT = "@date", "@clock"  # units of the values above, whatever words stand beside them


def names_a_day(text: str) -> bool:
    """Tell whether a text names a calendar day ("3/20", "10 月 24 日", "2027-01-03", "16 Apr"), not a weekday."""
    return _DATE.search(text.casefold()) is not None


def _dated(text: str, values: dict[str, set[str]]) -> str:
    """Blank out the dates and times of day in text, noting each one, as "#3/14" or "#9:30", in values."""

    def date(match: re.Match[str]) -> str:
        named = _group(match, "month", "month2")
        month = _MONTHS.index(named[:3]) + 1 if named else int(_group(match, "m", "im", "cm"))
        day = int(_group(match, "d", "id", "cd", "md", "dm"))
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return match.group()
        values.setdefault(_DATE_UNIT, set()).add(f"#{month}/{day}")
        return " "

    def clock(match: re.Match[str]) -> str:
        hour = int(_group(match, "h", "ch"))
        minute = 30 if match.group("half") else int(_group(match, "min", "cmin") or 0)
        if hour > 24 or minute > 59:
            return match.group()
        # on a twelve-hour dial: "11 pm", "23:00" and "11 点" (said of bedtime) are one time
        values.setdefault(_CLOCK_UNIT, set()).add(f"#{(hour - 1) % 12 + 1}:{minute:02d}")
        return f" {match.group('part') or ''} "

    return _CLOCK.sub(clock, _DATE.sub(date, text))


def _group(match: re.Match[str], *names: str) -> str:
    """Return the first of the named groups that took part in the match."""
    return next((found for name in names if (found := match.group(name))), "")


@functools.lru_cache(maxsize=4096)
def features_of(text: str) -> Features:
    typed: dict[str, set[str]] = {}
    text = _LISTED_COUNT.sub(r"\1", fold(text))
    text = _THOUSANDS.sub(lambda found: found.group().replace(",", ""), _CN_NUMBER.sub(_arabic, text))
    for host, versions in _versions_in(text).items():
        typed.setdefault(host, set()).update(versions)
    text = _dated(_EN_NUMBER.sub(lambda m: f" {_EN_NUMBERS.index(m.group(1)) + 2} ", text), typed)
    weights: dict[str, float] = dict.fromkeys((value for values in typed.values() for value in values), 1.0)
    sequence: list[str] = []  # one entry per token: its feature, or "" when it has none
    previous_end = -1
    run: list[str] = []
    for token in iter_tokens(text, for_query=True):
        word = token.text
        if _HAN.match(word):
            # bigrams across a CJK run bridge different segmentations of the same words ("转成本地" as 成本 + 地)
            run = [*run, word] if token.start == previous_end and run else [word]
            if len(run) > 1:
                joined = run[-2][-1] + word[0]
                weights.setdefault(_CONCEPT.get(joined, joined), _BIGRAM_WEIGHT)
            feature = _cjk_feature(word, weights)
        else:
            run = []
            feature = _latin_feature(word)
            # "8ms" is "8 ms", "max_batch" is "max batch": each part counts as the other spelling's would
            parts = _PARTS.findall(word) if _SPLIT_WORD.search(word) else []
            locked = _LOCKFILE.fullmatch(word)
            if locked:
                parts.append("npm" if locked.group(1) == "package" else locked.group(1))
            for part in (*parts, *_NAMED_SEGMENT.findall(word)):
                part_feature = _latin_feature(part)
                if part_feature and part_feature != feature:
                    weights.setdefault(part_feature, _SINGLE_WEIGHT)
        previous_end = token.end
        if feature:
            weights[feature] = max(weights.get(feature, 0.0), _SINGLE_WEIGHT if len(feature) == 1 else 1.0)
        measured = _MEASURE.fullmatch(word)
        # "from 5ms to 8ms" gives ms two values, as "5 ms" would
        sequence.extend(
            ("#" + measured.group(1), _latin_feature(measured.group(2).lstrip("-"))) if measured else (feature,)
        )
    if _DAY_LIST.search(text):
        weights["interval"] = 1.0
    topical = frozenset(f for f in weights if f not in _STANCE_WORDS and f not in _GENERIC and len(f) > 1)
    units, leading = _units(sequence)
    units |= {unit: frozenset(values) for unit, values in typed.items()}
    return Features(weights, topical, units, leading | frozenset(typed))


def address_versions(text: str) -> dict[str, frozenset[str]]:
    """Map each host a text gives a versioned address of to its versions: "…kopiloka.sg/v2" -> {"#2"}."""
    return _versions_in(fold(text))


def _versions_in(folded: str) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for host, version in _ADDRESS_VERSION.findall(folded):
        out.setdefault(_latin_feature(host), set()).add("#" + version)
    return {host: frozenset(versions) for host, versions in out.items()}


def _cjk_feature(word: str, weights: dict[str, float]) -> str:
    if word in _CONCEPT:
        return _CONCEPT[word]
    if len(word) == 1:
        return "" if word in _FUNCTION_CHARS else word
    if word in _GENERIC or word in STOPWORDS:
        return ""
    if len(word) > 2:
        for i in range(len(word) - 1):
            bigram = word[i : i + 2]
            weights.setdefault(_CONCEPT.get(bigram, bigram), _BIGRAM_WEIGHT)
    return word


def _latin_feature(word: str) -> str:
    if _NUMBER.fullmatch(word):
        return "#" + word
    if _NUMBER.fullmatch(word.removesuffix(".x")):
        return "#" + word[:-2]  # "android 8.x" is Android 8
    if word in STOPWORDS or word in _GENERIC:
        return ""
    stem = _stem(word)
    return _CONCEPT.get(stem) or _CONCEPT.get(stem + "e", stem)  # "cached", "releasing": cache, release


# words that compare an amount with a bound say nothing of what the amount counts
_COMPARING = frozenset(
    {"超过", "超出", "大于", "小于", "低于", "高于", "不超过", "不到", "至少", "最多", "以上", "以下", "以内", "之内"}
    | {"exceed", "exceeds", "exceeding", "above", "below"}
)


def _units(sequence: list[str]) -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """Map the two words on either side of a run of numbers to the numbers of that run; and those before it.

    Words without a feature ("to", "的") are passed over, as far as four tokens; a run goes on
    past one of them ("1, 2 and 4"), not two: in "clip at 1.0 for the 4096 batch" the two
    numbers are of different things.
    """
    units: dict[str, set[str]] = {}
    leading: set[str] = set()
    i = 0
    while i < len(sequence):
        if not sequence[i].startswith("#"):
            i += 1
            continue
        j = i + 1
        while j < len(sequence) and _continues_run(sequence, j):
            j += 1
        numbers = {n for n in sequence[i:j] if n}
        before = _beside(sequence[max(0, i - 4) : i][::-1])
        for word in (*before, *_beside(sequence[j : j + 4])):
            if word not in _COMPARING:  # "超过 5 个文件" and "超过 0.5%" count different things
                units.setdefault(word, set()).update(numbers)
                if word in before:
                    leading.add(word)
        i = j
    return {word: frozenset(numbers) for word, numbers in units.items()}, frozenset(leading)


def _beside(nearest_first: list[str]) -> list[str]:
    """Return the first two words, up to another number; a lone character ("升", "到") is not a unit."""
    words: list[str] = []
    for word in nearest_first:
        if word.startswith("#") or len(words) == 2:
            break
        if len(word) > 1:
            words.append(word)
    return words


def _continues_run(sequence: list[str], j: int) -> bool:
    if sequence[j].startswith("#"):
        return True
    return not sequence[j] and j + 1 < len(sequence) and sequence[j + 1].startswith("#")


def bridge_words(text: str) -> list[str]:
    """Return the words of both languages for the concepts a text names, to find neighbours across languages.

    "switch the database to SQLite" also looks for 数据库, so a known "数据库就用 Postgres" is
    compared with it even when no vectors are there to bridge the languages.
    """
    names = [f for f in features_of(text).weights if f in _SURFACES]
    return [word for name in names for word in _SURFACES[name] if word not in text]


def similarity(a: str, b: str) -> float:
    """Return the lexical similarity of two texts in [0, 1], for Chinese, English and mixed text."""
    return dice(features_of(a), features_of(b))


def dice(a: Features, b: Features) -> float:
    total = a.total + b.total
    if total <= 0:
        return 0.0
    shared = sum(min(w, b.weights[f]) for f, w in a.weights.items() if f in b.weights)
    return min(1.0, 2 * shared / total)


def keys_of(features: Features) -> frozenset[str]:
    """Return the named things of a text: Latin words, numbers and bilingual concepts."""
    return frozenset(f for f in features.topical if f.isascii() and len(f) > 1)


_WORD = re.compile(r"[A-Za-z0-9](?:[\w+#-]|\.(?=\w))*")  # "stack." ends a sentence, "4.12.1" is a name


def names_in(text: str) -> frozenset[str]:
    """Return the features of the proper names in a text: capitalised inside a clause, camel case, or with digits.

    "Postgres", "TestMain", "gpu-a07" name a thing; "Skip" opening a sentence does not.
    """
    names: set[str] = set()
    for match in _WORD.finditer(text):
        word = match.group()
        before = text[: match.start()].rstrip()
        capitalised = word[0].isupper() and bool(before) and before[-1] not in ".!?;:，。！？；："
        if capitalised or any(c.isupper() for c in word[1:]) or any(c.isdigit() or c in "._-+#" for c in word):
            names.update(keys_of(features_of(word)))
    return frozenset(names)


def new_numbers(mine: Features, theirs: Features) -> bool:
    return bool(numbers_of(mine) - theirs.weights.keys())


def numbers_of(features: Features) -> frozenset[str]:
    return frozenset(f for f in features.weights if f.startswith("#"))


def closeness(text: str, other: str) -> float:
    """Return how near two texts are as relate() ranks known insights: similarity and named things shared."""
    mine, theirs = features_of(text), features_of(other)
    return dice(mine, theirs) + sharing(mine, theirs)


def sharing(mine: Features, theirs: Features) -> float:
    """Weigh the named things two texts share, and the ones both give a value for ("Terraform 1.9.8", "1.7.5")."""
    keys, their_keys = keys_of(mine), keys_of(theirs)
    if not their_keys:
        return 0.0
    shared = len(keys & their_keys)
    return 0.1 * (shared + _valued(mine, theirs)) + 0.1 * shared / len(their_keys)


def _valued(mine: Features, theirs: Features) -> int:
    """Count the named things, dates and times of day both give a value for."""
    keys = keys_of(mine)
    return sum(1 for unit in mine.units.keys() & theirs.units.keys() if unit in keys or unit.startswith("@"))
