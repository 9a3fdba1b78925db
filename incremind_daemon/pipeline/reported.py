"""Whose word a sentence is: the person's own, or someone else's view, which counts only where it disagrees.

A sentence that names someone saying, thinking or wanting something (``REPORTED``) is their view:
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
from incremind_daemon.pipeline.stance import CHANGE_OF_PLAN

# someone else's words, reported in a conversation
REPORTED = re.compile(
    bounded(
        r"(?:he|she|they|my (?:colleague|boss|manager|teammate|lead|designer)|[a-z]+ \([\w ]{1,20}\)"
        r"|(?<![./])(?!i |we |you |it |readme |docs? |error |log |output |message |test |ci |this |that |name |title "
        r"|file |column |label |field |header |spec |comment |description |schema |ticket |plan |page |code |config "
        # "staff eng on the claims platform team": a noun, no one says; "…in May and wants a schema": a second verb
        r"|the |a |an |our |my |your |their |its |and |or |but |so |then |also |who |which )"
        r"[a-z]+) (?:still )?(?:said|says|thinks|claims|suggested|suggests|argues|insists|wants|would rather|prefers"
        r"|recommends|believes|argued|thought|claimed|insisted|recommended|believed|pushed for|proposed"
        r"|left (?:a )?comments?|commented)",
        r"according to",
        r"(?:her|his|their) take",
        r"the (?:article|author|post|book|paper|talk) (?:says|argues|claims|recommends|suggests)",
    )
    # a sentence in quotes is someone's ("\"we should pin versions\" he says"), not one that opens on a name in quotes:
    # "\"aurora replica lag > 30s\" paged 9x"
    + r"|^[\"“「](?![^\"”」\n]{1,40}(?<![.!?。！？,，])[\"”」] +"
    r"(?!(?:said|says|asked|wrote|he|she|they)\b|[a-z.-]+ (?:said|says|asked|wrote)\b)[a-z])"
    r"|(?<![跟和给对同向])(?:同事|老板|他|她|他们|文章|作者|有人|[老小阿][\u4e00-\u9fff]"
    r"|[\u4e00-\u9fff]{1,2}(?:总|哥|姐))\s*(?:还是|一直)?(?:说|认为|觉得|建议|坚持|想要|希望|主张)|据说|听说"
    # a person named at the head of a clause: "王磊认为主库还是应该继续用 PostgreSQL" (not 我, 我们, 大家)
    r"|(?:^|[，。；：:,;]\s*)(?!个人|本人|自己|[这那]|现在|其实|但是|不过|所以|后来|总是|[\u4e00-\u9fff]{0,2}[我咱你您大])"
    r"[\u4e00-\u9fff]{2,3}(?:(?:还是|一直)?(?:认为|坚持|主张)|(?:还是|一直)觉得)"
    # a Latin name at the head of a clause who says what should be: "Kevin 在 review 里说所有 API 调用应该…"
    r"|(?:^|[，。；：:,;]\s*)(?!(?:i|we|you|it|ci|this|that|readme|docs?|log|error|output|test)\b)[a-z][a-z.-]{1,15}"
    r"\s*(?:[^，。；,;!?！？]{0,14}?)(?:(?:还是|一直)?(?:认为|觉得|建议|坚持|主张)|说[^，。；,;]{0,40}?(?:应该|最好|必须))"
    # someone's view given under their name: "Zhou Tao 的意见：lib crate 里也直接用 anyhow", "Sam's take: …"
    # (a team's is how things are done there: "SRE 组的意见：prod 变更一律走 CI")
    r"|^(?!我|咱|你|您|大家)[\w\u4e00-\u9fff][\w .\u4e00-\u9fff-]{0,15}?(?<!组|队|部|门)"
    r"的(?:意见|看法|观点|想法|建议)(?:是)?\s*[:：]"
    r"|^(?!my |our |your |the )[a-z][\w.-]{1,15}(?: [a-z][\w.-]{1,15})?'s (?:view|take|opinion|position|suggestion)"
    r"(?: is)?\s*[:：]"
    # what a team the person serves wants: "运营希望用户每次打开 App 都弹一次", "客户想要导出 Excel"
    r"|(?:运营|产品|客户|甲方|领导|业务|销售|市场)(?:那边|方|同学|团队|经理)?\s*(?:希望|想要)"
)
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
