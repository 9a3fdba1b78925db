"""What makes a sentence worth remembering, in Chinese and English: cue phrases by category.

Every pattern runs on text folded by ``cues.fold`` (lower case, simplified Chinese). A
sentence's categories are the cues it carries; the strongest names it. In a conversation
only the person's standing words count — who they are, how to talk to them, what always
or never holds, a correction, a decision, a fact about a named thing — while a request for
the task at hand ("fix the test", "帮我看下这个报错"), a question, a guess or a complaint
about what just broke is not lasting. A note may also teach a method or record an event.
"""

from __future__ import annotations

import logging
import re

from incremind_daemon.pipeline.cues import (
    BEFORE_CHANGE,
    DECISION_CUES,
    FROM_THEN_ON,
    MOVED_TO,
    MY_STEP,
    QUOTED_WORDS,
    bounded,
    fold,
)
from incremind_daemon.pipeline.markdown import text_weight
from incremind_daemon.pipeline.openers import ROLE_INTRO
from incremind_daemon.pipeline.stance import RESTATED

log = logging.getLogger(__name__)

words = bounded  # bounded by ASCII word characters, so "port" misses "report" yet matches "端口port"

_IMPERATIVE_VERBS = (
    "add|adjust|answer|ask|avoid|back up|break|build|bump|cache|call|check|clear|close|commit|configure|copy|create"
    "|delete|deploy|disable|do|don'?t|drink|eat|enable|explain|export|focus|keep|leave|limit|log|make|mark|measure"
    "|merge|move|never|always|note|open|pin|practice|practise|prefer|put|read|rebase|recall|record|reduce|remember"
    "|remove|rename|repeat|restart|retry|review|rotate|run|save|schedule|set|skip|sleep|space|split|start|stop"
    "|store|study|switch|take|test|try|turn|update|upgrade|use|wait|warm up|watch|write|flush|subscribe|poll"
)
IDENTITY = re.compile(
    words(
        r"^(?:i am|i'm) (?:a|an|the)",
        r"i(?:'m| am) (?:the only|the lead|the main|in charge|responsible)",
        r"my name is|i work (?:as|at|for|on)|i(?:'m| am) based in|i (?:live|grew up) in",
        ROLE_INTRO,
        r"my (?:role|job|title|timezone|time zone|(?:[\w-]+ )?(?:handle|username|user name|e-?mail|login)) is",
        r"i(?:'m| am) (?:allergic|lactose|vegetarian|vegan|colou?r-?blind)",
    )
    # "我是说你帮我 amend 一下", "我是想问…": "I mean", "I wanted to", not who the person is
    + r"|(?:^|[：:]\s*)我(?:(?:现在|目前)?是(?!说|想|觉得|问|讲|指|怕|担心|希望|故意|随便|开玩笑)|叫)"
    r"|^我的(?!习惯|原则|意思|想法|建议|问题)[^，。]{1,12}是"
    r"|我的名字|^我人在|^我住在|我的时区|^我(?:对[^，。]{1,8})?过敏|不耐受?|^我是?在?[^，。,在的]{2,6}[长長]大的"
    r"|^我在[^，。,]{1,12}(?:工作|上班|读书|上学)|^我(?:的)?(?:职位|职业|工作|身份|时区)是|^本人"
    r"|^我(?:主要)?负责"
)
# how the person wants to be spoken to: language, length, tone, summaries
COMMUNICATION = re.compile(
    words(
        r"(?:answer|reply|respond|talk|write|explain|speak|communicate)(?:s|ing)?(?: to me)? in (?:chinese|english"
        r"|mandarin|\w+ (?:chinese|english))",
        r"in (?:chinese|english) (?:please|only|from now on)",
        r"(?:answer|reply|respond|write)(?:s|ing)?(?: to me)? in (?:繁中|简中|繁体|简体|中文|英文)",
        r"(?:answer|reply|respond|talk|write)(?:s|ing)?(?: to me| me)? in (?:whatever|the same|my) language",
        r"(?:keep|make) (?:your |the )?(?:answers?|replies|responses|it|them|explanations?|messages?|[\w-]+) "
        r"(?:short|brief|concise|terse)",
        r"be (?:brief|concise|terse|direct)",
        r"no (?:long )?(?:summaries|summary|recaps?|preamble|apologies|essays?)|tl;?dr (?:first|up top|on top)",
        r"(?:skip|drop|leave out|cut) (?:the |any |your )?(?:final )?(?:recaps?|summar(?:y|ies)|preamble)",
        r"(?:don'?t|do not|never) guess(?! (?:the|a|an|its|their|from)\b)"
        r"|say (?:so|that you don'?t know|you don'?t know) (?:instead of|rather than) guess",
        r"(?:don'?t|do not|stop|never) (?:summari[sz]e|recap|apologi[sz]e|explain everything)",
        r"comments? (?:in|should be in|can be in|may be in) (?:english|chinese)",
    )
    # (not a name or a text the work shows: "分类名用中文：餐饮、交通…", "提示语用中文，告诉学生…")
    + r"|(?<![名语题段案档签])用(?:繁体|简体)?中文|说中文|讲中文|回复中文|(?:中文|英文)回(?:[复答]|我)|用英文回"
    r"|回答.{0,6}(?:中文|英文|简短|简洁|短一?点)|(?:回我|回复我?|回答我?)的时候|(?:回我|回复我|跟我说|和我说).{0,6}(?:中文|英文|繁体|简体|繁中|简中)"
    r"|(?:别|不要|不准)(?:瞎|乱)?猜|不确定就说|不知道就说|简短|简洁|别啰嗦|不要啰嗦|少废话|不用总结|不要(?:每次都?)?总结|别(?:每次都?)?总结|注释.{0,6}(?:英文|中文)"
    # how to give the person times: "时间都按北京时间给我", "give me times in Beijing time"
    r"|(?:时间|日期|时刻)都?(?:按|用)[^，。；]{1,8}(?:给我|告诉我|写给我)"
    r"|(?<![a-z])(?:give|show|tell) me (?:the )?times? in|(?:跟我|和我|给我)(?:说|讲|报)(?:时间|日期|时刻)"
)
# a step of the work taken again and again: what is done before it is done each time
_EACH_STEP = r"(?:commit|push|merg|deploy|releas|ship)(?:e|es|ed|ing)?"
# …so a step before it is a standing one: "run spotlessApply before you commit", "lint before you say it's done"
BEFORE_EACH_STEP = re.compile(
    words(rf"before (?:you |we |i )?{_EACH_STEP}", r"before (?:you )?(?:tell(?:ing)? me|say(?:ing)?) [^.,;]{0,24}?done")
    + r"|(?:提交|push|commit|合并|merge|发版|上线)(?:[^，。,;；]{0,12}?之前|\s*前(?!端))"
    + f"|{BEFORE_CHANGE}"  # …and before any change is made
)
# what holds every time, not just for the task at hand
STANDING = re.compile(
    words(
        r"always|never|from now on|going forward|for good|from here on(?: out)?|in (?:the )?future|every time",
        r"whenever|by default|as a rule|no more",
        r"(?<!the )(?<!that's )(?<!for )(?<!until )next time(?!:| (?:we|i|you) (?:meet|talk|see))",
        # a rule recalled ("Remember: …") and one that turns a kind of thing down ("No emojis.")
        r"^remember[,:]",
        r"^no (?!worries|problems|thanks|ideas|changes|errors|issues|tests? (?:fail|pass))[a-z-]+s(?=[,.!;]|$)",
        r"(?:don'?t|do not) ever|at all times|(?:^|(?<=: ))(?:nobody|no one) (?:runs|touches|pushes|deploys|merges)",
        r"in (?:this|our|the) (?:repo|project|codebase)",
        r"(?:every|each) (?:single |new )?[a-z]+",
        r"before (?:any|every|each) [a-z]+",  # "Before any migration goes near a database, show me its SQL first"
        r"(?:all|any) (?:new |other )?(?:code|files?|components?|endpoints?|tests?|commits?|prs?|projects?|repos?"
        r"|answers?|replies|messages?|functions?|modules?|services?|deploys?|releases?|branches?)",
        r"ever(?=[.!]?$)",
        r"^no [a-z][\w.-]* (?:on|after|before|during|in|for|without|unless)\b",
        r"make sure (?:to|you)|remember to|don'?t forget to",
        r"(?:should|must) (?:always|never|be)",
        r"^(?:about|regarding|as for) [^:,]{1,40}:",
        r"first\b.{1,60}\bthen",
        r"only(?= —| -|[,.;]|$)",
        r"only (?:in|for|on|from|via|through|after|when|if|once)\b",
        r"everywhere|at most \d|no more than \d|at least \d|max(?:imum)? (?:of )?\d|without asking (?:me|us)",
        r"ask (?:me|us|him|her|them)(?: first)? before",  # "Kevin owns the Kobo models. ask him before changing …"
        # where a thing is never put: "region mapping doesn't go in a case statement", "keys don't go in settings.py"
        r"(?:doesn'?t|don'?t|does not|do not) (?:go|belong|live) (?:in|into|inside)",
        # a setting that holds as it is: "dbt_daily DAG stays at 02:00 EAT", "PgBouncer stays in transaction pooling"
        r"(?<!it )(?:stays?|remains?) (?:at|on|in)(?= (?!whatever\b|the (?:bucket|cart|queue)\b))",
        r"except\b",
        r"^(?:on|for|in) [\w-]+ (?:machines?|boxes|hosts?|servers?|branches|repos?|builds?)\b",
        r"^no [a-z][\w.-]* (?:pls|please)",
        r"i want \S+ to (?:have|be|use|stay|keep|run)",
        r"^for (?:all |every |any )?[a-z][a-z ]{1,30}(?:,\s*|\s+)(?:add|use|keep|put|write|always|never|don'?t|prefer)",
        r"^(?:before|after|when|whenever) [a-z]+ing\b",
        r"^(?:after|once|when|whenever|if|before) (?:you|we) (?:touch|change|edit|add|update|bump|modify|rename|create"
        r"|upgrade|remove|delete)\w{0,2} (?:any(?:thing)?|an?)\b",  # "after you touch any Drift table, run …"
        rf"before (?:you |we )?{_EACH_STEP}\b",  # "before you commit, …"
        r"before (?:you )?(?:tell(?:ing)? me|say(?:ing)?) [^.,;]{0,24}?done",  # "… before you tell me it's done"
        r"only (?:ever )?(?:use|add|write|run|edit|touch|deploy|commit|merge)",
        r"otherwise",
        r"(?:has|have|needs?) to be|(?:prs|mrs|pull requests) (?:need|require|must get) (?:a |an )?(?:review|approval)",
        r"in (?:all|each|every one) of my (?:repos|projects)|in all my (?:repos|projects)",
        r"one (?:concern|thing|change|feature|fix|topic|model) per (?:pr|mr|commit|branch|review)",
        r"(?:are|get) (?:named|called|prefixed|suffixed)\b",  # a convention for a kind: "DLQ topics are named …"
        r"make [^.;,]{1,40} the default",
        # a window of hours kept clear every day: "no watering at all between 11:00 and 17:00"
        r"(?:no|never|don'?t|do not) [^.;]{0,40}?between \d{1,2}(?::\d{2})?\s*(?:am|pm)? and \d{1,2}",
    )
    # (outside the word bounds, which a comma after a word never passes): "No prefixes, remember.", "no React, no DRF."
    + r"|[,;] remember[.!]*$|, no (?!(?:worries|problems?|thanks|ideas?|changes?|errors?|issues?|pressure|rush|luck"
    r"|hurry|doubt)\b)[a-z][\w.-]*(?=\s*(?:$|[,.;—]))"
    + r"|(?:^|[,;—–] |[，；—])\s*(?:don'?t|do not|never|no need to|stop) (?!worry|know|care|think|mind|bother)[a-z]+"
    r"(?! (?:anything|it|this|that|these|those|them)\b)"
    r"|凡是|^(?:所有|任何)[^，。]{1,16}都|^(?:关于|至于)[^：:，,]{1,20}[：:]|(?:^|[，,；;\s])\s*(?:你|也|都|就|千万|你也|但是?|可是|不过)?(?:别|不要|不能|不可以|不许|不准|不用|唔好)(?!管|急|担心|客气|动|搞|的|人)\s*[a-z\u4e00-\u9fff]"
    rf"|先[^。；;]{{1,40}}(?:再|然后|才(?:能|可以))|(?:提交|commit|push|合并|merge|发版|上线|部署|deploy)\s*(?:之)?前\s*(?:都|要|先|一定|必须)|{BEFORE_CHANGE}|{MY_STEP}|(?<!的)默认|预设|(?:^|[\s\u4e00-\u9fff])(?<!能)用\s*[a-z][\w.-]+|只(?:跑|用|在|要|写|装|留|能)"
    # the one case a thing is done in: "只有要顯示給病人看的時候才轉 Asia/Taipei" (not "只有推送点进去才崩", a symptom)
    r"|只有[^，。；！？]{1,40}?才(?![^，。；！？]{0,4}(?:崩|挂|报错|出错|失败|卡|闪退))"
    r"|从来不|从不(?!管)|向来不|(?:最多|至少|不超过|不少于)\s*[等隔开跑试重拎接带派]?\s*\d|(?:最大|最小|上限|下限|控制在)\s*\d[\d.]*\s*(?:%|[a-z]{1,3}|分钟|秒|字|条|个|次|小时)?(?![\d.%a-z]|\s*了)|只能|只用|只在|只喝|只吃|只允许|[^，。]{1,20}要[^，。]{1,30}[，,]\s*(?:不然|否则)|以后(?!再说)|今后|从现在起|从今以后|往后|每次|一律|统一|永远|绝对不(?!行|会|是)|绝不|始终|总是用|一直(?:都|用)|都要|务必|一定要|必须|禁止|不许|不准"
    r"|(?:不可以|不能|不准|不许)有|千万(?:别|不要)|记得|别忘了|[，,]\s*记住[。！!]*$|^记住[，,：:]|所有(?:的)?(?:代码|文件|组件|接口|测试|提交|项目)"
    # when a rule holds, as "when writing …," says in English: "写博客文章的时候，中英文之间加空格"
    r"|^(?![^，。]*(?:了|发现|突然|结果))[^，。]{2,16}(?:的时候|之前|以前|之后)[，,]"
    # …and a window of hours kept clear: "夜里 23 点到早上 8 点不推送", "盘中 9:15–15:00 禁止重启 gateway"
    r"|(?:\d{1,2}\s*点|\d{1,2}:\d{2})\s*(?:到|至|-|–|~)\s*(?:第二天|次日|早上|凌晨|上午|晚上)?\s*\d{1,2}\s*(?:点|:\d{2})"
    r"[^，。；]{0,8}?(?:不|别|不要|不许|禁止)"
    # what recurs, as "every Thursday" does in English: "每周四下午 3 点发版", "每天早上先看告警"
    r"|每(?:周|星期|礼拜)[一二三四五六日天]|每(?:天|日|晚|个?月|年)(?:早上|上午|中午|下午|晚上)?"
    # a rule for a kind of thing, as "payment PRs need …" says: "payment 相关的 PR 要找阿Ben review"
    r"|^[^，。]{1,16}(?:相关|有关)的\s*[a-z\u4e00-\u9fff]{1,8}\s*(?:都|一律)?(?:要|必须|得)(?!不要)"
    # the person says it was said before ("as I said the other day, …", "…，说过了"): it held then and holds now
    r"|" + RESTATED.pattern
)
PREFERENCE = re.compile(
    words(
        r"i (?:really |much |strongly |generally )?(?:prefer|like|love|hate|dislike|enjoy|can't stand)",
        r"i(?:'d| would) rather",
        r"i (?:always|usually|never|tend to|normally) (?:use|write|run|pick|choose|keep|put|read|work|go|do)",
        r"(?:i|we) (?:don'?t|do not) (?:like|want)",
        r"my (?:favorite|favourite|preferred|go-to)",
        r"(?:please )?(?:always|never|only) use",
        r"(?:don'?t|do not|never) use",
        r"use \S+(?: \S+){0,2},? (?:not|instead of|rather than|over)",  # "use the root.rec.algo queue, not default"
        r"(?:we|this (?:repo|project|codebase)|the (?:repo|project|codebase)) (?:uses?|is on|runs on|sticks? to)",
        r"(?:this|it)(?:'s| is) an? \S+ (?:repo|project|codebase|shop|monorepo)",
        r"(?:we|i) (?:use|write|keep|run) \S+ for",
        r"my habit is",
        r"i(?:'m| am) on (?!it|that|this|the|my way|call|leave|vacation)[a-z][\w.-]*",
        r"(?:we|i) (?:don'?t|do not|never) "
        r"(?!know|think|need|have|see|get|understand|care|buy|agree|mind|remember|recall)[a-z]+",
        r"^(?:use|format|write|name|keep|store|call|prefix|wrap|log|pin|test|mock|build) [^,.;]{1,40}"
        r" (?:with|using|via|through|in|under) [a-z][\w.-]*",
    )
    + r"|我(?:很|更|比较|最|一直|还是)?(?:喜欢|偏好|爱用|讨厌|不喜欢|倾向于?)|习惯(?:用|于|先|在)|偏好|不想(?:用|上)"
    r"|不要用|别用|一律用|统一用|我(?:一般|通常|总是|从不|从来不)|我们(?:都)?用|这个\s*(?:项目|仓库|repo)\s*(?:用|是)"
    r"|[^，。,]{1,12}(?:而不是|不要用|别用)|我的习惯|(?:message|msg|提交信息)\s*(?:都|一律|统一|还是)?\s*[用写]?(?:中文|英文)"
    r"|(?<=[名语题段案档签])用(?:繁体|简体)?(?:中文|英文)"  # the language of what the work shows: "分类名用中文"
)
CORRECTION = re.compile(
    words(
        r"^(?:no|nope|wrong|incorrect)(?=[,.!:;—–-])",
        r"that(?:'s| is) (?:wrong|not right|incorrect|outdated)",
        r"(?:is|are|was|were|should be|it's|its|comes? from|lives? (?:in|at|on)|goes? (?:to|in|into)|runs? (?:on|in|at)"
        r"|uses?|reads? from|listens? on)\s+[^,.;]{1,40},\s*not\s+[^,.;]{1,40}",
        r"\(not [^)]{1,30}\)",
        r"\d[^,.;]{0,20},\s*not\s+(?:the\s+)?[\w.-]*\d",
        r"not [\w.-]+(?: [\w.-]+)?,? but",
        r"actually,? (?:it(?:'s| is)|the|we|our|that|this)",
        r"in fact",
        r"turns out",
        r"it turned out",
        r"correction",
        r"(?:is|was|are|were) (?:wrong|incorrect|outdated|a myth|not true)",
        r"you(?:'re| are) wrong",
        r"i was wrong",
        r"mistaken(?:ly)?",
        r"misremembered",
    )
    + r"|^不对|^不是的|^错了|^[\u4e00-\u9fffa-z]{1,6}?也?(?:不对|错了)[，,]"
    r"|其实|纠正|更正|实际上|搞错|弄错|记错|说错|并不是|并非|误区"
    r"|不是[^，。,]{1,20}[，,]?\s*(?:而是|是|用)|^不是[^，。,]{1,20}[，,].{1,20}(?:是|用)|[，,]\s*不是\s*[^，。,]{1,20}$"
    r"|应该是"
)
DECISION = re.compile(
    DECISION_CUES.pattern
    + r"|"
    + words(
        r"decision:",
        r"(?:we|i)(?:'re| are)? go(?:ing)? with",
        r"(?:we|i)(?:'re| are) (?:keeping|sticking with|staying with|staying on)",
        r"let's (?:just )?(?:go with|use|do|keep|stay with|pick)",
        r"(?:we|i)(?:'ll| will) (?:just )?use",
        r"stick(?:ing)? (?:with|to)",
        r"keep using",
        r"(?:mov(?:e|ing)|switch(?:ing)?|migrat(?:e|ing)) (?:(?:[\w-]+ ){1,3}from [\w.-]+ )?(?:to|over to|from)",
        r"(?:got |been |was |is )?(?:pushed|moved|postponed|delayed|bumped|rescheduled|slipped) (?:back )?to",
        r"(?:we're|we are|i'm|i am|it's|it is) pinned to",
        r"(?:we're|we are|we've|we have) chang(?:ing|ed) (?:the |our )?[\w -]{1,30}? to",  # "… half-life to 72h"
        r"(?:the )?(?:plan|call|verdict) is",
        r"agreed:|we agreed",
        r"(?:we|i)(?:'ve| have)? (?:(?:dropped|ditched|retired|got rid of)(?! the (?:ball|call)\b)|stopped \w+ing)",
        # a setting or a schedule moved: "AC threshold goes to 27°C now", "TestFlight goes back to Xcode Cloud",
        # "Move the nightly run to 3:30"
        r"(?:goes|go|going|went) back to|(?:goes|went|is going) (?:up |down )?to [^,.;:!?]{1,30}? now",
        r"move (?:the |our |my |its )?(?:[\w-]+ ){0,3}?to \d{1,2}(?::\d{2}|\s?[ap]m)(?![\w:])",
        # where a kind of thing goes, said of all of them: "migrations go in an ArgoCD PreSync hook Job"
        r"(?<!\bwe )(?<!\byou )(?<!\bthey )[a-z][\w-]*s (?:always |only )?go (?:in|into|under)"
        r"(?= (?!and\b|there\b|here\b))",
    )
    + r"|决定|(?<![搞稳])定了|定下来|拍板|结论[是:：]|就用|就定|先定|定[成为]|选定|选了"
    r"|采用|改用|换成|改成|改为|迁到|搬到|升到|升级到|降到|不用[^，。！？,.!?]{0,15}了|先不|放弃|不[^，。]{1,10}了[，,]\s*改"
    r"|[改换切]回(?![来去])|[改换切]返\s*(?:\d|[a-z][\w.-]*(?=\s*(?:[，。,.;；!！吧]|$)))"  # "改回 YAML", "改返 15"
    + r"|换\s*[a-z][\w.-]+(?:=[\w.-]+)?\s*[吧，,]"  # "…，换 franz-go 吧", "換 parse_mode=HTML，…"
    + f"|{MOVED_TO}|延到"
    + f"|{FROM_THEN_ON}"
    r"|(?:我们|组里|团队)[^，。]{0,30}(?:去掉|砍掉|弃用|停用|下掉)了"  # what we gave up: "我们上周把 GE 去掉了"
)
ENTITY = re.compile(
    words(
        r"port\s*(?:is|=|:|用|改成|改为)?\s*\d{2,5}",
        r"(?:localhost|127\.0\.0\.1|0\.0\.0\.0):\d{2,5}",
        r"listens on",
        r"runs on",
        r"(?:is|are) (?:located|stored|kept|hosted|deployed|mounted|installed|pinned) (?:in|at|on|under|to)",
        r"lives (?:in|at|under)",
        r"(?:is|are) (?:maintained|owned|run) by",
        r"(?:is|are) responsible for",
        r"(?:owner|maintainer|contact|on-call|oncall|lead) (?:is|of|for)",
        r"version\s*(?:is\s*)?v?\d+(?:\.\d+)*",
        r"v\d+\.\d+(?:\.\d+)*",
        r"[a-z][\w.-]* v?\d+\.\d+\.\d+",
        r"(?:go|python|node|java|postgres(?:ql)?|mysql|redis|react|vue|next(?:\.js)?|rust|ruby|php|typescript|ts"
        r"|kotlin|swift|ubuntu|debian|nginx|django|rails|k8s|kubernetes) \d+(?:\.\d+)*",
        r"(?:is|are|=) (?:\w+ )?\d+(?:\.\d+)?(?: ?(?:%|ms|s|seconds?|minutes?|hours?|days?|mb|gb|rows?|items?|px))?",
        r"(?:is|are|lives|sits|runs) (?:at|on|in|under) [\w.-]+(?:[.:/][\w.-]+)+",
        r"(?:is|are|be) (?:\w+ ){0,3}(?:on|at) (?:port )?\d{2,5}",
        r"(?:host|hostname|url|endpoint|path|dir|directory|folder|branch|bucket|region|database|db|timeout|limit"
        r"|page size|domain|cluster|namespace|queue|topic|channel|deadline|launch(?: date)?|release(?: date)?"
        r"|due date|budget|password manager|python|node|go|java|bar|threshold|target|cutoff|sla|slo|quota)"
        r" (?:is|are|=|:)(?=\s+\S)",  # a lookahead, so the word after the key closes no word boundary
        r"(?:lr|learning rate|batch(?: size)?|epochs?|warmup|dropout|temperature|seed|timeout|retries|workers"
        r"|threads|replicas|max_[a-z_]+|grad(?:ient)? norm)\s*(?:=|:|is|at|to)?\s*\d[\w.%]*",
        r"^(?:owner|contact|lead|on-?call|maintainer|infra contact)[^:]{0,20}:(?=\s*\S)",
        r"(?:is|are) (?:managed|named|called|prefixed|suffixed|versioned|tagged) (?:with|by|as|like|after)",
        # a naming pattern: "staging models are named stg_<source>__<entity>"
        r"(?:is|are) (?:named|called|prefixed|suffixed) [\w.-]*<[\w -]+>[\w<>.-]*",
        # a template with its placeholder: "commit msgs are `ITIN-<n>: imperative summary`"
        r"(?:is|are) `[\w.:/ -]*<[\w -]+>[^`]*`",
        # the key a setting is under, and the file: "the weight is canary.weight in values-prod.yaml"
        r"(?:is|are) `?[\w-]+(?:\.[\w-]+)+`? in `?[\w./-]+\.(?:ya?ml|json|toml|ini|conf|env|tf|tfvars|properties)",
        r"(?:names?|naming|prefix) (?:is|are) [\w<>{}/.-]*[<{/_.-]",
        r"(?:prod|production|staging|dev|ci) (?:runs|uses|has) \d+",
    )
    + r"|https?://[^\s]+|(?:^|[\s(（\"'`“：:=])(?:~|\.{1,2})?/[\w.-]+/[\w./-]*|[a-z]:\\[\w\\.-]+"
    r"|[\w.-]+/[\w.-]+/|是\s*[\w.-]*\d|(?:放|存|写|配|读)(?:在|到|从)\s*[a-z.]|从[^，。]{0,10}[a-z_]{3,}[^，。]{0,6}读"
    r"|端口(?:号)?\s*(?:是|为|用|:|：|改成|改为)?\s*\d{2,5}|监听|位于|存放在|存储在|部署在|放在|装在|在\s*/[\w.-]"
    r"|(?<![我你他她在])在\s*(?:\d{1,3}(?:\.\d{1,3}){3}|[a-z][\w-]*(?:\.[\w-]+)*\.[a-z]{2,}\b)"
    r"|负责人|维护者|联系人|版本(?:号)?\s*(?:是|为|:|：)?\s*v?\d|(?:地址|路径|目录|分支|域名|集群|区域|超时|截止|上线日期"
    r"|发布日期|预算|每页)(?:时间|日期)?\s*(?:是|为|在|：|:)|\d+\s*(?:个|条|秒|分钟|天|小时|mb|gb|ms|s)\s*[，,]\s*不是"
)
METHOD = re.compile(
    rf"^(?:first,? |then,? |always |never |please )?(?:{_IMPERATIVE_VERBS})(?![a-z0-9_'])"
    + r"|[;:] (?:"
    + _IMPERATIVE_VERBS
    + r")(?![a-z0-9_'])|"
    + words(
        r"how to",
        r"steps?",
        r"first\b.{1,60}\bthen",
        r"make sure",
        r"remember to",
        r"be sure to",
        r"the (?:trick|key|rule)(?: is|:)",
        r"rule of thumb",
        r"best practice",
        r"tip",
        r"works? (?:better|best)",
        r"(?:is|are) better than",
        r"better to",
        r"(?:you|we|one) (?:should|must|need to)",
        r"should (?:always|never|be)",
        r"too (?:coarse|slow|fast|long|short|fine|aggressive|strict|loose|rigid)",
        r"on days? \d+",
        r"every \d+ (?:days?|hours?|weeks?|minutes?|months?)",
    )
    + r"|(?:方法|步骤|做法|技巧|诀窍)(?:是|：|:|就是)|先[^，。；,;]{1,24}(?:再|然后)|(?:之前|以前|前)先|记得|务必"
    r"|一定要"
    r"|最好|建议|尽量|应该|应当|第\s*\d+(?:\s*[、,，和及]\s*\d+)+\s*天"
    r"|(?:设成|设为|设置为|调到|调成|改成|改为)\s*\S{0,12}\d|第[一二三四五六七八九十\d]+步|^每(?:天|周|次|隔|月|年)|^按|按第|太粗糙"
    r"|太死板|更好|更有效|关键是|要点|原则"
)
EVENT = re.compile(
    r"\d{4}[-/.年]\d{1,2}(?:[-/.月]\d{1,2}日?)?|\d{1,2}月\d{1,2}[日号]|"
    + words(
        r"(?:jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?",
        # …and the day first, as in Britain or Kenya: "Good Friday 3 April", "Sat 14 March"
        r"\d{1,2}(?:st|nd|rd|th)? (?:jan|feb|march|apr|june?|july?|aug|sept?|oct|nov|dec)[a-z]*",
        r"yesterday",
        r"last (?:week|month|night|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)",
        r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)",
    )
    + r"|昨天|前天|上周|上个月|上星期|去年"
)
HAPPENED = re.compile(
    words(
        r"released|launched|shipped|deployed|migrated|met|started|finished|broke|failed|went down|outage|incident"
        r"|moved|joined|left|signed|upgraded|renewed|bought|passed|booked|bumped|went live|rolled back"
    )
    + r"|发布|上线|部署|迁移|开会|见了|开始|完成|故障|宕机|挂了|回滚|入职|离职|签了|搬|升级|买了|考过|订了"
)
# (category, strength, pattern): the strongest match names the category
CUES: tuple[tuple[str, float, re.Pattern[str]], ...] = (
    ("identity", 3.5, IDENTITY),
    ("decision", 3.2, DECISION),
    ("correction", 3.1, CORRECTION),
    ("preference", 3.0, COMMUNICATION),
    ("preference", 3.25, PREFERENCE),
    ("preference", 1.9, STANDING),  # in a note a method outranks it; in a chat a method is a standing rule
    ("entity", 2.4, ENTITY),
    ("method", 2.0, METHOD),
    ("event", 1.5, EVENT),
)
# in a conversation, only these say something that lasts beyond the task at hand
CONVERSATION_CUES = frozenset({IDENTITY.pattern, COMMUNICATION.pattern, STANDING.pattern, PREFERENCE.pattern,
                               CORRECTION.pattern, DECISION.pattern, ENTITY.pattern, EVENT.pattern})  # fmt: skip

BOILERPLATE = re.compile(
    words(
        r"subscribe|all rights reserved|copyright|cookies?|click here|sign up|share this|join our newsletter|follow us"
        r"|thanks for reading|sponsored|advertisement|let me know|feel free|happy to help|table of contents"
    )
    # a page's furniture ("欢迎订阅", "（广告）"), not a rule that names the thing ("低于这个数就不加订阅")
    + r"|转载|版权|(?:欢迎|点击|记得|一键)订阅|订阅(?:我们|本号|频道)|关注我们|点赞|扫码|公众号|免责声明|原文链接"
    r"|^[(（]?广告[)）]?$|随时告诉我|^目录[:：]?$"
)
QUESTION = re.compile(
    words(r"^(?:how|what|why|where|which|who|is|are|do|does|did|can|could|should|would|will|shall|any idea)")
    # …not the English word a Chinese sentence names: "can 解析就放 src/can/ 下面" (the CAN bus)
    + r"(?!\s*[\u4e00-\u9fff])"
    # "…写着呢" asserts: 呢 after 着 says it is so
    # "…不能只写改了什么" names what, and asks nothing: 什么 after a rule's 不能, 只, 必须, 不管 ends no question
    + r"[^.;]*$|吗$|(?<!什)么$|^(?![^。；]*(?:不能|不要|别|只|必须|不管|无论|不论))[^。；]*什么$"
    r"|(?<!着)呢$|^(?:为什么|怎么|如何|是否|要不要|能不能|可不可以|有没有|会不会|是不是)[^。；]*$"
)
# guesses, open decisions and what-ifs are not knowledge yet
HEDGE = re.compile(
    words(
        r"(?<!if you're )(?<!if you are )(?<!when you're )not sure|unsure|i wonder|maybe|perhaps|not certain"
        r"|haven't decided|not decided|undecided|tbd|(?<![-/.])todo(?![-/.])"  # not "docs/i18n-todo.md"
        r"|^(?:\*\*)?(?:action items?|follow-?ups?)\s*:"  # a note's "**Action items:** PLAT-1302 …": work for once
        r"|^if we ever|what if|might|probably|we could|could we|let's see|let me think|for now|for this run"
        r"|(?:for|on|with) this (?:one|task|pr)|just this once|this time|asked (?:whether|if)|wondered"
        r"|in this (?:pr|change|branch|commit)"
        r"|i guess|i suspect|my guess|(?:don'?t|do not)\b[^.;]{0,60}\byet"  # "Don't wire it into the hot path yet"
        # a guess at what is wrong now: "my bet is the sub condition", "I'm pretty sure it's the 4 upload workers"
        r"|my bet|i bet|i'?m (?:pretty|fairly|almost) sure (?:it'?s|that'?s|the)"
    )
    + r"|不太确定|(?<!说)不确定(?!就说|的话就说)|(?<![说都也人他她])(?<!实在)(?<!如果)不知道(?![^，。；,;]{0,12}?就)"
    r"|也许|或许|待确认|还没决定|没决定|待定|有待"
    # (not the change at hand of each time: "只更新跟这次改动有关的那支")
    r"|^如果以后|^万一|^要是|可能|考虑一下|先这样|这次(?![^，。；,;]{0,6}(?:有关|相关))|暂时先"
    r"|问(?:要不要|是否|能不能)|问问而已|只是问问|随便问问|问一下而已|再议|再算|按我说的|照我说的"
    r"|这个 ?pr(?![a-z])|一下就好|一下就行|我猜|估计|猜测|怀疑是|多半是"
    # a value moved for now: "max-poll-records 先降到 100" (not "先跑测试再提交", an order of steps)
    r"|先(?:降|升|调|改|设|切|换|加|减|扩|缩)(?:到|成|回|为)(?![^，。；]*(?:再|然后))"
    # what to use for now: "DATABASE_URL=… 你先用这个连测试库", "先用着" (not "优先用这两台", "先用 ruff 查一遍再提交")
    r"|(?<![优首事原预])先用(?:这个|这|着|它)(?![^，。；]*(?:再|然后))"
)
# the hedges that doubt only their own clause ("这次一定要一把过", "header 自己拼一下就行"), not a rule before it
# …and a closing clause for today or tomorrow: "图表用 matplotlib，出 png，今天先不画，明天再说"
LOCAL_HEDGE = re.compile(
    r"这次(?!先|就|用|还是)|一下就好|一下就行|今天(?!起|开始)|明天|今晚|后天|"
    + words("today|tomorrow|tonight|for this one")
)
# a request for the task at hand: only a standing cue makes it a rule
REQUEST = re.compile(
    words(
        r"^(?:can|could|would|will) you",
        r"^(?:please |pls |now |ok now |then |next,? |and )?(?:fix|add|run|rerun|re-run|check|look|update|remove|delete"
        r"|rename|refactor|write|implement|create|make|show|explain|try|debug|commit|push|open|read|move|install|build"
        r"|deploy|revert|undo|change|bump|test|list|print|find|search|generate|set up|go ahead|continue|help|start"
        r"|finish|clean up|review|investigate|figure out|give me|send|copy|paste|merge|rebase|squash|retry|wrap|put"
        r"|include|mention|note down|write down|kill)"
        # "commit messages use …", "test names say …", "read-only kubectl …": the verb's word is a noun's, no ask
        r"(?!-[a-z])(?! (?:(?:message|msg|hook|notification|log|title|name|rule|convention)s?|history|style|format)\b)"
        # …nor when a Chinese comment on it follows ("push 我自己来", "commit 可以"), or it is defined ("deploy … is:")
        r"(?!\s*(?:我|你|咱|都|要|必须|一律|只|永远|不|别|可以|就|还是|统一|默认|用|走))(?![^,.;:!?]{0,40} is:)"
        r"(?!\s*[:：])",  # …nor a caption over its rules: "commit：這個 repo 不用 conventional commits"
        r"^let's (?:fix|look|check|try|see|add|run|debug|write|make|start|continue|do|wrap|first|now|cut|ship"
        r"|release|tag|bump|merge|push|deploy)",
        r"^i (?:need|want) you to",
        r"^help me",
        # a piece of work wanted: "Need a migration for …", "I want a GitHub Actions workflow that …", "Weekend
        # project: …"
        r"^(?:so |ok |also )?(?:i |we )?need (?:a|an|to (?:add|write|build|make|create|implement|set up|get))",
        r"^(?:so |ok |also )?i(?: want| need|'d like|'d love| would like| would love) (?:a|an|each|to (?:start|add"
        r"|build|write|set up|get|have|make|try|import|create|implement|switch|move|do|fix|prepare|port|wire))",
        r"^weekend project",
        r"^(?:just )?(?:swap|replace|switch|turn|point|convert) (?:it|this|that|them)",  # "Swap it for next/font/local"
    )
    + r"|^(?:请|麻烦|pls |please )?(?:你)?(?:先\s*|再\s*)?(?:(?:read|run|fix|check|look)(?![a-z]|-[a-z])"
    r"|帮我|帮忙|看下|看看|看一下|试试|试一下|(?:要|我要|想)?(?:写|做|搞)(?:个|一个)"
    r"|跑一下|跑下|修一下|修下|改一下|改下|加一下|查一下|查下|想一?下"
    r"|再跑|重新|继续|先看|先跑|先把|把|给我|存到|保存到|放到|写到|输出到|加(?:一个|个|一条|上))"
    # a thing to do once: "…都改一下", "改完 parse 一下", "改成 broadcast 试试"
    r"|(?:跑|看|试|测|查|弄|验证|确认)一下|(?<!每)(?:改|修|调|换|删|加|列|写|整理|处理|检查|更新|升级|部署|排查|优化|重构|[a-z]\s?)一下(?!子)|试试看?[。！!]?$|再(?:跑|试|来)(?:一次|一遍)?$"
    # "你在 dev 里跑一遍 fct_orders", "…那段逻辑帮我挪到 features.py 里去"
    r"|(?:跑|过|测|试)一遍|帮我(?:把|挪|改|加|删|写|跑|移|搬|拆)"
    # work asked for on the way: "上面那个 depots_near(...).await.unwrap() 顺手改掉"
    r"|顺手(?:也|一起|帮我|给我)?(?:改|修|删|加|把|补|换|清|处理|弄|跑|更新)"
    r"|(?:也|一起)(?:补上|加上|改掉|删掉|去掉|补一下|加一下)"  # "…，昨天那个 priority 的也补上"
)
# an ask not to keep what was just pasted (a secret, a line): for the paste at hand, never a rule
FORGET_PASTE = re.compile(
    r"(?:刚才|刚刚)(?:那|这)?[^，。]{0,12}?(?:别|不要)记|(?:别|不要)记(?:下来|住)?(?=[，,。.！!；;]|$)"
)
# a reminder for one day is not a standing rule
ONE_OFF = re.compile(
    words(
        r"tomorrow|tmrw?|tmw|tonight|tonite|today|this (?:morning|afternoon|evening|weekend|monday|tuesday|wednesday"
        r"|thursday|friday|saturday|sunday)|right now|at the moment|currently|(?:after|before) lunch"
    )
    # a weekday is one day, unless it recurs: "每周二", "固定周二", "周二、周四晚上", "周一到周五", "两周一次"
    + r"|(?<![每起上定逢两几一二三四0-9])(?<!周[一二三四五六日天][、和与及至到])(?<!周[一二三四五六日天])"
    # (nor a date's own weekday: "截止时间是 3 月 21 日（周日）23:59")
    r"(?<![日号\d][（(])(?:这|本|下)?周[一二三四五六日天]"
    r"(?!起|开始|\s*[、和与及至到]?\s*周|\s*(?:就|已经)?(?:说|讲|提)过)|明天|今天(?!起|开始)|今晚|后天"
    # …and an ask not to keep what was just pasted: "刚才那一行不要记", "密码贴进来了，麻烦别记下来"
    r"|" + FORGET_PASTE.pattern
)
# what is done for now and settled later, whatever it decides: "这个函数先放在 test 文件里，回头再挪到 tjrig 里",
# "timeout 先给 90 秒跑通再说"
PUT_OFF = re.compile(  # …and "not yet, later": "先不要 commit，我晚點跟別的一起"
    r"回头(?:再|我)|(?:^|[，,；;]\s*)先[^，,。；;]{1,30}?再说|先(?:不要|别)[^，,。；;]{1,20}[，,]\s*我?(?:晚点|待会|等会|稍后)"
)
_WEEKLY = re.compile(r"[每逢](?:周|星期|礼拜)[一二三四五六日天]|固定")  # …or a day kept fixed: "这学期固定我去接"
_NEVER_ON = re.compile(r"从来不|从不|永远不|向来不")
_ONWARD = re.compile(  # from when on (not "下班以后", its hour), or a value as it is now ("retention is 14 days now")
    # "From today the reminder goes out at 2.30pm on weekdays only", "今晚同以後都係咁" (tonight and on)
    words(r"from now on|going forward|from here on|from (?:today|tomorrow)(?: on)?|(?:is|are) (?:[\w/*-]+ ){1,3}now")
    + r"|今后|从现在起|从现在开始|(?:^|[，,；;。\s同和跟])以后(?!再)|现在(?:是|改成|改为|定为|统一)|"
    + FROM_THEN_ON
)
_BARE_DAY = re.compile(r"周[一二三四五六日天]")


# a standing choice of a named thing, which the model reads weakly for its few words: "feature store 以后统一用 feast",
# "always run go test …", "switch … from golang-migrate to goose", "exif 解析用 goexif 这个库", "anyhow everywhere"
_CHOSEN = re.compile(
    r"(?:以后|今后|一律|统一|到处都|全都|只|(?<![a-z])(?:always|only|from now on|going forward))[^，。,;；]{0,12}?"
    r"(?:用|走|(?<![a-z])(?:uses?|runs?))\s*[a-z][\w.+#/-]*|^[a-z][\w.+#-]* everywhere(?![a-z])"
    r"|(?<![a-z])switch(?:es|ed)? [\w -]{1,30}? from [a-z][\w.+#-]* to [a-z][\w.+#-]*"
    r"|用\s*[a-z][\w./+#-]*\s*这个(?:库|包|工具|框架|插件)"
    r"|(?<![a-z])use [^,.;]{1,30}? instead of\b"  # "use it instead of the shared AFRICASTKNG one"
    # a step always taken before another: "PR 一律等我 review 之后再合并", "always let me review before you merge"
    r"|(?:以后|今后|一律|统一|都要|(?<![a-z])always)[^，。,;；]{0,20}?(?:之后再|以后再|再(?:合|推|发|上线)"
    r"|(?<![a-z])before (?:you |we )?(?:merge|push|commit|deploy|release))"
)


def names_a_standing_choice(folded: str) -> bool:
    return _CHOSEN.search(folded) is not None


def one_off(folded: str) -> bool:
    """Tell whether a sentence is for one day ("明天", "this afternoon", "周五"); a day said beside a
    weekly one recurs as well ("每周四下午发版，周五不发版")."""
    # (not a day in quotes, which names a term: "算「診所的今天」的時候")
    days = [found.group() for found in ONE_OFF.finditer(QUOTED_WORDS.sub(" ", folded))]
    if not days or _ONWARD.search(folded):
        return False  # "Dropped Atlantis this morning; PR plans run in Actions from now on": the day is when it began
    if _NEVER_ON.search(folded):
        return False  # "週五從來不上 prod": never on that day is every one of them
    return not (_WEEKLY.search(folded) and all(_BARE_DAY.fullmatch(day) for day in days))


# words that make an instruction hold beyond the task at hand
GENERAL = re.compile(
    words(
        r"always|never|from now on|going forward|every|all|any|anything|in (?:the )?future|by default|ever|for good",
        # "give me the diff next time"; not "that's next time" (later) nor "Next time: …" (a to-do)
        r"(?<!the )(?<!that's )(?<!for )(?<!until )next time(?!:| (?:we|i|you) (?:meet|talk|see))",
    )
    # not "so that later": "导成 parquet，方便以后丢给别的工具" asks for one thing now
    + r"|(?<!方便)(?<!以便)(?<!便于)以后(?!再)|今后|从现在起|每次|每个|一律|统一|永远|始终|凡是|所有|任何|(?<!的)默认"
    + r"|都这样|都一样|只要[^，。,;；]{1,24}?[都就]|"  # "只要超過三個檔案的改動我都想先看計畫": whenever it comes
    + BEFORE_EACH_STEP.pattern
)
# what says a rule holds on, not "all" or "所有" ("——所有 pod 都正常" says how the day went)
HOLDS_ON = re.compile(
    words(r"always|never|from now on|going forward|by default|every time")
    + r"|(?<!方便)(?<!以便)以后(?!再)|今后|一律|永远|绝对不(?!行|会|是)|绝不|始终|从现在起|每次|从来不|从不(?!管)"
)


# a clause that turns to the task at hand: "你这里又写成大写了", "你刚才…", "这篇的 cover …", "this one …"
_AT_HAND = re.compile(
    r"^(?:你(?:这里|这儿|刚才|刚刚|上面|又)|这篇|这次|这回|(?:this|that) one(?![a-z])|you just(?![a-z])|here,? )"
)
_THIS_ONE_IS = re.compile(r"(?:this|that) one (?:is|was|should be)(?![a-z])")
_STANDING_CUE = re.compile(r"必须|务必|不准|禁止|(?<![a-z])(?:must|never)(?![a-z])")
_CLAUSE = re.compile(r"[，；]\s*|[,;]\s+")


def without_task_tail(statement: str) -> str:
    """Cut the clauses after a standing rule that turn to this one task.

    "SQL 关键字一律小写，你这里又写成大写了，改回来" is the rule "SQL 关键字一律小写"; "PR 必须带单测，你加一个
    surge 的 case" is "PR 必须带单测". An ask that is not pointed at the case in hand may be the rule's own
    step ("Don't roll back migrations by hand; write a forward fix", "我用的 fish，给我命令的时候别写 export").
    """
    for match in _CLAUSE.finditer(statement):
        head, tail = statement[: match.start()], fold(statement[match.end() :])
        folded = fold(head)
        if _THIS_ONE_IS.match(tail) and text_weight(head) >= 3:
            return head.rstrip()  # "commit msgs are `ITIN-<n>: imperative summary`, this one is ITIN-231": the case
        if not (GENERAL.search(folded) or _STANDING_CUE.search(folded)) or text_weight(head) < 3:
            continue
        pointed = _AT_HAND.match(tail) or (tail.startswith("你") and REQUEST.match(tail))
        if pointed and not (GENERAL.search(tail) or HOLDS_ON.search(tail)):
            return head.rstrip()
    return statement
