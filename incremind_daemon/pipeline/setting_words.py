"""Tell a sentence that says what a setting is set to: "The batch key is sample_id.", "回测默认滑点 单边 5bp".

Such a sentence is a standing fact, and the very one a later change replaces ("batch key 不是 sample_id，而是
donor_id"): missed, the change has nothing to supersede, and both values would stand. It has few cue words and
reads weakly to the lasting model, being short and plain; what marks it is its shape: the name of a setting
(a limit, a key, a rate, a reviewer), a verb of being or none, and a value (an amount, a name in code, a handle, a
path, a version).
"""

from __future__ import annotations

import re

# the name of a setting: what holds a value someone set, and may set again
_NOUN_EN = (
    r"key|threshold|cutoff|cut-off|limit|cap|ceiling|budget|rate|retention|timeout|ttl|port|version|region"
    r"|reviewer|owner|contact|maintainer|resolution|default|interval|schedule|window|size|quota|sla|replicas"
    r"|concurrency|seed|pager|runner|registry|provider|palette|font|timezone|locale|currency|price|fee"
    r"|deadline|lookback|slippage|partition|dpi|sdk|tier|line length|width"
)
_ROLES_ZH = r"对接人|負責人|负责人|联系人|聯絡人"  # who a kind of question goes to
_NOUN_ZH = (
    rf"上限|下限|阈值|閾值|默认|預設|时薪|時薪|费率|費率|价格|價格|预算|預算|{_ROLES_ZH}|超时|超時"
    r"|端口|版本|间隔|間隔|滑点|滑點|频率|頻率|保留|区域|區域|机房|集群|参数|參數|长度|長度|时长|時長|分辨率|主键"
    r"|分区键|房租|租金|工资|薪水|报价|報價|key"
)
# a value: an amount (with its currency or unit), a name in code, a handle, a version, a path, a numbered name
_VALUE = (
    r"(?:[$£€¥]|s\$|nt\$|hk\$|aud ?|usd ?|rmb ?)?\d[\d,.:]*(?:\s?(?:%|ms|s|sec|seconds?|min|minutes?|h|hours?|days?"
    r"|weeks?|months?|mb|gb|tb|k|m|bp|dpi|px|pt|mm|cm|°c|/h|pcm|秒|分钟|分鐘|小时|小時|天|周|週|个月|個月|萬|万|元|块|塊))?"
    r"(?![\w.])|\d+-(?:day|hour|minute|second|week|month)s?|@[\w.-]+|[a-z][a-z0-9]*_\w+|v?\d+\.\d+(?:\.\d+)*"
    r"|/[\w.-]+/[\w./-]*|[a-z][\w-]*-\d[\w-]*"
)
_SETTING_EN = re.compile(
    r"^(?:(?:so|and|also|fyi|oh|last one|for the record|btw)[,:]?\s+)?"
    rf"(?:(?:the |our |my )?(?:[a-z][\w./+-]*\s){{0,3}}?[\w./+-]*(?:{_NOUN_EN})(?:s|es)?"
    rf"(?:\s(?:for|of|on|in)(?: [\w./*-]+){{1,3}}?)?"
    rf"\s*(?:is|are|=|:|stays?(?: at| on)?|sits at)\s+(?:\w+\s)?(?:{_VALUE}|\w+ \(@[\w.-]+\))"
    # "app log groups get 30-day retention"
    rf"|(?:[a-z][\w./*-]*\s){{1,4}}(?:get|gets|have|has|keep|keeps)\s+(?:{_VALUE})\s+(?:{_NOUN_EN})\b)"
)
# the subject holds no digit and no "超" ("这个月外卖超预算 600 多" says how a month went, not what is set), and
# nothing done stands between the name and the value ("TapPay 報價寄了（16h）")
_SETTING_ZH = re.compile(
    rf"^[^，。；,;:：\d超]{{0,10}}(?:{_NOUN_ZH})[^，。；,;:：\d了]{{0,6}}?\s*"
    r"(?:(?:我们|我們|目前|现在|現在|一律|统一|統一|都|暂定|暫定)\s*)?"
    r"(?:是|为|為|用的?|配的?|设(?:成|为|的)|設(?:成|為|的)|定(?:在|为|為)|[:：=])?\s*"
    rf"(?:单边|單邊|每[小时月天周]|一般)?\s*(?:{_VALUE})"
    rf"|^[^，。；,;:：\d]{{0,8}}(?:{_ROLES_ZH}|reviewer)(?:是|為|为|[:：])\s*[^\s，。,]{{2,}}"
)
# "minSdk 26", "HeartBtInt 我们配的 30 秒", "max_pct_mt: 20": a name written as code, then its value and unit alone
# ("MaxRAMPercentage=75 可以" agrees to the agent's suggestion)
_CODE_NAME = re.compile(
    r"^(?:[A-Za-z][a-z]+[A-Z][A-Za-z]*|[a-z]+_[a-z_]+)\s*(?:is|=|:|(?:我们|我們|目前|现在)?\s*(?:配的?|设的?|是|用的?))?\s*"
    r"\d[\d.]*\s*(?:[a-z%]{1,3}|秒|分钟|小时|天|次|个)?[。.]?$"
)
# what a part of the work is to use for now, a choice that holds until it is changed: "向量库现在先用 chroma 本地的
# 就行", "hidden loss 权重先用 0.1", "生成这边 先用千问"; not who uses what for a task ("你先用 FakeTransport 做画面",
# "到时候先用 placeholder") nor a tool for one run ("先用 staging 的 kubeconfig 跑一下")
_FOR_NOW_ZH = re.compile(
    r"^(?!(?:我|你|咱|他|她|到时候|今天|这次|回头|那就|就|也)[^\w]?)[^，。；,;:：]{0,14}?"
    r"(?:`?[a-z][\w.-]*`?|[\u4e00-\u9fff]{2,6}(?<![我你他她咱]))\s*(?:的话|这边|那边|这块)?\s*(?:现在|目前)?\s*(?:先|暂时|暂定)用(?!着)\s*"
    r"(?:[a-z0-9][\w.+#/-]*|(?![\u4e00-\u9fff]{0,3}的)[\u4e00-\u9fff]{2,4}(?=\s|$|吧|[，。,]))"
    r"(?![^，。；,;]*(?:跑|试|测|做|接起来|看看|写一?点|弄|顶|凑|临时))"
)
_MAX_CHARS = 90  # a longer sentence says more than a setting, and the other cues read it


def states_setting(quote: str, folded: str) -> bool:
    """Tell whether a sentence says what a setting is set to; ``folded`` is its folded form past its lead-in."""
    if len(folded) > _MAX_CHARS:
        return False
    return bool(
        _SETTING_EN.match(folded)
        or _SETTING_ZH.match(folded)
        or _CODE_NAME.match(quote.strip())
        or _FOR_NOW_ZH.match(folded)
    )
