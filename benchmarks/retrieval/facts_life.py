"""Facts of study, cooking, fitness, travel, personal preferences and money, with their queries.

Each row is (lang, text, lexical query, paraphrase query[, cross-language query[, echo passage]]).
"""

from __future__ import annotations

from benchmarks.retrieval.records import facts

LEARNING = facts(
    "learning",
    (
        "zh",
        "间隔复习我固定按第1、2、4、7、15天排，每次先合上书回忆，回忆不出来再翻答案。",
        "我的间隔复习是第几天复习一次",
        "学过的东西过多久要再拿出来看",
        "what day intervals do I use for spaced review",
        "复习方法备忘：新学的内容在第 1、2、4、7、15 天各过一遍，每次都先凭记忆回想，想不起来再去查。",
    ),
    (
        "en",
        "Anki settings I settled on: 20 new cards a day, maximum interval capped at 180 days, and I never "
        "add a card I could not explain out loud.",
        "what Anki limits did I set for new cards and the maximum interval",
        "how many fresh flashcards do I introduce daily",
        "Anki 每天新卡片上限设多少",
    ),
    (
        "zh",
        "费曼学习法的关键一步：学完一个概念后，用大白话讲给一个完全不懂的人听，卡住的地方就是没真正理解的地方。",
        "费曼学习法具体怎么用",
        "怎么检验自己是不是真的弄明白了一个知识点",
    ),
    (
        "en",
        "Pomodoro variant that works for me: 50 minutes of focus, then a 10-minute break away from the "
        "screen; after three rounds I take a 30-minute walk.",
        "my pomodoro setup with 50 minutes of focus",
        "what work-rest rhythm keeps me concentrated during long study sessions",
        "番茄钟我用的是多长时间一轮",
    ),
    (
        "zh",
        "背单词时把生词放进完整例句里记，比单独背中文释义的保留率高很多，我做过两周对比，大概是 70% 对 40%。",
        "背单词用例句记的保留率",
        "记外语词汇有什么更有效的办法",
    ),
    (
        "en",
        "Interleaving practice: mixing different problem types in one session felt slower, but a week later "
        "I solved 30% more mixed exam questions than with blocked practice.",
        "interleaving versus blocked practice results",
        "does switching between kinds of exercises help long-term performance",
    ),
    (
        "zh",
        "睡前二十分钟回顾当天的笔记，第二天早上的回忆测试明显更好；睡前刷手机则正好相反。",
        "睡前回顾笔记对回忆有没有帮助",
        "临睡时做点什么有助于巩固白天学的东西",
        "what should I do in the twenty minutes before sleep to remember notes",
    ),
    (
        "en",
        "Active recall beats rereading: after each chapter I close the book and write down everything I "
        "remember on a blank page, then check the gaps in red.",
        "active recall on a blank page instead of rereading",
        "what do I do right after finishing a section instead of going over the text again",
    ),
    (
        "zh",
        "学新编程语言时先用它重写一个自己写过的小工具（比如 todo 命令行），比从教程第一章读起快得多。",
        "学新的编程语言时重写什么小工具",
        "上手一门陌生的 coding 语言最快的路子是什么",
        "fastest way for me to pick up a new programming language",
    ),
    (
        "en",
        "Forgetting curve note: without any review I keep only about a third of a lecture after two days; "
        "one review on day one roughly doubles that.",
        "forgetting curve: how much of a lecture is left after two days",
        "how much of a talk do I still retain 48 hours later if I never revisit it",
    ),
    (
        "zh",
        "做错题本不要抄题，只记三样：错在哪一步、当时为什么那么想、正确的触发条件。",
        "错题本应该记哪几样",
        "整理做错的题目时应该写下哪些内容",
    ),
    (
        "en",
        "Reading papers: I do three passes. Title, abstract and figures first; then the full text skipping "
        "proofs; only the third pass checks the math.",
        "how I read papers in three passes",
        "what is my routine for getting through an academic article",
        "读论文分几遍读",
    ),
    (
        "zh",
        "学习时手机放到另一个房间，而不是翻过来扣在桌上；实测专注时长从二十分钟左右变成了五十分钟以上。",
        "手机放在另一个房间对专注时长的影响",
        "怎样避免用功的时候被消息打断",
    ),
    (
        "en",
        "For maths, I stop drilling a problem type once I get it right three times in a row on different "
        "days; more repetitions than that were wasted time.",
        "when to stop drilling a maths problem type",
        "when do I consider a kind of exercise mastered and move on",
    ),
)

COOKING = facts(
    "cooking",
    (
        "zh",
        "红烧肉不用焯水也行，但一定要先把五花肉煸到出油，再下冰糖炒糖色，最后加开水，冷水会让肉变柴。",
        "红烧肉怎么用冰糖炒糖色",
        "焖猪肉的时候倒凉的会怎样",
        "why add boiling water instead of cold when braising pork belly",
    ),
    (
        "en",
        "Pizza dough ratio I use: 500 g flour, 325 g water (65% hydration), 10 g salt, 3 g instant yeast, "
        "cold-fermented 48 hours in the fridge.",
        "pizza dough recipe with hydration and yeast amounts",
        "how much of each ingredient for my Neapolitan base, and how long does it rest",
        "披萨面团的含水量和发酵时间",
        "Pizza night again, same recipe as always: 500 g flour, 325 g water (65% hydration), 10 g salt, "
        "3 g instant yeast, and 48 hours of cold fermentation in the fridge.",
    ),
    (
        "zh",
        "米饭和水的比例：新米 1:1.1，陈米 1:1.3；泡二十分钟再煮口感明显更好。",
        "煮新米和陈米水的比例",
        "电饭锅里加多少才不会太干太硬",
    ),
    (
        "en",
        "Steak: salt it at least 45 minutes ahead or right before cooking, never in between; the brine "
        "phase pulls moisture out and the crust won't form.",
        "how long before cooking should I salt a steak",
        "when should beef be seasoned so it browns properly",
        "牛排提前多久撒盐",
    ),
    (
        "zh",
        "番茄炒蛋先炒蛋，七成熟盛出；番茄炒出汁后加一小勺糖和少许盐，再把蛋倒回去，整个过程不加水。",
        "番茄炒蛋要不要加糖",
        "西红柿和鸡蛋一起做的家常菜是什么步骤",
    ),
    (
        "en",
        "Cast iron care: no soaking, rinse hot, dry on the burner and wipe a few drops of flaxseed oil in "
        "while it is still warm.",
        "cast iron pan care after washing",
        "how do I look after my heavy black skillet after washing it",
    ),
    (
        "zh",
        "手冲咖啡：15 克豆子、225 毫升水（1:15），水温 92 度，闷蒸 30 秒，总时间控制在两分半左右。",
        "手冲咖啡水温和闷蒸时间",
        "pour over 我一般怎么冲，参数多少",
        "what ratio and water temperature do I use for pour-over coffee",
    ),
    (
        "en",
        "Stock: roast the chicken bones first, cover with cold water, never boil hard; a bare simmer for "
        "four hours keeps it clear.",
        "clear chicken stock with roasted bones",
        "how to make broth that isn't cloudy",
    ),
    (
        "zh",
        "饺子馅要顺着一个方向搅，分三次加花椒水，每次搅到完全吸进去再加，这样馅才多汁不散。",
        "饺子馅加花椒水的方法",
        "包的时候怎么让里面的肉鲜嫩有汁水",
        "how do I make dumpling filling juicy",
    ),
    (
        "en",
        "Meal prep Sundays: one grain, two proteins and three vegetables, cooked plain and seasoned "
        "differently each day so lunches don't get boring.",
        "Sunday meal prep plan for lunches",
        "how do I plan weekday lunches in advance without eating the same thing",
    ),
    (
        "zh",
        "煎鱼不粘锅的办法：锅烧到冒烟再下油，鱼身用厨房纸吸干，下锅后一分钟内不要动它。",
        "煎鱼怎样才能不粘锅",
        "做鱼时皮总是粘在底上破掉怎么办",
    ),
    (
        "en",
        "Sourdough starter: fed 1:1:1 by weight at 8 pm, it peaks around 7 am at 22°C, which is when I mix the dough.",
        "when does my sourdough starter peak",
        "when is my levain ready to use in the morning",
        "酸面种什么时候喂、什么时候用",
    ),
)

FITNESS = facts(
    "fitness",
    (
        "en",
        "Running: 80% of weekly mileage at an easy pace where I can still talk, heart rate under 145; only "
        "one interval session per week.",
        "easy pace heart rate limit for running",
        "how hard should most of my jogging be",
        "跑步时大部分里程应该用什么配速和心率",
        "Training plan reminder: about four fifths of the weekly volume is conversational easy running "
        "with heart rate kept below 145, plus a single interval workout each week.",
    ),
    (
        "zh",
        "深蹲膝盖内扣的问题，教练建议在膝盖上方绑弹力带做热身，并把站距稍微放宽，脚尖外展 15 度。",
        "深蹲时膝盖内扣怎么办",
        "蹲下起身时腿往里倒该怎么纠正",
        "how do I fix knees caving in during squats",
    ),
    (
        "en",
        "Progressive overload rule: add 2.5 kg to the bench press only when I complete all 5 sets of 5 "
        "with good form; otherwise repeat the weight.",
        "when to add weight to the bench press",
        "when am I allowed to put more plates on the chest lift",
    ),
    (
        "zh",
        "跑完步不要马上坐下，慢走五分钟再做静态拉伸，小腿和髂胫束各拉 30 秒，第二天腿就不那么酸。",
        "跑完步怎么做静态拉伸",
        "运动结束后怎么做才能减轻次日肌肉酸痛",
    ),
    (
        "en",
        "Protein target: about 1.6 g per kg of body weight, so roughly 120 g a day for me, split over four meals.",
        "daily protein target per kg of body weight",
        "how much of the muscle-building macronutrient should I eat daily",
        "我每天蛋白质摄入目标是多少克",
    ),
    (
        "zh",
        "引体向上从零开始：先做离心，跳上去后用五秒慢慢放下，每组五个，三周后做出了第一个完整的。",
        "引体向上离心练习怎么做",
        "完全拉不动单杠的人该怎么起步",
        "how did I get my first pull-up",
    ),
    (
        "en",
        "Mobility: ten minutes of hip openers every morning (90/90, couch stretch, deep squat hold) fixed "
        "the lower back tightness from sitting.",
        "morning hip openers routine for lower back",
        "what daily routine got rid of my stiff lumbar area from the desk job",
    ),
    (
        "zh",
        "游泳换气呛水，原因是抬头太高；改成转头换气，一只眼睛留在水里，就顺多了。",
        "游泳换气老是呛水",
        "自由泳时吸不上气还老喝到池水",
    ),
    (
        "en",
        "Rest days matter: my resting heart rate jumps by 5+ bpm when I'm under-recovered, so that morning "
        "I swap training for a walk.",
        "resting heart rate when under-recovered",
        "what signal tells me to skip a workout and take it easy",
        "什么情况下我会把训练换成散步",
    ),
    (
        "zh",
        "平板支撑不追求时间，超过一分钟就换成更难的变式，比如抬一条腿或者手肘往前伸。",
        "平板支撑能撑一分钟以后练什么变式",
        "核心训练撑得住很久以后怎么加难度",
    ),
    (
        "en",
        "Marathon taper: cut volume by 40% three weeks out and 60% in the final week, but keep a few short "
        "race-pace efforts.",
        "marathon taper: how much volume to cut",
        "how much should I reduce training before a 42 km race",
    ),
    (
        "zh",
        "哑铃划船时背部发力不明显，把重量减一半、顶峰停顿两秒后，背阔肌的感觉才出来。",
        "哑铃划船练不到背阔肌",
        "练拉的动作总是手臂在用力怎么办",
    ),
)

TRAVEL = facts(
    "travel",
    (
        "zh",
        "去日本的 JR Pass 在 2023 年涨价后就不划算了，这次东京—京都—大阪只买单程新干线票更便宜。",
        "JR Pass 涨价后还划算吗",
        "在东瀛坐高铁买全国通票还值不值",
        "is the JR Pass still worth it for Tokyo, Kyoto and Osaka",
    ),
    (
        "en",
        "Packing rule: everything must fit in one 40 L backpack; three shirts, two trousers, merino socks, "
        "and I do laundry every four days.",
        "packing list for a 40 L backpack",
        "how do I travel light with only carry-on luggage",
        "出行打包我限定用多大的背包",
    ),
    (
        "zh",
        "护照有效期要超过六个月，去泰国前差点因为只剩五个月被航空公司拒绝值机。",
        "出国护照有效期至少要几个月",
        "出国前证件快过期了会有什么麻烦",
    ),
    (
        "en",
        "Jet lag fix that worked flying to Europe: no coffee after noon on arrival day, 20 minutes of "
        "sunlight in the morning, and melatonin 0.5 mg at local bedtime.",
        "jet lag routine with melatonin and sunlight",
        "how did I adjust my body clock after the long flight west",
        "倒时差我用了什么方法",
    ),
    (
        "zh",
        "在京都租了自行车，一天 1000 日元，比坐公交快，注意很多寺庙门口不能停车，要停到指定的收费车位。",
        "京都骑自行车在哪里停车",
        "在关西古都怎么出行最方便",
    ),
    (
        "en",
        "Travel insurance: the cheap plan excluded hiking above 3,000 m, so for the Nepal trek I paid extra "
        "for the adventure add-on.",
        "travel insurance for the Nepal trek",
        "why did I pay more for cover on the Himalayan walk",
    ),
    (
        "zh",
        "订机票用价格提醒，国际航线一般提前六到八周买最便宜，周二凌晨放出的特价票最多。",
        "国际航线订机票提前多久最便宜",
        "什么时候下单飞国外最省钱",
        "how far ahead should I book international flights",
    ),
    (
        "en",
        "In Lisbon the Viva Viagem card works on metro, trams and the ferry; load it with 'zapping' credit "
        "rather than single tickets.",
        "Lisbon Viva Viagem card for metro and trams",
        "what transit pass do I use in Portugal's capital",
    ),
    (
        "zh",
        "在国外用 eSIM 比落地买卡省事，出发前一天装好，落地再开数据漫游，记得关掉主卡的漫游。",
        "出国用 eSIM 怎么设置数据漫游",
        "出境以后手机怎么上网最方便",
        "how do I get mobile data abroad",
    ),
    (
        "en",
        "Visa note: the Schengen 90/180 rule counts days in any rolling 180-day window, not per calendar year.",
        "how the Schengen 90/180 rule counts days",
        "how long may I stay in the European passport-free zone",
        "申根签证停留天数怎么算",
        "Checked again while sorting out my parents' visas: the Schengen limit is 90 days within any "
        "rolling 180-day period, not per calendar year.",
    ),
    (
        "zh",
        "带父母出游行程要松，每天最多安排两个景点，中午一定回酒店休息，上次排太满老人累病了。",
        "带父母出游每天安排几个景点",
        "陪爸妈出门玩，一天去几处合适",
    ),
    (
        "en",
        "Hotel tip: I always ask for a room away from the elevator and ice machine; booking notes get "
        "honoured about half the time.",
        "which hotel room do I ask for, away from the elevator",
        "what do I request when checking in to get a quiet night",
    ),
)

PREFERENCES = facts(
    "preferences",
    (
        "en",
        "I prefer tabs for indentation in my own projects, rendered at width 4; in team repos I follow "
        "whatever the formatter enforces.",
        "do I prefer tabs or spaces for indentation",
        "what's my stance on leading whitespace style",
        "",
        "用户：记住，我自己的项目缩进用 tab，显示宽度 4；团队仓库就听格式化工具的。\n\n助手：好的，已记下这个偏好。",
    ),
    (
        "zh",
        "我喜欢深色主题，但写长文档时会切到浅色的 Solarized Light，晚上眼睛不那么累。",
        "我用深色主题还是 Solarized Light",
        "编辑器配色我平时用哪套",
        "which color scheme do I like in my editor",
    ),
    (
        "en",
        "Coffee: flat white with oat milk, no sugar; after 3 pm I switch to decaf or I can't fall asleep.",
        "coffee order: flat white with oat milk?",
        "how do I take my caffeinated drink and when do I stop",
        "我喝咖啡的习惯",
    ),
    (
        "zh",
        "开会我更喜欢异步：先写文档让大家评论，只有分歧超过两轮评论还没解决才约三十分钟的会。",
        "我对开会的态度，异步写文档评论",
        "讨论问题时我倾向什么协作方式",
    ),
    (
        "en",
        "My editor font is JetBrains Mono at 14 pt with ligatures turned off; I find ligatures confusing "
        "when reading != and =>.",
        "editor font JetBrains Mono, ligatures on or off",
        "which typeface do I code in and why do I disable combined glyphs",
        "我写代码用什么字体",
    ),
    (
        "zh",
        "代码评审时我希望评论分成“必须改”和“建议”两类，混在一起会不知道哪些能合并前先不管。",
        "代码评审评论怎么区分必须改和建议",
        "给别人 review 的时候我喜欢怎么标注意见",
        "how do I like code review comments labelled",
    ),
    (
        "en",
        "Commit messages: imperative subject under 50 characters, a blank line, then why the change was "
        "made; I don't care much about the how.",
        "how I write commit messages",
        "how should the text I write when saving work to version control look",
    ),
    (
        "zh",
        "我不喜欢在工作时间之外收到工作消息，手机上的 Slack 晚上九点后自动静音。",
        "Slack 晚上几点静音",
        "下班后怎么不被同事打扰",
    ),
    (
        "en",
        "I like answers that start with the conclusion and then the reasoning; long preambles make me skim "
        "and miss things.",
        "should answers start with the conclusion or the reasoning",
        "how do I want explanations ordered when someone replies to me",
        "我希望回答先说什么",
    ),
    (
        "zh",
        "笔记统一用 Markdown 存在本地文件夹，用 git 同步，不再用任何需要登录的云笔记。",
        "笔记用 Markdown 还是云笔记，怎么同步",
        "我记东西用什么工具和格式",
        "where and in what format do I keep my notes",
    ),
    (
        "en",
        "Keyboard: I use a 65% layout with Caps Lock remapped to Control; I've never gone back to a full-size board.",
        "keyboard layout and Caps Lock remapping",
        "how is my typing hardware set up",
    ),
    (
        "zh",
        "我更喜欢命令行工具而不是图形界面，能写成脚本的操作就不想点鼠标。",
        "命令行工具还是图形界面",
        "终端和窗口程序之间我偏爱哪个",
    ),
    (
        "en",
        "Variable naming: I prefer full words over abbreviations, e.g. `request` not `req`, except for loop indices.",
        "variable naming: full words or abbreviations",
        "do I like shortened identifiers in code",
    ),
    (
        "zh",
        "回复里不要用太多表情符号，一两个可以，整段都是 emoji 会显得不专业。",
        "回复里用多少 emoji 表情符号合适",
        "消息里放多少小图标我能接受",
    ),
    (
        "en",
        "I'm vegetarian on weekdays and eat fish on weekends; no red meat at all since 2021.",
        "am I vegetarian, and do I eat fish or red meat",
        "what's my diet, do I eat beef or pork",
        "我的饮食习惯，吃不吃红肉",
    ),
    (
        "zh",
        "写作时我习惯中文和英文之间加一个空格，数字和单位之间也加，比如“10 GB”。",
        "中文和英文之间要不要加空格",
        "混排文字时我的排版规矩是什么",
        "do I put a space between Chinese and English words",
    ),
)

MONEY = facts(
    "money",
    (
        "zh",
        "每月工资到账当天自动转 20% 到指数基金定投，剩下的才是可支配的钱。",
        "工资到账后自动定投指数基金多少",
        "我每个月怎么存钱和投资",
        "what share of my salary goes into index funds automatically",
    ),
    (
        "en",
        "Emergency fund target: six months of fixed expenses in a high-yield savings account, separate from "
        "the brokerage.",
        "how many months of expenses in the emergency fund",
        "how big is the cash buffer I keep for bad times",
    ),
    (
        "zh",
        "订阅服务每季度清一次：上次发现三个半年没用的会员，一年能省下一千多块。",
        "多久清理一次订阅服务和会员",
        "怎么避免为用不着的自动续费花冤枉钱",
    ),
    (
        "en",
        "Tax note: keep receipts for the home office; the 2024 return claimed 15% of rent because the study "
        "is 15% of the floor area.",
        "home office tax deduction for rent",
        "what share of housing cost did I deduct for working remotely",
        "报税时家庭办公室按多少比例抵扣房租",
    ),
    (
        "zh",
        "信用卡只留两张：一张日常返现，一张境外免货币转换费，其余都注销了。",
        "信用卡我只留了哪两张",
        "我现在还用几张刷卡消费的卡",
    ),
    (
        "en",
        "Big purchase rule: anything over $300 waits 30 days on a list; most of them I no longer want when "
        "the month is up.",
        "rule for any purchase over $300",
        "how do I stop impulse buying expensive things",
        "大额消费前我会等多久",
    ),
    (
        "zh",
        "记账用 Beancount，每周日花十五分钟导入银行流水并对账。",
        "用 Beancount 记账多久对账一次",
        "我用什么方式管理家里的收支",
    ),
    (
        "en",
        "Rent vs buy: with 5% mortgage rates and a 4% rental yield in our city, renting and investing the "
        "difference came out ahead over ten years.",
        "rent vs buy comparison with mortgage rates",
        "why didn't we purchase a flat",
    ),
)

LIFE_FACTS = LEARNING + COOKING + FITNESS + TRAVEL + PREFERENCES + MONEY
