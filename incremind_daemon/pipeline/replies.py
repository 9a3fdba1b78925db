"""How the person wants to be answered, read as slots: the language, the length, the closing recap.

People say these again and again, and in the other language, because an agent forgot: "keep
replying in Chinese even when I type English here" after "回复用中文就行", "别写那么长" after "Keep
replies short". The words the rules weigh differ entirely across the two languages, and the
embedder reads such short sentences weakly; what they set does not differ. A candidate whose
``answer_slots`` a known insight's ``reply_slots`` all hold, to the same values, says it again.
"""

from __future__ import annotations

import re

from incremind_daemon.pipeline.cues import fold

_ZH = r"(?:繁体|简体)中文|繁中|简中|繁体|简体|中文|英文|汉语"
_LANGUAGE = re.compile(
    r"(?<![a-z])(?:answer|reply|replies|replying|respond|write|talk|speak)(?:s|ing)?(?: to me| me| back)?"
    r" (?:in|using) (?:(?:plain|simple|easy|basic|formal|casual|short) )?"
    r"(?P<en>(?:traditional |simplified )?chinese|english|mandarin|繁中|简中)"
    # "English replies even when I type 中文", "Chinese answers only"
    r"|(?<![a-z])(?P<en_before>(?:traditional |simplified )?chinese|english|mandarin) (?:only )?"
    r"(?:replies|answers|responses)(?![a-z])"
    # "回覆一律用繁體中文": Traditional Chinese writes 回覆 for 回复; "回答我用中文", "回复请用中文", "跟我说话用中文",
    # "回复的话用中文"
    r"|(?:回复|回覆|回答|回我|回|说话)(?:我|给我)?(?:的话)?(?:都|还是|就|也|请|一律|统一|全部|全)?(?:改用|改成|换成|用|说)?"
    r"(?P<zh_after>" + _ZH + ")"
    # "用简单的中文回答", "用正式一点的英文回复": the language, however it is to be written
    r"|(?:用|说)(?:[^，,。；;\s]{1,5}的)?(?P<zh_before>" + _ZH + ")(?:回|答|跟我说|和我说|交流)"
    # "中文回我", "英文回复就行" (not "我打中文回复别人")
    r"|(?<![用说打写])(?P<zh_lead>" + _ZH + ")(?:回复|回覆|回答|回我|答我)"
)
# the person's own writing, not the answer's: "even when I write in Chinese", "就算我用英文问"
_OWN_WRITING = re.compile(r"(?:(?<![a-z])i(?:'m| am)?|(?<![跟和给对同])我)\s*$")
_SHORT = re.compile(
    r"(?<![a-z])(?:(?:keep|make) (?:your |the )?(?:answers?|replies|responses|it|them)[^.;]{0,12}(?:short|brief"
    r"|concise|terse)|be (?:brief|concise|terse)|(?:short|brief|concise) (?:answers|replies)"
    r"|(?:answers?|replies|responses):\s*(?:short|brief|concise|terse)"  # "how I like answers: short"
    r"|no (?:long )?essays?|(?:no|not) walls? of text)(?![a-z])"
    r"|简短|简洁|别啰嗦|不要啰嗦|少废话|(?:别|不要)写(?:那么|这么|太)长|(?:回答|回复)(?:别|不要)太长|长话短说"
    r"|(?:别|不要|少)(?:写|整|来)?(?:小作文|长篇大论)"  # "别写小作文" (an essay, in today's slang)
    # "说短点", "讲短啲" (Cantonese), "回答短一点", "不用解释那么多", "唔使解释咁多"
    r"|(?:说|讲|写|回|答|回答|回复)得?短(?:一?点|一?些|啲)|(?:不用|不要|别|唔使|唔好)解释(?:那么|这么|咁|太)多"
)
_NO_RECAP = re.compile(
    r"(?<![a-z])(?:(?:no|skip|drop|without|leave out)(?: the| a| your)? (?:final |closing )?(?:recaps?|summar(?:y|ies))"
    r"|(?:don't|do not|never) (?:summari[sz]e|recap))(?![a-z])|(?:不用|不要|别)[^，。；]{0,10}总结"
    r"|(?:不用|不要|别)[^，。；]{0,14}(?:整理一遍|复述|重复一遍)"  # "不要每次都把我刚刚说的整理一遍"
)
# the answer before its reasons: "conclusion first", "结论先讲"
_CONCLUSION_FIRST = re.compile(
    r"(?<![a-z])(?:(?:conclusion|answer|verdict|bottom line) (?:first|up front)"
    r"|(?:lead|start) with the (?:conclusion|answer|verdict))(?![a-z])"
    r"|结论先(?:讲|说|写|给)|(?:先|直接)(?:讲|说|写|给)结论|结论放(?:在)?(?:第一句|最前面?|开头)"
)
_CLAUSE = re.compile(r"[，,;；。.!！?？—–]+")
# a clause about something else than replies: "commit message 用英文" beside "回复用中文" is its own rule
_OTHER_RULE = re.compile(
    r"(?<![a-z])(?:commits?|branch(?:es)?|tests?|deploy\w*|push\w*|prs?|comments?|docs?|code|variables?|logs?)(?![a-z])"
    r"|代码|提交|分支|注释|文档|测试|部署|日志|变量|命名"
)
_LANGUAGES = {"chinese": "zh", "mandarin": "zh", "english": "en", "中文": "zh", "汉语": "zh", "英文": "en"}
# Traditional and Simplified Chinese are each a language of their own to answer in
_LANGUAGES |= dict.fromkeys(("traditional chinese", "繁体中文", "繁中", "繁体"), "zh-hant")
_LANGUAGES |= dict.fromkeys(("simplified chinese", "简体中文", "简中", "简体"), "zh-hans")


def reply_slots(text: str) -> dict[str, str]:
    """Return the slots a text sets on how to answer the person ("language": "zh", "length": "short", …)."""
    folded = fold(text)
    slots: dict[str, str] = {}
    for language in _LANGUAGE.finditer(folded):
        if _OWN_WRITING.search(folded[: language.start()]):
            continue  # "English only, even when I write in Chinese"
        said = next(said for said in language.groups() if said)
        slots["language"] = _LANGUAGES[said]
        break
    if _SHORT.search(folded):
        slots["length"] = "short"
    if _NO_RECAP.search(folded):
        slots["recap"] = "none"
    if _CONCLUSION_FIRST.search(folded):
        slots["order"] = "conclusion first"
    return slots


def answer_slots(text: str) -> dict[str, str]:
    """Return the slots a text sets on how to answer the person when that is all it sets a rule on, else none.

    Every clause that names a rule's object must be about answering: "回复用中文，commit message 用英文"
    sets a rule on commits as well, and is its own.
    """
    slots = reply_slots(text)
    clauses = [clause for clause in _CLAUSE.split(fold(text)) if clause.strip()] if slots else []
    if not all(reply_slots(clause) or not _OTHER_RULE.search(clause) for clause in clauses):
        return {}
    return slots


def held_alike(said: dict[str, str], held: dict[str, str]) -> bool:
    """Tell whether ``held`` sets every slot ``said`` sets, to a value that agrees with it."""
    return all(key in held and _alike(value, held[key]) for key, value in said.items())


def set_otherwise(said: dict[str, str], held: dict[str, str]) -> bool:
    """Tell whether ``held`` sets a slot ``said`` sets to a value that does not agree with it."""
    return any(key in held and not _alike(value, held[key]) for key, value in said.items())


def _alike(one: str, other: str) -> bool:
    """The same value, or Chinese beside one of its scripts: "reply in Chinese" keeps "回覆用繁體中文"."""
    return one == other or {one, other} in ({"zh", "zh-hant"}, {"zh", "zh-hans"})
