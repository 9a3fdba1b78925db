"""Generic sentence templates for distractor passages, filled with a topic's nouns.

Every template is non-committal on purpose: it mentions {a} and {b} but states no fact about
them (no "we switched from {a} to {b}"), so a filled template can never answer a labelled query.
"""

from __future__ import annotations

from benchmarks.retrieval.records import split_lines

GENERIC = {
    "en": split_lines("""
        Spent most of {day} on {a}; not finished yet.
        Reminder: look at {a} again next week.
        {who} asked me about {a}, and I promised to write something up.
        Bookmarked a long post comparing {a} and {b}, still unread.
        Open question: does {a} behave differently together with {b}? Needs a quick test.
        The docs on {a} are vague about {b}.
        TODO: collect what we know about {a} into one page.
        Tried a small experiment with {a}; too early to say anything.
        Moved the notes on {a} next to the ones about {b}.
        {who} recommended a talk on {a}; added it to the watch list.
        No progress on {a} today; other things got in the way.
        Worth keeping an eye on {a}; it came up twice this week.
        Question for later: why does everyone mention {b} when talking about {a}?
        Drafted an outline for a write-up on {a} and {b}.
        Half an hour of reading about {a}; the second half of the chapter covers {b}.
        If {a} comes up again, link this note.
        Not convinced the usual advice about {a} applies to us.
        Rough idea: a checklist for {a}, with a section on {b}.
        {who} and I disagreed about {a} for a while, then moved on to {b}.
        Saved a few links about {a} for the weekend.
    """),
    "zh": split_lines("""
        {day}大部分时间都花在{a}上，还没弄完。
        提醒：下周再看一眼{a}。
        {who}问起{a}，我答应整理一份说明。
        收藏了一篇对比{a}和{b}的长文，还没看。
        待确认：{a}和{b}放在一起会不会有问题？需要测一下。
        {a}的文档对{b}讲得很含糊。
        待办：把关于{a}的零散记录整理成一页。
        用{a}做了个小实验，现在下结论还太早。
        把{a}相关的笔记挪到了{b}那一组旁边。
        {who}推荐了一个讲{a}的视频，先加进待看列表。
        今天{a}没有进展，被别的事占满了。
        留意一下{a}，这周已经被提到两次了。
        以后再想：为什么大家聊{a}的时候总会提到{b}？
        给{a}和{b}写了个提纲，打算整理成一篇总结。
        读了半小时{a}的资料，后半章讲的是{b}。
        如果再遇到{a}，把这条笔记链接过去。
        不太确定关于{a}的常见建议是否适用于我们。
        想法：做一个{a}的检查清单，里面单独列一节{b}。
        和{who}就{a}争了一会儿，后来又聊到{b}。
        存了几个关于{a}的链接，周末再看。
    """),
}

# what the person says to the agent in a session passage
ASK = {
    "en": split_lines("""
        Can you take a look at {a}?
        What should I check first about {a}?
        Any thoughts on {a} versus {b}?
        I'm stuck on {a}; where do I start?
        Quick one about {a} before I forget.
        Let's pick up {a} from yesterday.
    """),
    "zh": split_lines("""
        能帮我看看{a}吗？
        {a}应该先检查什么？
        {a}和{b}你怎么看？
        {a}卡住了，从哪里入手？
        趁还记得，问一下{a}的事。
        接着昨天的{a}继续。
    """),
}

PEOPLE = {
    "en": ("Mia", "Tom", "Priya", "Lukas", "Chen", "Sara", "Omar", "Jules"),
    "zh": ("小王", "老李", "阿杰", "陈姐", "小周", "Tom", "莉莉", "张工"),
}

DAYS = {
    "en": ("Monday", "the morning", "the afternoon", "Saturday", "yesterday", "Thursday"),
    "zh": ("周一", "今天上午", "下午", "周六", "昨天", "周四"),
}
