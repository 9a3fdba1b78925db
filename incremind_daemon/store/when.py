"""Dates in words: when a piece of material is from, and which days a question asks about.

Two readers of the same calendar words, in English and Chinese:

- ``material_date``: the day a file is about, when its name or its first
  line says so ("chat-2025-06-01.md", "# Standup 2025-06-01", "2025年6月1日
  周会"). A file dropped in today may hold a conversation of last spring;
  search shows, and a question about "May" finds, that day rather than the
  day it was taken in.
- ``time_range``: the days a question names ("last week", "in May 2025",
  "yesterday", "去年", "上个月", "2024年10月", "三天前", "上周二", "last Tuesday",
  "24 November", "11月24号"), as a half-open range
  of local dates. Search puts the results from those days first.

Both are rules over the text, never a model, and both answer None when
nothing is named: most questions name no time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

# what one rule makes of its match: a range of local dates, given today; None when the words make no date
_Days = Callable[[re.Match[str], date], tuple[date, date] | None]

_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH_NAME = r"(?P<month_name>January|February|March|April|May|June|July|August|September|October|November|December)"
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}

# a full date in a file name or a first line: 2025-06-01, 2025_06_01, 2025.06.01, 20250601, 2025年6月1日
_FULL_DATE = re.compile(
    r"(?<!\d)(?P<y>(?:19|20)\d\d)(?:(?P<sep>[-_./])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})|(?P<m2>\d\d)(?P<d2>\d\d))(?!\d)"
    r"|(?P<zy>(?:19|20)\d\d)\s*年\s*(?P<zm>\d{1,2})\s*月\s*(?P<zd>\d{1,2})\s*[日号]"
)
_FIRST_LINE_CHARS = 200


@dataclass(frozen=True, slots=True)
class TimeRange:
    """Local dates from ``start`` up to, not including, ``end``; ``words`` is what named them."""

    start: date
    end: date
    words: str

    def holds(self, stamp: str | None) -> bool:
        """Tell whether an ISO 8601 date or time stamp falls on one of these days (in local time)."""
        day = local_day(stamp)
        return day is not None and self.start <= day < self.end


def material_date(name: str, text: str) -> str | None:
    """Return the day (ISO 8601) a file's name, else its first line, names in full; None when neither does."""
    first_line = text.lstrip()[:_FIRST_LINE_CHARS].split("\n", 1)[0]
    for place in (name, first_line):
        for match in _FULL_DATE.finditer(place):
            day = _full_date(match)
            if day is not None:
                return day.isoformat()
    return None


def local_day(stamp: str | None) -> date | None:
    """Return the local date of an ISO 8601 stamp (a bare date is taken as it is); None when unreadable."""
    if not stamp:
        return None
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return moment.date()


def time_range(query: str, now: datetime) -> TimeRange | None:
    """Return the days a question names, relative to ``now`` where it says "last week" or "去年"; else None.

    A question that names several times ("五月和六月", "in May and in July")
    gets the stretch from the first to the last of them. Rules are tried from
    the most exact; words one rule has read ("2025年3月14日") are not read again
    by a looser one (as "3月").
    """
    today = now.date()
    read: list[tuple[int, int]] = []
    spans: list[tuple[date, date]] = []
    named: list[str] = []
    for rule in _RULES:
        for match in rule.pattern.finditer(query):
            if any(match.start() < stop and start < match.end() for start, stop in read):
                continue
            span = rule.days(match, today)
            if span is None:
                continue
            read.append((match.start(), match.end()))
            first, last = span
            if _opens_onward(query, match):  # "since January", "从三月以来": up to today
                last = max(last, today + timedelta(days=1))
            if _UNTIL_BEFORE.search(query[max(0, match.start() - 8) : match.start()]):  # "到11月", "until May"
                first = date.min
            elif _BEFORE_AFTER.match(query, match.end()) or _BEFORE.search(
                query[max(0, match.start() - 8) : match.start()]
            ):
                first, last = date.min, first  # "五月之前", "before May": the days up to it
            spans.append((first, last))
            named.append(match.group(0).strip())
    if not spans:
        return None
    return TimeRange(min(a for a, _ in spans), max(b for _, b in spans), ", ".join(named))


_UNTIL_BEFORE = re.compile(r"(?:\b(?:until|till|up\s+to|through)\s*|[到至]\s*)$", re.I)
_BEFORE = re.compile(r"\bbefore\s*$", re.I)
_BEFORE_AFTER = re.compile(r"\s*(?:之前|以前)")
_SINCE_BEFORE = re.compile(r"\b(?:since|from)\s*$", re.I)
_SINCE_AFTER = re.compile(r"\s*(?:以来|至今|到现在|到今天|起)")


def _opens_onward(query: str, match: re.Match[str]) -> bool:
    """Tell whether the named days start a stretch that runs until now ("since May", "五月以来")."""
    named = match.group(0).strip().lower()
    before = query[max(0, match.start() - 8) : match.start()]
    return (
        named.startswith(("since", "from"))
        or _SINCE_BEFORE.search(before) is not None
        or _SINCE_AFTER.match(query, match.end()) is not None
    )


def _full_date(match: re.Match[str]) -> date | None:
    year = match.group("y") or match.group("zy")
    month = match.group("m") or match.group("m2") or match.group("zm")
    day = match.group("d") or match.group("d2") or match.group("zd")
    try:
        return date(int(year), int(month), int(day))
    except (TypeError, ValueError):
        return None


def _month_start(year: int, month: int) -> date:
    return date(year + (month - 1) // 12, (month - 1) % 12 + 1, 1)


def _month(year: int, month: int) -> tuple[date, date]:
    return _month_start(year, month), _month_start(year, month + 1)


def _week(today: date, weeks_back: int) -> tuple[date, date]:
    monday = today - timedelta(days=today.weekday() + 7 * weeks_back)
    return monday, monday + timedelta(days=7)


def _number(text: str) -> int | None:
    """Read 1-99 written in digits or Chinese numerals (三, 十二, 二十)."""
    if text.isdigit():
        return int(text)
    if text in _ZH_DIGITS:
        return _ZH_DIGITS[text]
    if len(text) == 2 and text[0] == "十" and text[1] in _ZH_DIGITS:
        return 10 + _ZH_DIGITS[text[1]]
    if len(text) in (2, 3) and text[1] == "十" and text[0] in _ZH_DIGITS:
        tail = _ZH_DIGITS.get(text[2], 0) if len(text) == 3 else 0
        return 10 * _ZH_DIGITS[text[0]] + tail
    return None


def _latest_month(today: date, month: int) -> tuple[date, date]:
    """A month named without a year: this year's if it has begun, else last year's."""
    year = today.year if month <= today.month else today.year - 1
    return _month(year, month)


def _month_in(match: re.Match[str]) -> int | None:
    """Return the month a match names, by its English name or its number (五, 十二, 5); None past 1-12."""
    name = match.groupdict().get("month_name")
    if name:
        return _MONTHS.index(name.lower()) + 1
    month = _number(match.group("month"))
    return month if month is not None and 1 <= month <= 12 else None


def _named_month(match: re.Match[str], today: date) -> tuple[date, date] | None:
    """A month with its year (2024年10月, March 2025), else the latest one (五月份, in May)."""
    month = _month_in(match)
    if month is None:
        return None
    year = match.group("year")
    return _month(int(year), month) if year else _latest_month(today, month)


def _iso_day(match: re.Match[str], _today: date) -> tuple[date, date] | None:
    day = _full_date(match)
    return None if day is None else (day, day + timedelta(days=1))


def _ago(match: re.Match[str], today: date) -> tuple[date, date] | None:
    count = _number(match.group("n"))
    if count is None:
        return None
    unit = match.group("unit").lower()
    if unit.startswith(("day", "天")):
        day = today - timedelta(days=count)
        return day, day + timedelta(days=1)
    if unit.startswith(("week", "周", "星期", "个星期", "礼拜", "个礼拜")):
        return _week(today, count)
    return _month(today.year, today.month - count)


def _fixed(days: dict[str, int]) -> _Days:
    """Days counted back from today: {"word": n} names the day n days ago."""

    def span(match: re.Match[str], today: date) -> tuple[date, date]:
        day = today - timedelta(days=days[match.group(0).strip().lower()])
        return day, day + timedelta(days=1)

    return span


def _relative(kind: str, back: int) -> _Days:
    def span(_match: re.Match[str], today: date) -> tuple[date, date]:
        if kind == "week":
            return _week(today, back)
        if kind == "month":
            return _month(today.year, today.month - back)
        return date(today.year - back, 1, 1), date(today.year - back + 1, 1, 1)

    return span


@dataclass(frozen=True, slots=True)
class _Rule:
    pattern: re.Pattern[str]
    days: _Days


def _rules() -> tuple[_Rule, ...]:
    words = re.I
    return (
        # a whole date first: 2025-06-01, 2025年6月1日
        _Rule(_FULL_DATE, _iso_day),
        # a day of a month, its year maybe left out: "24 November", "November 24th, 2025", 11月24号
        _Rule(
            re.compile(
                rf"\b(?P<day>[0-3]?\d)(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_NAME}\b(?:\s*,?\s*(?P<year>(?:19|20)\d\d)\b)?"
            ),
            _month_day,
        ),
        _Rule(
            re.compile(
                rf"\b{_MONTH_NAME}\s+(?P<day>[0-3]?\d)(?:st|nd|rd|th)?\b(?![:.]\d)(?:\s*,?\s*(?P<year>(?:19|20)\d\d)\b)?"
            ),
            _month_day,
        ),
        _Rule(
            re.compile(r"(?<![\d年])(?P<month>1[0-2]|0?[1-9])\s*月\s*(?P<day>[0-3]?\d)\s*[日号](?P<year>)"), _month_day
        ),
        # a weekday of a week named by its distance: 上周二, 这周五, "last Tuesday", "this Friday"
        _Rule(
            re.compile(
                r"(?P<rel_zh>上上|上|这|本)个?(?:周|星期|礼拜)(?P<wd_zh>一(?![直起共样般些致切])|[二三四五六日])(?![次个遍回位名件])"
            ),
            _weekday,
        ),
        _Rule(re.compile(rf"\b(?P<rel_en>last|this|past)\s+(?P<wd_en>{'|'.join(_WEEKDAYS)})\b", words), _weekday),
        _Rule(
            re.compile(r"(?P<year>(?:19|20)\d\d)\s*年\s*(?P<month>\d{1,2}|[一二三四五六七八九十]{1,2})\s*月"),
            _named_month,
        ),
        _Rule(re.compile(rf"\b{_MONTH_NAME}\s*,?\s*(?P<year>(?:19|20)\d\d)\b"), _named_month),
        _Rule(
            re.compile(
                rf"(?P<n>\d{{1,2}}|[一二两三四五六七八九十]{{1,2}})\s*(?P<unit>{_UNITS})\s*(?:ago|前|以前|之前)", words
            ),
            _ago,
        ),
        _Rule(re.compile(r"\b(?:today|yesterday)\b|今天|今日|昨天|昨日|前天", words), _fixed(_DAYS_BACK)),
        _Rule(re.compile(r"\b(?:this|current)\s+week\b|本周|这周|这个?星期|这个?礼拜", words), _relative("week", 0)),
        _Rule(re.compile(r"\b(?:last|past|previous)\s+week\b|上周|上个?星期|上个?礼拜", words), _relative("week", 1)),
        _Rule(re.compile(r"\b(?:this|current)\s+month\b|本月|这个月", words), _relative("month", 0)),
        _Rule(re.compile(r"\b(?:last|past|previous)\s+month\b|上个?月", words), _relative("month", 1)),
        # a month of a year named by its distance: 去年十月, "May last year"
        _Rule(
            re.compile(
                r"(?P<rel>去年|今年|前年)\s*(?P<month>1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s*月"
                rf"|{_MONTH_NAME}\s+(?:of\s+)?(?P<rel_en>last|this)\s+year",
                words,
            ),
            _month_of_year_back,
        ),
        _Rule(re.compile(r"\bthis\s+year\b|今年", words), _relative("year", 0)),
        _Rule(re.compile(r"\blast\s+year\b|去年", words), _relative("year", 1)),
        _Rule(re.compile(r"前年"), _relative("year", 2)),
        # a month alone: "in May" (May is a verb too, so only after a preposition), 五月, 5月份
        _Rule(
            re.compile(rf"\b(?:in|during|since|from|until|by|of|early|late|mid)\s+(?:-\s*)?{_MONTH_NAME}\b(?P<year>)"),
            _named_month,
        ),
        _Rule(
            re.compile(
                r"(?<![\d个年])(?P<year>)(?P<month>1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s*月(?!\s*\d)"
            ),
            _named_month,
        ),
        _Rule(
            re.compile(
                r"\b(?:in|during|since)\s+(?P<year>(?:19|20)\d\d)\b|(?<!\d)(?P<zyear>(?:19|20)\d\d)\s*年(?!\s*\d)",
                words,
            ),
            _any_year,
        ),
    )


def _month_day(match: re.Match[str], today: date) -> tuple[date, date] | None:
    """A day of a month; without a year, the latest such day up to today ("24 November" asked in December)."""
    month = _month_in(match)
    if month is None:
        return None
    year = match.group("year")
    try:
        day = date(int(year) if year else today.year, month, int(match.group("day")))
        if not year and day > today:
            day = day.replace(year=today.year - 1)
    except ValueError:
        return None  # "31 November", or 29 February of a common year
    return day, day + timedelta(days=1)


def _weekday(match: re.Match[str], today: date) -> tuple[date, date]:
    """上周二 is Tuesday of last week (weeks start on Monday); "last Tuesday" the latest Tuesday before today."""
    groups = match.groupdict()
    if groups.get("wd_zh"):
        monday, _ = _week(today, {"上上": 2, "上": 1, "这": 0, "本": 0}[groups["rel_zh"]])
        day = monday + timedelta(days="一二三四五六日".index(groups["wd_zh"]))
    else:
        weekday = _WEEKDAYS.index(groups["wd_en"].lower())
        if groups["rel_en"].lower() == "this":
            day = _week(today, 0)[0] + timedelta(days=weekday)
        else:
            day = today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)
    return day, day + timedelta(days=1)


def _month_of_year_back(match: re.Match[str], today: date) -> tuple[date, date] | None:
    back = {"今年": 0, "this": 0, "去年": 1, "last": 1, "前年": 2}[
        (match.group("rel") or match.group("rel_en")).lower()
    ]
    month = _month_in(match)
    return None if month is None else _month(today.year - back, month)


def _any_year(match: re.Match[str], _today: date) -> tuple[date, date]:
    year = int(match.group("year") or match.group("zyear"))
    return date(year, 1, 1), date(year + 1, 1, 1)


_UNITS = r"days?|weeks?|months?|天|周|个星期|星期|个礼拜|礼拜|个月"
_DAYS_BACK = {"today": 0, "今天": 0, "今日": 0, "yesterday": 1, "昨天": 1, "昨日": 1, "前天": 2}
_RULES = _rules()
