"""The values a text gives, and whether two texts give one thing different values.

A value is a date, an hour, a weekday, an amount with its measure, a count, a month, or what a change word
sets ("组会改到周四下午 2 点", "bump the TTL to 300s"). Two texts give one thing different values when the
same thing is named beside each number and neither text's numbers hold the other's.
"""

from __future__ import annotations

import functools
import logging
import re

from incremind_daemon.pipeline.cues import MOVED_TO, bounded, fold
from incremind_daemon.pipeline.features import CONCEPT_NAMES, Features, features_of, keys_of, numbers_of

log = logging.getLogger(__name__)

_words = bounded  # the same bounds as lasting.words

# a word that sets a thing to a new value: what follows it is the value ("组会改到周四下午 2 点",
# "timeout 放宽到 180 秒", "cutting it to 10 min a day", "now due April 8")
VALUE_CHANGE = re.compile(
    _words(
        # (each verb in every form, as a note says it too: "dbt_daily moves to 04:00 EAT")
        r"(?:mov(?:e|es|ed|ing)|push(?:es|ed|ing)?|pull(?:s|ed|ing)?|bump(?:s|ed|ing)?|rais(?:e|es|ed|ing)"
        r"|increas(?:e|es|ed|ing)|lower(?:s|ed|ing)?|reduc(?:e|es|ed|ing)|cut(?:s|ting)?|drop(?:s|ped|ping)?"
        r"|extend(?:s|ed|ing)?|shorten(?:s|ed|ing)?|chang(?:e|es|ed|ing)|switch(?:es|ed|ing)?|reschedul(?:e|es|ed|ing)"
        r"|upgrad(?:e|es|ed|ing))"
        # "move the nightly run to 3:30", "Move tidewatch_daily_forecast to 04:00 SGT" (a job named as in code)
        # …or "raise the replica lag threshold to 120s"
        r"(?: (?:it|that|this|them|the [\w-]+(?: [\w-]+){0,2}?|[a-z][\w-]*_[\w.-]+|back|down|up"
        r"|over|forward))* to",
        r"(?:is|are) now(?: due| at| on| in)?",
        r"(?:is|are)(?= [\w.$€£¥-]*\d[^,;.]{0,30} now\b)",  # "the free plan is 50 orders a month now"
        r"(?:go|goes|going|went|gone) (?:down|up|back) to|(?:goes|went|gone) to(?= \d)",  # "goes to 27°C now"
        r"(?:go|goes|going|went|gone) from [^,;.]{1,24}? to",  # "the horizon goes from 28 to 42 days"
        r"now due",
        r"make (?:it|that|them)(?= [\w.$€£¥-]*\d)",  # "make it 5 attempts", "make that 30s"; not "make it work"
    )
    + f"|{MOVED_TO}"
    + r"|改成|改为|延到|放宽到|收紧到|调到|调成|调整到|调整为|提高到|降到|降低到|增加到|加到|减少到|减到|缩短到|延长到"
    r"|换到|改在|升到|升级到|升级成|降到|降级到|拷(?:贝)?到|复制到|设成|设为|设置成|设置为|改回(?![来去])"
    r"|改了去?(?=\s*(?:礼拜|周|星期|\d))"  # Cantonese's "改咗礼拜三晚"
    r"|(?<=[\d\s天个])(?:变成|变为)"  # "从 28 天变成 42 天"
    r"|现在(?:是|为|定为|统一为?)(?=\s*\d)"  # a value as it is now: "采样间隔现在是 900 秒"
    # a bare 改 before the new amount, and 设 after a setting's name: "改 15 分钟一轮", "busy_timeout 设 5 秒"
    r"|(?:^|(?<=[，,。；;]))\s*改\s*(?=\d)|(?:(?<=[a-z0-9_] )|(?<=[a-z0-9_]))设\s*(?=\d)"
    # …and a bare 改 (or 改约, rebooked) before a time of day or a weekday: "提醒時間改晚上 8 點半",
    # "抽血改約 12/2（三）"
    r"|改约|(?<![修更])改\s*(?=(?:早上|上午|中午|下午|晚上|凌晨|(?:周|星期|礼拜)[一二三四五六日天]))"
)
_VALUE_END = re.compile(r"[，。；;,!?！？\n]|\.(?!\d)|(?<![a-z])(?:not|instead|but|and)(?![a-z])|不是|而|但")
_MEASURE_UNITS = (
    ("ms", r"ms|毫秒"),
    ("second", r"s|secs?|seconds?|秒钟?"),
    ("minute", r"mins?|minutes?|分钟"),
    ("hour", r"h|hrs?|hours?|小时|个小时"),
    ("day", r"days?|天"),
    ("week", r"weeks?|周|星期|个星期"),
    ("month", r"months?|个月"),
    ("percent", r"%|percent|％"),
    ("size", r"[kmgt]i?b|[kmgt]"),
    ("pixel", r"px"),
    ("temperature", r"°\s?c|°\s?f|℃|℉|度"),
    ("money", r"元|块|rmb|usd|eur|dollars?|\$"),
)
_MEASURE = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*("
    + "|".join(f"(?P<{name}>{units})" for name, units in _MEASURE_UNITS)
    + r")(?![a-z])"
)
_WEEKDAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})


def _measures(folded: str) -> dict[str, frozenset[str]]:
    """Return the amounts a text gives per kind of measure: "180 秒" and "180 s" are {"second": {"180"}}."""
    found: dict[str, set[str]] = {}
    for match in _MEASURE.finditer(folded):
        kind = next(name for name, _ in _MEASURE_UNITS if match.group(name) is not None)
        found.setdefault(kind, set()).add(match.group(1))
    return {kind: frozenset(values) for kind, values in found.items()}


def measured_apart(one: str, other: str) -> bool:
    """Tell whether two texts give amounts of different measures only: "缓存 30 天" beside "cache capped at 500 MB"
    give the cache no values to compare."""
    mine, theirs = _measures(fold(one)), _measures(fold(other))
    return bool(mine and theirs) and not mine.keys() & theirs.keys()


# a count with no unit: "batch size 改做 200" beside "BATCH_SIZE 暂时用 50 先" (not a version, a date or an hour)
_COUNT = re.compile(r"(?<![\w.:/-])\d{1,6}(?![\w.:/%°℃-]|\s*(?:[/月日号点時时]|个?小时|分钟|秒|天|度|%))")
_NUMBERED = re.compile(r"(?<![\w.-])([a-z]{3,})(\d{1,3})(?![\w.-])")  # a thing numbered in its name: "gpu3"
_MONTH = re.compile(r"(?<![\w.:/-])20\d\d-[01]\d(?![\w.:/%-])")  # a month, an API's dated version: "2026-04"


def _values(features: Features, folded: str) -> dict[str, frozenset[str]]:
    """Return a text's values by kind: dates, times of day, days of the week, measured amounts and counts."""
    out = {unit: values for unit, values in features.units.items() if unit in ("@date", "@clock")}
    days = keys_of(features) & _WEEKDAYS
    if days:
        out["@weekday"] = days
    counts = frozenset(_COUNT.findall(folded))
    for stem, number in _NUMBERED.findall(folded):  # "gpu5" is the gpu numbered 5: moved to gpu5, not gpu3
        out["@" + stem] = out.get("@" + stem, frozenset()) | {number}
    months = frozenset(_MONTH.findall(folded))
    return out | ({"@count": counts} if counts else {}) | ({"@month": months} if months else {}) | _measures(folded)


def moved_value(quote: str, mine: Features, their_text: str, theirs: Features) -> bool:
    """Tell whether a change word sets a thing the known text also values to a value it does not give.

    "组会改到周四下午 2 点" beside "组会每周二上午 10:00", "timeout 放宽到 180 秒" beside "每个提交 60 秒以内",
    "cutting Anki to 10 min a day" beside "每天 Anki 20 分钟": after the change word stands a date, a time,
    a weekday or an amount; the known text gives one of the same kind and not this one; and the two name
    a subject in common besides their values.
    """
    shared = {
        f
        for f in mine.topical & theirs.topical
        if mine.weights.get(f, 0.0) >= 1.0
        and theirs.weights.get(f, 0.0) >= 1.0
        and not f.startswith(("#", "@"))
        and f not in _WEEKDAYS
    }
    if not shared:
        return False
    their_values = _values(theirs, fold(their_text))
    for new in _set_values(fold(quote)):
        for kind, values in new.items():
            known = their_values.get(kind)
            if known and not values & known:
                return True
    return False


# a path or a version a change word sets: "/scratch/zlin/results", "~/data", "3.3.6", "v1.9"
_PATH_OR_VERSION = re.compile(r"(?:^|\s)(?:~|\.{0,2})/[\w.-]+|[\w.-]+/[\w.-]+/|(?<![\w.])v?\d+\.\d+(?:\.\d+)?(?![\w.])")


def sets_value(folded: str) -> bool:
    """Tell whether a change word sets something to a measured amount, an hour, a path or a version: "超时改成
    5 秒", "bump the TTL to 300s", "move the nightly run to 3:30", "results 目录改成 /scratch/zlin/results"."""
    return any(
        _measures(value) or "@clock" in features_of(value).units or _PATH_OR_VERSION.search(value)
        for value in set_texts(folded)
    )


def set_texts(folded: str) -> list[str]:
    """Return what each change word of a folded text sets: the words after it, up to a clause's end."""
    found = []
    for match in VALUE_CHANGE.finditer(folded):
        rest = folded[match.end() : match.end() + 40]
        cut = _VALUE_END.search(rest, 1)
        found.append(rest[: cut.start()] if cut else rest)
    return found


@functools.lru_cache(maxsize=1024)
def _set_values(folded: str) -> tuple[dict[str, frozenset[str]], ...]:
    """Return the values each change word of a folded text sets, read once however many insights it meets."""
    return tuple(_values(features_of(value), value) for value in set_texts(folded))


def different_numbers(mine: Features, theirs: Features) -> bool:
    """Return whether both give a number for the same thing and neither's numbers hold the other's.

    The same unit is the same thing where the two name the same thing besides it, where one names
    nothing the other does not, or where it is a named thing either text is mostly about ("pinned
    to Terraform 1.7.5"): "metrics on port 9301" is not "the service on port 9300", a release date
    is not a data freeze's, and the v1 score a release must beat is not the temperature swept on v1.
    A text that names nothing (Chinese words are no keys) names no less than the other: there the
    unit is the same thing where it stands before a number, or where the words beside both numbers
    meet ("每页 24 个" is "每页显示 20 条"; "过去 20 个交易日" is not "一年就 242 个交易日").
    """
    my_named, their_named = keys_of(mine) - numbers_of(mine), keys_of(theirs) - numbers_of(theirs)
    # a text that names nothing (Chinese words are no keys) is not read as naming nothing more
    named_both = bool(my_named and their_named)
    same_subject = named_both and (my_named <= their_named or their_named <= my_named)
    for unit, numbers in mine.units.items():
        known = theirs.units.get(unit)
        if not known or numbers <= known or known <= numbers:
            continue
        if not unit.startswith("@") and unit not in theirs.topical:
            continue
        # the words around either number say what it counts ("ten search results" is not "search results
        # for 5 minutes"); the same thing is named besides them
        my_around = {word for word, values in mine.units.items() if values & numbers} - {unit}
        their_around = {word for word, values in theirs.units.items() if values & known} - {unit}
        if same_subject or (my_named & their_named) - my_around - their_around - {unit}:
            return True
        if _about(unit, my_named, their_named):
            return True
        # …and where the same names lead up to both ("Sidekiq concurrency 5" beside "Sidekiq concurrency 10, …")
        if len(led := mine.leading & my_named) >= 2 and unit in led and led == theirs.leading & their_named:
            return True
        # …and where one names nothing, what the unit is: the thing given the number where it stands
        # before it in either ("每页 24 个" beside "每页显示 20 条", "年化统一按 252 天" beside "年化因子用 242"),
        # or what is counted where it stands after both, the same thing only where the words beside the
        # numbers meet ("ADV 用过去 20 个交易日" is not "A 股一年就 242 个交易日")
        if not named_both and (
            unit in mine.leading or unit in theirs.leading or my_around & their_around & mine.topical
        ):
            return True
    return False


def _about(unit: str, *named: frozenset[str]) -> bool:
    """Tell whether a named thing (not a topic word) is half or more of what one of the texts names."""
    return unit not in CONCEPT_NAMES and any(unit in keys and len(keys) <= 2 for keys in named)
