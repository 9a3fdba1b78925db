"""Whether a candidate's change takes the place of what a known insight says, read from the two statements.

relate() decides a candidate's relation by what it adds; these are its readings of a change: whether
it is about the known insight's subject (``replaces``), whether it gives a value of a thing of its own
that the known one never names (``of_its_own``), and whether it stands where the known one stands
(``stands_with``); and whether the two are rules for different pieces of writing (``for_other_writing``).
``mine`` is the candidate's statement, ``theirs`` the known insight's.
"""

from __future__ import annotations

import re

from incremind_daemon.pipeline.amounts import set_texts
from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.features import CONCEPT_NAMES, features_of, keys_of, names_in, numbers_of
from incremind_daemon.pipeline.stance import CHANGE_OF_PLAN, negated, used

# the word that ends a reason: what it gives as the reason names nothing the change after it is of
_SO = re.compile(r"(?<![a-z])(?:so|therefore)(?![a-z])|所以|因此")


def changed_subject(statement: str, about: str = "") -> frozenset[str]:
    """Return what a change is of: the named things said before its change word ("TestFlight" in "TestFlight
    goes back to Xcode Cloud"), none when it opens on it ("switch to SQLite"); and, where it points back at
    the sentence before ("Remember the insert_overwrite thing? Scrap that — …"), what that sentence names."""
    folded = fold(statement)
    found = CHANGE_OF_PLAN.search(folded)
    # …past the reason given for it: "Ravi's 0042 went through fine last week, so back to the PreSync hook" says why
    # it changes, and the change is of nothing the reason names
    before = ""
    if found is not None and not _SO.match(found.group().lstrip(",;: ")):  # "…, so back to X" names no subject
        before = _SO.split(folded[: found.start()])[-1]
    named = keys_of(features_of(before))
    return named | (keys_of(features_of(fold(about))) - CONCEPT_NAMES if about else frozenset())


def replaces(
    mine: str,
    theirs: str,
    named: set[str],
    their_keys: frozenset[str],
    negations: tuple[frozenset[str], frozenset[str]],
    *,
    covered: bool,
    other_value: bool,
) -> bool:
    """Tell whether a change that names something new takes the place of what the known insight says.

    It does when it is about the same subject (a topic both name: "switch to SQLite" beside "数据库就用
    Postgres"; two things both name: "Alice no longer owns billing"; nothing the known one lacks; another
    value: "staging 迁到 10.12.5.8"), when it turns down what the known one stands by, or when it uses
    something else where the known one used a thing both name ("改成用 SQLite，PostgreSQL 太重了").
    A change that only shares a name ("图片放到 Cloudflare R2" beside "部署在 Cloudflare Pages"), or
    that turns down what the known one turned down as well ("本地不用 docker compose 了，改成 podman"
    beside "staging 不再用 docker compose"), is about something else; and so is one that names all the
    known one uses and uses only those ("No redux please, we're on zustand (and react-query)" beside
    "状态管理用 Zustand，服务端数据用 react-query"): it stands where the known one stands. ``negations``:
    what the candidate and the known insight turn down.
    """
    my_negated, their_negated = negations
    if my_negated and my_negated <= their_negated:
        return False  # both turn the same thing down: the change is of something else
    if stands_with(mine, theirs, my_negated, their_negated):
        return False
    if covered or named & CONCEPT_NAMES or other_value or len(named) >= 2:
        return True
    if my_negated & (their_keys - their_negated):
        return True
    mine_used = used(mine)
    if bool(named & (used(theirs) - their_negated) - mine_used) and bool(mine_used - their_keys):
        return True
    # the same thing given another tool to use: "from now on DI 用 Koin" beside "DI 用 Hilt"
    mine_slots, their_slots = _slots(mine), _slots(theirs)
    return any(mine_slots[key] != their_slots[key] for key in mine_slots.keys() & their_slots.keys() & named)


# a thing and the tool it uses: "DI 用 Hilt", "ORM 统一用 prisma", "状态管理用 zustand"
_SLOT = re.compile(
    r"(?<![\w.-])([a-z][\w.+-]*|[\u4e00-\u9fff]{2,4})\s*(?:就|都|统一|一律|也)?(?:用|使用|采用)\s*([a-z][\w.+#-]*)"
)


def _slots(text: str) -> dict[str, str]:
    slots: dict[str, str] = {}
    for match in _SLOT.finditer(fold(text)):
        for key in keys_of(features_of(match.group(1))):
            slots.setdefault(key, match.group(2))
    return slots


_LETTERS = re.compile(r"[^\W\d_]{2}")


def of_its_own(mine: str, theirs: str, named: set[str]) -> bool:
    """Tell whether a candidate gives a value of a thing it names by name and the known insight never does.

    "move ingress-nginx to 4.12.1 and pin that" beside "pin every provider with ~> on the minor": one
    word in common, a new number, a name of its own, and no name in the known one that it lacks. Beside
    "数据库就用 Postgres 15" the known one names what is replaced, and "改成 SQLite 3.45" replaces it.
    """
    if len(named) != 1:
        return False
    my_features, their_features = features_of(mine), features_of(theirs)
    if not numbers_of(my_features) - numbers_of(their_features):
        return False
    my_names = {name for name in names_in(mine) if _LETTERS.search(name)}  # not "1e-4"
    their_names = {name for name in names_in(theirs) if _LETTERS.search(name)}
    if named & (my_names | their_names):
        return False  # the word in common is a name: "Postgres 16 for the tests" is about the known Postgres
    return bool(my_names - keys_of(their_features)) and not their_names - keys_of(my_features)


def stands_with(mine: str, theirs: str, my_negated: frozenset[str], their_negated: frozenset[str]) -> bool:
    """Tell whether a candidate names every thing the known insight says to use, says to use only those,
    and turns none down: it stands where the known one stands, whatever else it adds or turns down."""
    kept, stood = used(mine, imperative=False), used(theirs, imperative=False) - their_negated
    if not kept or not stood or my_negated & stood:
        return False
    my_features, their_features = features_of(mine), features_of(theirs)
    if numbers_of(their_features) and numbers_of(my_features) - numbers_of(their_features):
        return False  # the same thing at another value: "bump it to 1024" beside "a batch size of 512"
    return kept <= stood <= keys_of(my_features)


# the pieces of writing a rule of form is for: a rule for one says nothing of another, however alike the
# words ("commit messages in English, conventional commits" beside "PR titles in English, conventional commits")
_WRITINGS = {
    "commit message": re.compile(r"commit (?:message|msg)s?|提交(?:信息|说明|消息)"),
    "pull request title": re.compile(r"(?<![a-z])(?:pr|mr|pull request|merge request)s?\s*(?:的)?\s*(?:titles?|标题)"),
    "pull request description": re.compile(
        r"(?<![a-z])(?:pr|mr|pull request|merge request)s?\s*(?:的)?\s*(?:descriptions?|bod(?:y|ies)|描述|正文)"
    ),
    "branch name": re.compile(r"branch names?|分支名"),
    "code comment": re.compile(r"(?<![a-z])(?:code comments?|comments)(?![a-z])|注释"),
    "changelog": re.compile(r"change ?log|更新日志|变更日志"),
    "reply": re.compile(r"(?<![a-z])(?:repl(?:y|ies)|answers?|respond)(?![a-z])|回复|回覆|回答|答复|回我"),
}


def writings_of(text: str) -> frozenset[str]:
    """Return the pieces of writing a statement names (commit messages, PR titles, code comments, replies …)."""
    folded = fold(text).casefold()
    return frozenset(kind for kind, pattern in _WRITINGS.items() if pattern.search(folded))


def for_other_writing(mine: str, theirs: str) -> bool:
    """Tell whether two statements are each for pieces of writing the other never names."""
    my_kinds, their_kinds = writings_of(mine), writings_of(theirs)
    return bool(my_kinds) and bool(their_kinds) and my_kinds.isdisjoint(their_kinds)


def turns_down(mine: str, theirs: str) -> bool:
    """Tell whether a statement turns down a name the other holds as it stands, so it repeats none of it:
    "uv manages the interpreter, not the Pi's system python" beside "the rig is pinned to python 3.11, same as
    the pi's system python" (though "never npm" repeats "pnpm only, never npm"), or one it says to use
    ("代码注释不要写中文了" beside "代码注释写中文就行")."""
    refused = {name for name in negated(mine) - negated(theirs) if not _refused_in(name, theirs)}
    if not refused:
        return False
    held = {*re.findall(r"[\w.+#-]+", fold(theirs).casefold()), *used(theirs), *numbers_of(features_of(theirs))}
    return not refused.isdisjoint(held)  # "5432 不对" beside "order-db 监听 5432": a value it holds


# a word that turns down what its clause names, in either language
_REFUSING = re.compile(
    r"(?<![a-z])(?:not|never|no|don't|do not|dont|stop|avoid)(?![a-z])"
    r"|不要|别|別|不再|禁止|不能|不许|不許|唔好|唔使|不用"
)
_CLAUSE = re.compile(r"[,，;；。!?！？]|\s[—–-]\s")


def _refused_in(name: str, text: str) -> bool:
    """Tell whether a text turns a name down too, in a clause that names it beside a refusing word: "never touch
    the UI-generated automations.yaml", "你不要跑 git push", "zerolog 不要再用了", which the readings of ``negated``
    miss where the name is not right after the word."""
    word = name.removeprefix("#")
    return any(word in clause and _REFUSING.search(clause) for clause in _CLAUSE.split(fold(text).casefold()))


# a word that says a value is the one now: "runs on 5174 now", "batch size 现在是 4096", "预算上限提到 S$680k"
# (not "for now", which says the value may change)
NOW_SET = re.compile(r"(?<![a-z])(?<!for )(?<!until )now(?![a-z])|现在|目前|(?:提|降|调|升|涨|加|减|缩)(?:高|低)?到")


def value_replaced(mine: str, theirs: str) -> bool:
    """Tell whether a statement gives a value of the same form as one the other holds, in its place: a port
    5174 for 5173, a version 3.3.6 for 3.2.5, "S$680k" for "S$650k", "3:30" for "2:00", us-east-2 for us-east-1,
    "sub-4" for "sub-3:45". A number's form is its digits and marks ("dddd", "d.d.d", "d:dd"); a plain number of
    one or two digits has none, as any count, day or distance has it ("这周 LSD 30k" beside "25k 起步，最长到 32k");
    a name's is its letters ("us-east-N").
    """
    my_values, their_values = _values(mine), _values(theirs)
    given = {_form(value) for value in my_values - their_values} - {None}
    return any(_form(value) in given for value in their_values - my_values)


def sets_again(mine: str, theirs: str) -> bool:
    """Tell whether a change sets a thing to the value the other already gives it: "查重阈值改成 70%" beside
    "代码类作业查重阈值统一为 70%", "代码字号改回 \\small" beside "代码块字号不小于 \\small", the change the other
    holds said again. A value is what follows a change word up to its clause's end, by its numbers where it has any;
    where the other sets values by change words of its own, only what they set holds ("超时从 30 秒改成 60 秒"
    holds no 30 to go back to). The change is the statement's own, in its first clause: "…, delete requirements.txt,
    it's a leftover from before we moved to uv" sets nothing."""
    texts = set_texts(_FIRST_CLAUSE.split(fold(mine), maxsplit=1)[0])
    values = [numbers_of(given) or keys_of(given) for given in map(features_of, texts)]
    if not values or not all(values):
        return False
    folded = fold(theirs)
    held = frozenset().union(*(keys_of(features_of(value)) for value in set_texts(folded) or [folded]))
    # …and a name it writes is one the other writes: "gb7714-2015ay" is no "gb7714-2015", whatever numbers both hold
    named = all(name in folded for text in texts for name in _LATIN_NAME.findall(text))
    return named and all(value <= held for value in values)


_FIRST_CLAUSE = re.compile(r"[，；。;]|[,.](?=\s)")
_LATIN_NAME = re.compile(r"(?<![\w.-])[a-z][\w.-]*[\w]")


def _values(text: str) -> frozenset[str]:
    """Return a text's numbers and the names that hold a number ("us-east-1", "sub-3"; "30k" is a number)."""
    named = {name for name in names_in(text) if len(_LETTER.findall(name)) >= 2 and _DIGIT.search(name)}
    return numbers_of(features_of(text)) | named


def moved_from(mine: str, theirs: str) -> bool:
    """Tell whether a statement moves a value the other holds to one it does not ("from 6 to 8", "180 秒 → 240 秒")."""
    their_numbers = numbers_of(features_of(theirs))
    for match in _FROM_TO.finditer(fold(mine)):
        groups = match.groups()
        old, new = next((a, b) for a, b in zip(groups[::2], groups[1::2], strict=True) if a is not None)
        if f"#{old}" in their_numbers and f"#{new}" not in their_numbers:
            return True
    return False


# the old value, then the new one: "bump replicas from 6 to 8", "从 3 天改成 7 天", "180 秒 → 240 秒"; not a range
# ("from 9 to 5", "从 3 月到 5 月")
_FROM_TO = re.compile(
    r"(?<![a-z])(?:bump|mov|chang|rais|increas|lower|reduc|cut|scal|shift|push|extend|shorten|upgrad|downgrad|go|went)"
    r"\w*(?:\s+[^\s,，;；.]+){0,4}?\s+from\s+(\d+(?:[.:]\d+)*)[^\d,，;；]{0,6}?\s*to\s+(\d+(?:[.:]\d+)*)"
    r"|从\s*(\d+(?:[.:]\d+)*)[^\d,，;；]{0,6}?(?:改成|改到|调到|提到|降到|升到|延到|推到)\s*(\d+(?:[.:]\d+)*)"
    r"|(\d+(?:[.:]\d+)*)[^\d,，;；]{0,3}?\s*(?:→|->)\s*(\d+(?:[.:]\d+)*)"
)


def _form(value: str) -> str | None:
    if not value.startswith("#"):
        return _DIGITS.sub("N", value)  # a name: "us-east-N"
    form = _DIGIT.sub("d", value)
    return form if form.count("d") >= 3 or re.search(r"[.:/]", form) else None


_LETTER, _DIGIT, _DIGITS = re.compile(r"[a-z]"), re.compile(r"\d"), re.compile(r"\d+")


def respelled(mine: str, theirs: str) -> bool:
    """Tell whether a statement writes a name the other holds in another form, word for word: "每段改
    snake_case：`billing.invoice_list.export_btn`" beside "小驼峰：`billing.invoiceList.exportBtn`"."""
    their_names = {_words_of_name(name): name for name in _CODE_NAME.findall(theirs)}
    return any(
        (parts := _words_of_name(name)) in their_names and their_names[parts] != name
        for name in _CODE_NAME.findall(mine)
    )


def _words_of_name(name: str) -> tuple[str, ...]:
    return tuple(part.casefold() for part in _NAME_PART.findall(name))


# a name written as code, of two words or more: "billing.invoiceList.exportBtn", "export_btn", "user-id"
_CODE_NAME = re.compile(r"(?<![\w.-])(?:[A-Za-z][A-Za-z0-9]*(?:[._-][A-Za-z0-9]+)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+)")
_NAME_PART = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
