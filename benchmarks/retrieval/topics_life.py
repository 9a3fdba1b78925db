"""Distractor vocabularies for study, cooking, fitness, travel, preferences and money.

Each topic has nouns, near-miss sentences and note titles. The nouns repeat the facts' key words,
and the sentences talk about the same things without answering any query, so a keyword search
meets many passages that look right and are not.
"""

from __future__ import annotations

from benchmarks.retrieval.records import TopicWords, split_lines

LIFE_TOPICS: dict[str, TopicWords] = {
    "learning": TopicWords(
        (
            "spaced repetition",
            "Anki",
            "the Feynman technique",
            "pomodoro",
            "flashcards",
            "active recall",
            "the forgetting curve",
            "interleaving",
            "note-taking",
            "vocabulary lists",
            "exam prep",
            "mind maps",
        ),
        (
            "间隔复习",
            "Anki",
            "费曼学习法",
            "番茄钟",
            "记忆卡片",
            "主动回忆",
            "遗忘曲线",
            "交错练习",
            "错题本",
            "背单词",
            "考试复习",
            "思维导图",
        ),
        split_lines("""
            Anki's review queue hit 400 cards after the holiday; I'm clearing them in batches of 50.
            Read a blog post claiming the Feynman technique is overrated; the argument was weak.
            The pomodoro timer app I use added a subscription, so I'm looking for a free one.
            Spaced repetition apps compared: Anki, SuperMemo, RemNote. Haven't tried the last one.
            My notes from the learning-science course are scattered across three notebooks.
            Flashcards with images seem easier to review, but making them takes forever.
            Is it better to study in the morning or in the evening? I have no data of my own yet.
            The lecture on memory consolidation mentioned replay during sleep; I want to read the paper.
            Exam in three weeks; made a rough plan of which chapters to cover each weekend.
            Tried studying in a café; too noisy for anything that needs concentration.
        """),
        split_lines("""
            假期后 Anki 积压了四百多张卡，分批在清。
            看到一篇说费曼学习法被高估的文章，论证不太有说服力。
            番茄钟软件开始收费了，想换一个免费的。
            对比了几款间隔重复软件：Anki、SuperMemo、墨墨背单词，还没决定。
            学习科学那门课的笔记散落在三个本子里，得整理。
            带图片的记忆卡复习起来好像轻松些，但做卡太花时间。
            早上学还是晚上学效率高？还没有自己的数据。
            讲记忆巩固的那节课提到了睡眠中的海马体重放，想找原论文看看。
            离考试还有三周，粗略排了一下每个周末看哪几章。
            试了在咖啡馆复习，太吵了，需要专注的内容根本看不进去。
        """),
        ("Study log", "Learning notes", "Reading notes"),
        ("学习笔记", "复习记录", "读书笔记"),
    ),
    "cooking": TopicWords(
        (
            "braised pork",
            "pizza dough",
            "rice",
            "steak",
            "cast iron",
            "chicken stock",
            "dumplings",
            "meal prep",
            "sourdough",
            "pour-over coffee",
            "knife skills",
            "fish",
        ),
        (
            "红烧肉",
            "披萨面团",
            "米饭",
            "牛排",
            "铸铁锅",
            "高汤",
            "饺子馅",
            "备餐",
            "酸面包",
            "手冲咖啡",
            "刀工",
            "煎鱼",
        ),
        split_lines("""
            Bought a new Dutch oven; haven't decided what to braise first.
            The pizza stone cracked after going from the fridge into a hot oven.
            Grocery list: flour, eggs, tomatoes, scallions, soy sauce.
            Watched a video on knife skills; my onion dice is still uneven.
            Tried a no-knead bread recipe; the crumb was dense, probably under-proofed.
            The rice cooker's timer is handy for breakfast porridge.
            Steak night was a bit overcooked again; I need a better thermometer.
            Mum's braised pork recipe is on a card somewhere in the kitchen drawer.
            Chicken thighs are cheaper than breasts this week.
            The sourdough discard pancakes were surprisingly good.
        """),
        split_lines("""
            新买了一口铸铁锅，还没想好第一道做什么。
            披萨石从冰箱拿出来直接进烤箱，裂了。
            购物清单：面粉、鸡蛋、番茄、葱、生抽。
            看了个刀工视频，切洋葱丁还是大小不一。
            试了免揉面包，组织很紧实，可能发酵不够。
            电饭锅的预约功能煮早餐粥很方便。
            周末的牛排又煎老了，得买个好点的温度计。
            妈妈的红烧肉做法写在一张卡片上，压在厨房抽屉里。
            这周鸡腿肉比鸡胸便宜。
            饺子皮擀得不够圆，下次试试买现成的。
        """),
        ("Kitchen notes", "Recipes", "Cooking log"),
        ("厨房笔记", "菜谱", "做饭记录"),
    ),
    "fitness": TopicWords(
        (
            "easy runs",
            "squats",
            "the bench press",
            "stretching",
            "protein",
            "pull-ups",
            "hip mobility",
            "swimming",
            "rest days",
            "planks",
            "marathon training",
            "dumbbell rows",
        ),
        (
            "慢跑",
            "深蹲",
            "卧推",
            "拉伸",
            "蛋白质",
            "引体向上",
            "髋部灵活性",
            "游泳",
            "休息日",
            "平板支撑",
            "马拉松训练",
            "哑铃划船",
        ),
        split_lines("""
            Signed up for the half marathon in October.
            New running shoes feel stiff; giving them a few easy runs.
            The gym was packed at 6 pm, so I'm switching to morning sessions.
            Heart rate strap battery died mid-run; today's data is useless.
            The squat rack was taken, so I did lunges instead.
            Watched a video about swimming drills for beginners.
            Bought resistance bands for hotel-room workouts.
            Did a 5 km parkrun and chatted with a neighbour the whole way.
            My training log spreadsheet has too many columns; simplify it.
            The stretching class on Thursday was mostly breathing exercises.
        """),
        split_lines("""
            报名了十月的半程马拉松。
            新跑鞋有点硬，先穿着跑几次轻松跑。
            晚上六点健身房人太多，打算改到早上去。
            心率带跑到一半没电了，今天的数据作废。
            深蹲架被占了，改做了箭步蹲。
            看了一个游泳入门练习的视频。
            买了几根弹力带，出差时在酒店练。
            参加了周六的 5 公里公园跑，一路和邻居聊天。
            训练记录表格列太多了，得简化。
            周四的拉伸课基本都在练呼吸。
        """),
        ("Training log", "Workout notes", "Running diary"),
        ("训练日志", "健身笔记", "跑步记录"),
    ),
    "travel": TopicWords(
        (
            "the JR Pass",
            "packing",
            "passports",
            "jet lag",
            "Kyoto",
            "travel insurance",
            "flight prices",
            "Lisbon",
            "eSIMs",
            "the Schengen visa",
            "family trips",
            "hotel bookings",
        ),
        (
            "JR Pass",
            "行李打包",
            "护照",
            "倒时差",
            "京都",
            "旅行保险",
            "机票价格",
            "里斯本",
            "eSIM",
            "申根签证",
            "家庭出游",
            "酒店预订",
        ),
        split_lines("""
            Passport renewal appointment is on the 14th.
            Looked at flights to Tokyo for cherry blossom season; prices are already high.
            Booked the Kyoto guesthouse with free cancellation.
            The Lisbon itinerary still has two empty days.
            Need to check whether the hotel in Osaka has a washing machine.
            The packing cubes arrived, in three sizes.
            The airline lost my bag for two days on the last trip.
            Started a shared spreadsheet for the family trip budget.
            Train or plane between Milan and Rome? Door to door, the train probably wins.
            Travel photos from Nepal are still not backed up.
        """),
        split_lines("""
            护照续签约在 14 号。
            看了赏樱季去东京的机票，已经很贵了。
            京都的民宿订好了，可以免费取消。
            里斯本的行程还有两天是空的。
            要确认一下大阪的酒店有没有洗衣机。
            收纳袋到了，三个尺寸。
            上次出行航空公司把行李弄丢了两天。
            给家庭旅行的预算建了个共享表格。
            米兰到罗马坐火车还是飞机？算上门到门时间，火车大概更快。
            尼泊尔的旅行照片还没备份。
        """),
        ("Trip planning", "Travel notes", "Itinerary"),
        ("旅行计划", "出行笔记", "行程"),
    ),
    "preferences": TopicWords(
        (
            "indentation",
            "editor themes",
            "coffee",
            "meetings",
            "fonts",
            "code review",
            "commit messages",
            "notifications",
            "note apps",
            "keyboards",
            "the terminal",
            "naming",
        ),
        (
            "缩进",
            "编辑器主题",
            "咖啡",
            "开会",
            "字体",
            "代码评审",
            "提交信息",
            "消息通知",
            "笔记软件",
            "键盘",
            "命令行",
            "命名",
        ),
        split_lines("""
            Trying out a new terminal emulator this week.
            The team style-guide discussion about line length went on for an hour.
            Switched the phone to grayscale in the evening as an experiment.
            Tea in the afternoon instead of a second coffee: day one.
            Clicky keyboard switches are loud in the office.
            I'd like to try a standing desk before buying one.
            Reorganised my dotfiles repository; the vim config is a mess.
            Laptop notifications are now grouped by app.
            Reading on paper or on a tablet: still undecided.
            The new monitor arm makes the desk feel bigger.
        """),
        split_lines("""
            这周在试一个新的终端软件。
            团队关于行宽的代码规范讨论了一个小时。
            试着晚上把手机调成黑白模式。
            下午改喝茶，不喝第二杯咖啡，第一天。
            机械键盘的段落轴在办公室太吵。
            买升降桌之前想先试用一下。
            整理了 dotfiles 仓库，vim 配置一团乱。
            笔记本上的通知现在按应用分组了。
            纸质书还是平板看书，还没定。
            新的显示器支架让桌面显得大多了。
        """),
        ("About me", "Preferences", "Personal setup"),
        ("关于我", "个人偏好", "个人设置"),
    ),
    "money": TopicWords(
        (
            "index funds",
            "the emergency fund",
            "subscriptions",
            "taxes",
            "credit cards",
            "big purchases",
            "budgeting",
            "the mortgage",
            "savings",
            "receipts",
            "Beancount",
            "rent",
        ),
        (
            "指数基金",
            "应急金",
            "订阅服务",
            "报税",
            "信用卡",
            "大额消费",
            "记账",
            "房贷",
            "储蓄",
            "发票",
            "Beancount",
            "房租",
        ),
        split_lines("""
            Went through last month's card statement; nothing unusual.
            The bank changed its savings rate again.
            Need to find the receipt for the new laptop for the warranty.
            Reading about index funds versus ETFs; the fee difference is small.
            Budget review moved to the last Sunday of the month.
            Tax deadline reminder is set for next month.
            Compared mortgage offers from two banks; waiting for the third.
            The shared household account needs a second card.
            Spent more on eating out than planned this month.
            Salary account moved to another bank; direct debits need setting up again.
        """),
        split_lines("""
            看了上个月的信用卡账单，没什么异常。
            银行又调整了活期利率。
            要找到新电脑的发票，保修用。
            在看指数基金和 ETF 的区别，费率差得不多。
            预算复盘改到每月最后一个周日。
            报税截止日期的提醒已经设好。
            对比了两家银行的房贷方案，还在等第三家。
            家庭共同账户需要再办一张卡。
            这个月外出吃饭花超了。
            工资卡换了一家银行，自动扣款要重新设置。
        """),
        ("Money notes", "Budget", "Finance log"),
        ("理财笔记", "预算", "账本备注"),
    ),
}
