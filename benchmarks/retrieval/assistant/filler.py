"""Make plausible Chinese noise notes to grow a personal assistant's memory.

    PYTHONPATH=. python benchmarks/retrieval/assistant/filler.py --count 20 [--seed 7]

Every note has a time in 2025, a place (city and venue) and one sentence of
everyday life. The templates mention the topics the labelled questions ask
about (doctors, restaurants, classes, trips, meetings, prices) but state no
fact about the people of the sets: no note names anyone of them, and none
records a price paid, an age, a date agreed or a plan, so a filler can never
answer a labelled question. The same seed gives the same notes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


CHINA = timezone(timedelta(hours=8))
YEAR_START = datetime(2025, 1, 1, tzinfo=CHINA)
DAYS_IN_YEAR = 365
WAKING_MINUTES = (7 * 60, 23 * 60)  # people write notes between 7:00 and 23:00

CITIES = _words(
    "杭州 北京 上海 成都 重庆 深圳 广州 南京 苏州 西安 武汉 长沙 厦门 青岛 天津 宁波 绍兴 大理 昆明 "
    "三亚 合肥 郑州 济南 福州 无锡 常州 佛山 东莞 哈尔滨 沈阳 大连 贵阳 南宁 兰州 石家庄 保定"
)
VENUES = _words(
    "家 公司 地铁站 商场 超市 医院门口 小区 咖啡店 公园 高铁站 机场 菜市场 健身房 图书馆 学校门口 "
    "写字楼 便利店 停车场 酒店大堂 书店 银行 快递站 理发店 电影院 体育馆"
)
WHO = _words(
    "同事 邻居 老同学 表哥 表姐 楼下阿姨 前同事 客户 朋友 大学室友 小赵 老孟 小潘 老韩 小蒋 阿宁 "
    "小邓 老魏 小俞 阿彬 小葛 老单 物业小哥 快递员 出租车司机"
)
TOPICS = _words(
    "体检 钢琴课 游泳班 装修 理财 基金 保险 房贷 买车 新能源车 旅游攻略 机票 酒店 民宿 亲子活动 兴趣班 "
    "补课 高考志愿 考研 日语 健身 跑步 马拉松 瑜伽 钓鱼 露营 养猫 养狗 血压 血糖 看牙 感冒 过敏 搬家 "
    "租房 换工作 面试 年终奖 团建 周会 项目上线 需求评审 婚礼 份子钱 生日礼物 红包 年货 双十一 外卖 "
    "火锅 烤鸭 日料 咖啡 奶茶 驾照 宠物医院 幼儿园 家长会 期末考试 出差 报销 加班 年假 签证 护照"
)
FOODS = _words("火锅 烤鸭 日料 粤菜 川菜 湘菜 本帮菜 西餐 烧烤 小龙虾 面馆 饺子馆 泰国菜 韩餐 素食 早茶")
WEATHER = _words("下小雨 阴天 大太阳 刮大风 有点闷 降温了 起雾了 挺凉快 特别热 飘了点雪")
THINGS = _words("雨伞 充电宝 保温杯 耳机 钥匙 工牌 老花镜 围巾 水杯 雨衣 U盘 笔记本 口罩 零钱包 遮阳帽 帆布袋")

TEMPLATES = (
    "{venue}附近新开了一家{food}，{who}说还行，改天可以去试试。",
    "收藏了一篇讲{topic}的文章，还没来得及看。",
    "{who}在群里问有没有人了解{topic}，没人回。",
    "想了想{topic}的事，还是下周再说吧。",
    "刷到一个关于{topic}的短视频，看了十分钟就关了。",
    "{who}推荐了一本和{topic}有关的书，先加进书单。",
    "今天{weather}，去{venue}的路上车很多。",
    "备忘：找时间问问{who}{topic}的情况。",
    "路过{venue}，看到在搞{topic}的宣传活动，没进去。",
    "{who}说最近在忙{topic}，忙得团团转。",
    "在{venue}排了好一会儿队，前面的人一直在聊{topic}。",
    "把{thing}落在{venue}了，明天记得去拿。",
    "{who}转发了一条{topic}的消息，真假不知道。",
    "和{who}随便聊了聊{topic}，没聊出什么结果。",
    "看到一个{food}的探店视频，看着就饿了。",
    "今天{weather}，在{venue}待了一下午。",
    "{topic}这件事大家说法不一，先不管了。",
    "手机相册里存了一张{topic}的截图，忘了为什么存的。",
    "{who}问我{topic}有没有经验，我说不太懂。",
    "在{venue}碰到{who}，寒暄了几句就走了。",
    "晚上随手翻了翻{topic}的帖子，评论区吵起来了。",
    "{venue}的空调开得太冷，早知道带件外套。",
    "买了一杯咖啡，坐在{venue}发了会儿呆。",
    "{who}发来一张{food}的照片，说下次一起去。",
    "记一下：{topic}的相关材料还没整理。",
    "今天{weather}，本来想出门，最后在家待着了。",
    "{who}说{topic}的规定好像又改了，回头再查。",
    "翻到一张去年的{topic}单据，不知道还有没有用。",
    "在{venue}看到有人在讨论{topic}，听了一耳朵。",
    "{who}的孩子也在准备{topic}，家长们都挺焦虑。",
)


@dataclass(frozen=True, slots=True)
class FillerNote:
    """One noise note: when and where it was written, and what it says."""

    at: str  # ISO 8601 with +08:00
    place: str
    text: str


def make_fillers(count: int, *, seed: int = 20250101) -> list[FillerNote]:
    """Make ``count`` distinct noise notes, the same ones for the same seed, in time order."""
    return sorted(_distinct(count, random.Random(seed)), key=lambda note: note.at)


def _distinct(count: int, rng: random.Random) -> Iterator[FillerNote]:
    seen: set[tuple[str, str]] = set()
    while len(seen) < count:
        note = _one(rng)
        if (note.at, note.text) in seen:
            continue
        seen.add((note.at, note.text))
        yield note


def _one(rng: random.Random) -> FillerNote:
    at = YEAR_START + timedelta(days=rng.randrange(DAYS_IN_YEAR), minutes=rng.randrange(*WAKING_MINUTES))
    venue = rng.choice(VENUES)
    text = rng.choice(TEMPLATES).format(
        venue=venue,
        who=rng.choice(WHO),
        topic=rng.choice(TOPICS),
        food=rng.choice(FOODS),
        weather=rng.choice(WEATHER),
        thing=rng.choice(THINGS),
    )
    return FillerNote(at.isoformat(timespec="seconds"), f"{rng.choice(CITIES)} {venue}", text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Print plausible Chinese noise notes, one JSON object a line.",
        epilog="example:\n  PYTHONPATH=. python benchmarks/retrieval/assistant/filler.py --count 5",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--count", type=int, default=10, help="how many notes to make")
    parser.add_argument("--seed", type=int, default=20250101, help="seed of the generator")
    args = parser.parse_args(argv)
    for note in make_fillers(args.count, seed=args.seed):
        print(json.dumps(asdict(note), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
