"""Whose word a sentence is: the person's own, or someone else's view, which counts only where it disagrees.

A sentence that names someone saying, thinking or wanting something (``lasting.REPORTED``) is their view:
relate keeps it only as a disagreement with what is known. Two kinds stay the person's own word. Their own
change, with someone's wish as its reason: "we're no longer going to Nature Communications first — Ruth wants
Cell Reports". And a change made by someone who has a say in it, passed on as news: "阿凱說下個月起公休日改成週一"
(the café is his), "dana says the freeze moved to dec 17". That one is said, not thought, advised or wished, and
it comes from someone, not from an article or hearsay. Patterns run on text folded by ``cues.fold``.
"""

from __future__ import annotations

import re

from incremind_daemon.pipeline.amounts import VALUE_CHANGE
from incremind_daemon.pipeline.cues import bounded
from incremind_daemon.pipeline.lasting import REPORTED
from incremind_daemon.pipeline.stance import CHANGE_OF_PLAN

# a first clause in which the person changes something themselves (after a caption), up to its end
_OWN_CHANGE = re.compile(
    r"^change of plans?(?: again)?\s*[,:—–]"  # "change of plans again, Siobhán just posted …: freeze extended to …"
    r"|^(?:[\w ]{1,30}:\s*)?(?:we|i)(?:'re|'ll|'ve| are| will| have)? (?:no longer|not going|now|switching|moving"
    r"|dropping|changing)"
    r"[^—–;:.!?]*?(?=\s*[—–;:]|\.\s)|^我们?(?:不再|以后|改成|换成|不[^，,；;。]{1,12}?了)[^，,；;。]*"
)
# what says a view, a wish or advice, not a change made: "老周觉得…", "她说应该改成…", "he thinks we should …"
_VIEW = re.compile(
    bounded(
        r"should|ought|better|rather|prefers?|think|thinks|thought|suggest\w*|recommend\w*|argue[sd]?|insist\w*"
        r"|wants?|believes?|claims?|maybe|might|views?|take|opinion"
    )
    + r"|应该|应当|最好|比较好|更好|不如|觉得|认为|建议|坚持|主张|希望|想要|想|可以考虑|要不|也许|可能|意见|看法|观点"
)
# what follows from someone's word, done by the person's side: "the DPO says raw events hold addresses, so we keep them
# for 30 days only", "客服说好多用户要对比，所以我们改成 90 天"
_SO_WE = re.compile(
    r"[,;—–]\s*(?:and )?(?:so|therefore|hence|which is why) we(?:'ll| will)? "
    r"(?!(?:should|might|may|could|would|need)\b)"
    r"|[，；]\s*所以(?:我们|咱们)(?!(?:应该|可能|需要|得))"
)
# what no one with a say in it said: an article, its author, a rumour
_HEARSAY = re.compile(
    bounded(r"article|author|post|blog|book|paper|according to|rumou?rs?|apparently")
    + r"|据说|听说|文章|作者|有人|网上|博客"
)


def reported_view(whole: str, *, clipped: bool) -> bool:
    """Tell whether a folded sentence is someone else's view rather than the person's own word (see the module).

    ``clipped``: the sentence is in a clipping (an article kept in a note), where every sentence is its author's.
    """
    if clipped:
        return True
    said = REPORTED.search(whole)
    if said is None:
        return False
    if own := _OWN_CHANGE.match(whole):
        return REPORTED.search(whole[: own.end()]) is not None
    if _SO_WE.search(whole, said.end()):
        return False  # what was said is the reason for what is done about it: "…, so we keep them for 30 days only"
    relayed = CHANGE_OF_PLAN.search(whole) or VALUE_CHANGE.search(whole)
    return not relayed or _VIEW.search(whole) is not None or _HEARSAY.search(whole) is not None
