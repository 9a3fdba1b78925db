"""Where a lasting sentence holds: in every project the person works on, or in the one at hand.

Who the person is, how to talk to them, and habits they say hold everywhere ("for every client I
write", "我所有项目都用 pnpm") are global; a rule that names this repository or a path in it, and
everything else, stays with its project. Patterns run on text folded by ``cues.fold``.
"""

from __future__ import annotations

import re

from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.lasting import COMMUNICATION, IDENTITY, STANDING, words
from incremind_daemon.pipeline.replies import reply_slots
from incremind_daemon.pipeline.stance import CHANGE_OF_PLAN

EVERY_PROJECT = re.compile(
    words(
        r"(?:all|every|any) (?:of )?my (?:[\w.+#-]+ )?(?:projects|repos|repositories)|everywhere i work",
        r"my (?:[\w.+#-]+ )?(?:projects|repos) (?:all|always)",
        r"across (?:all |every )?(?:of )?(?:my )?(?:projects|repos|repositories)",
        r"in (?:every|any|all) (?:one )?(?:of )?(?:my )?(?:projects?|repos?|repositories)",
        r"whatever the (?:project|repo)",
        # "that goes for every project, not just this one", "same in all our repos"
        r"(?:every|each|any) (?:single )?(?:project|repo|repository)|all (?:of )?(?:our |the )?(?:projects|repos)",
        # "for every client I write", "same as every JS thing I touch": all the person makes or works on
        r"(?:every|each|any|all) (?:[\w.+#-]+ ){1,2}i (?:write|build|make|ship|maintain|touch|work on)",
        # "I use pnpm for everything": a habit, not this repo's tool
        r"i (?:always |only )?use [\w.+#-]+ for everything",
        r"for (?:any|every|each|all) (?:of my )?clients?",
    )
    + r"|(?:所有|全部|每个|任何|不管是?哪个)(?:的|人的)?\s*(?:[a-z][\w.+#-]{0,11}\s*)?(?:项目|专案|仓库|repo)"
    r"|(?:哪个|两个)\s*(?:项目|专案|仓库|repo)\s*都|我的\s*(?:[a-z][\w.+#-]{0,11}\s*)?(?:项目|专案|仓库|repo)\s*都"
    r"|我自己的(?:项目|仓库|repo)?也一样|我(?:什么都|全都|一律都?)用|(?:所有|每个|凡是|任何)我(?:写|做|开发|维护)的|我(?:写|做|开发|维护)的(?:所有|每个|任何)"
)
# a repository's own config file: ".sqlfluff", ".env.local" (not "~/.zshrc")
_CONFIG_FILE = r"(?<![\w/~.])\.[a-z][\w-]{2,}(?:\.[a-z]+)?(?![\w/])"
_PROJECT_ANCHOR = re.compile(
    words(r"this (?:repo|project|codebase|service|app)|here|our (?:repo|api|app|service|backend|frontend)")
    + r"|这个\s*(?:项目|仓库|repo|服务)|本项目|这里|我们的(?:项目|服务|接口)|\d{2,5}|/[\w.-]+/"
    # the team's way and the repo's own config: "我們的 SQL 關鍵字一律小寫, that's what .sqlfluff enforces"
    r"|我们的|咱们的|" + _CONFIG_FILE
)
# the project at hand named outright: a rule said of it stays with it, however it addresses the person
_THIS_PROJECT = re.compile(
    # not "all my Python code, not just this repo"; "it's my own repo" is the one at hand (not "my own repos")
    words(r"(?<!just )(?<!only )this (?:repo|repository|project|codebase)|in here|my own (?:repo|project|codebase)")
    + r"|(?<![只光仅])(?<!只是)(?<!不止)这个\s*(?:项目|专案|仓库|repo)|本项目|本专案|本仓库|这个库"
)
# a command of the repository's own toolchain, or its config: "run pnpm typecheck && pnpm test before you tell
# me it's done", "以后改完都要先跑 yarn lint 跟 yarn test:unit", "`make e2e` has to pass"; another project runs others.
# Not the tool alone ("pnpm pls", "uv only", "I use pnpm for everything"), nor how any project installs or runs
# a tool ("pnpm install", "`pnpm jest`")
_SCRIPT = (
    r"(?:test|lint|typecheck|type-check|build|dev|start|format|fmt|check|e2e|preview|storybook|deploy|release"
    r"|generate|codegen)(?::[\w-]+)?|[a-z][\w-]*:[\w-]+"
)
_REPO_TOOLS = re.compile(
    rf"(?<![a-z0-9_./-])(?:(?:pnpm|yarn|bun|npm)(?: run)? (?:{_SCRIPT})(?![\w:-])"
    r"|make (?:lint|test|check|build|e2e|fmt|format|release|deploy|sqlc|ci|typecheck|vet|generate|docs|bench"
    r"|[a-z]+-[\w-]+)(?![\w-])"
    r"|cargo (?:test|clippy|fmt|nextest|build|check|bench)(?![\w-])"
    r"|go (?:test|vet|build|generate|tool)(?![\w-])|(?:uv|poetry) run [a-z][\w.-]*|(?:\./)?gradlew [a-z][\w:-]*)"
    # …or a script at its root, run by its relative path: "Build and tests always through ./gradlew", "./scripts/dev.sh"
    r"|(?<![\w./~-])\./[a-z][\w-]*(?:/[\w.-]+)*"
    # …or its manifest, lockfile or build file: "bumps the minor version in pyproject", "go.mod says go 1.23"
    r"|(?<![\w.-])(?:pyproject(?:\.toml)?|package\.json|cargo\.toml|go\.mod|tsconfig(?:\.\w+)?\.json|makefile"
    r"|dockerfile|requirements(?:-\w+)?\.(?:txt|in)|uv\.lock|poetry\.lock|pnpm-lock\.yaml|build\.gradle(?:\.kts)?)(?![\w-])"
    # …or its own config file: "run sqlfluff lint before you tell me it's done — the .sqlfluff in the repo root
    # is the source of truth" (not "~/.zshrc", nor ".NET")
    r"|(?!\.net(?![\w-]))" + _CONFIG_FILE
)
# a path inside a repository: "unsorted/", "db/queries/*.sql", "internal/exifdate/exif.go"; not "~/Pictures",
# "/etc/hosts", "and/or" or "en/zh-cn"
_REPO_PATH = re.compile(r"(?<![\w~/.:-])[a-z_][\w.-]*/(?:[\w.*-]+/)*(?:[\w*-]*\.[a-z*]\w*|(?=[\s,.;:)，。；]|$))")
# a file of the repository's own code or config, named bare: "categories.toml", "spec.yaml", "header.tex"
_REPO_FILE = re.compile(
    r"(?<![\w~/.-])[a-z_][\w-]*\.(?:toml|ya?ml|json|ini|cfg|conf|py|ts|tsx|js|mjs|go|rs|kt|kts|swift|java|rb|php"
    r"|sql|sh|proto|tf|gradle|xcconfig|plist|sty|tex)(?![\w.])"
)
# where the person is and the clock they keep: "I'm in Shanghai (UTC+8) — give me times in Beijing time"
# (not a timezone plugin or a cron's UTC+8: what the person says of themselves and wants told)
_TIMEZONE = re.compile(
    r"(?<![a-z])(?:give|show|tell|send) me (?:the )?(?:times?|dates?|schedules?) in"
    r"|(?<![a-z])i'?m in [\w ]{2,20}\((?:utc|gmt)|按北京时间|北京时间给我|时间都?按[^，。]{1,6}给我"
)
# a standing rule about how the agent works with the person holds in every project
_WITH_ME = re.compile(
    words(
        r"(?:ask(?:ing)?|check(?:ing)? with|ping|tell|show|confirm(?:ing)? with|remind) me",
        r"before (?:you )?(?:commit|push)\w*",
        # not "the Release workflow picks up every push to main": what a project's CI does
        r"(?<!every )(?<!each )(?<!any )(?<!on )push(?:ing)? (?:straight |directly )?to main",
        r"(?:open|use) a pr",
        r"prs?",
        r"force[- ]push",
        r"rebase",
        r"merge commits?",
        r"squash",
        r"(?:don't|do not|never) (?:git )?push",
        r"push (?:it )?myself",
    )
    + r"|(?:问|告诉|跟|提醒)我(?:确认|看|说)?|给我(?:确认|看|说)"  # "别给我用 pip" is about pip, not about me
    r"|(?:提交|push)\s*之?前|直接推|推到 ?main|(?:不要|别|不许)(?:跑|用)? ?(?:git )?push|自己 ?push"
    r"|(?:push|merge|合并|推送)\s*(?:都|还是|永远|一律)?(?:是)?我?都?自己"
)
# how the person works with any agent on a large change: a plan to see before it edits ("…我都想先看計畫",
# "改动超过三个文件先跟我说下计划 我点头了再动手", "walk me through what you plan to change and wait for my go-ahead")
_PLAN_FIRST = re.compile(
    r"(?:计划|计画|plan)[^。；.]{0,12}?(?:再(?:动手|动|改)|我(?:点头|确认|同意))|先看(?:计划|计画|plan)"
    r"|(?<![a-z])(?:walk me through|wait for my (?:go-ahead|ok|okay))(?![a-z])"
)
# a part of the project at hand: "payment PRs go to Ben, he owns the payment module" is this project's way
_PROJECT_PART = re.compile(
    r"模块|组件|(?<![a-z])(?:module|component|package|crate)s?(?![a-z])"
    # …and a step before each of one kind of the repo's work: "Before any migration goes near a database, show me its
    # SQL first", "run `ha core check` before any restart" (not before any commit or push, which every repo has)
    r"|(?<![a-z])before (?:any|every|each) (?!commit|push|merg|pr\b)[a-z]+"
)
# a step that runs one of the repo's tools: "run tfsec on the changed dir", "跑 golangci-lint"
_RUNS_A_TOOL = re.compile(r"(?:(?:please|pls|always) )?(?:run|execute) (?!me\b|it\b|them\b)[a-z]|[先都]?跑\s*[a-z]")
_FIRST_PERSON_HABIT = re.compile(
    words(
        r"i (?:really |much |strongly |generally )?(?:prefer|like|love|hate|dislike|always|usually|never|tend to)",
        r"i(?:'d| would) rather",
        r"my (?:editor|shell|style|habit|favorite|favourite|go-to)",
        r"(?:i|we) (?:don't|do not|never) (?:mock|push|commit|merge|force)",
        r"i(?:'m| am) on (?!it|that|this|the|my way|call|leave|vacation)[a-z][\w.-]*",
    )
    + r"|^我(?:很|更|比较|最|一直|还是|一般|通常|总是|从不|从来不)?(?:喜欢|偏好|爱用|讨厌|不喜欢|倾向|习惯)"
    r"|我的习惯|我用的是"
)


def about_the_person(folded: str, cues: frozenset[str]) -> bool:
    """Tell whether a sentence says who the person is, how to talk to them or a habit of theirs ("I prefer tabs")."""
    return bool(cues & {IDENTITY.pattern, COMMUNICATION.pattern}) or _FIRST_PERSON_HABIT.search(folded) is not None


def names_this_project(folded: str) -> bool:
    """Tell whether a sentence names the project at hand outright ("this repo", "这个项目"), a path or a file in it
    ("Photos without EXIF go to unsorted/", "queries live in db/queries/*.sql", "分类规则放到 categories.toml 里")
    or one of its commands ("run make lint before you tell me it's done")."""
    patterns = (_THIS_PROJECT, _REPO_PATH, _REPO_TOOLS, _REPO_FILE)
    return any(pattern.search(folded) is not None for pattern in patterns)


def rules_scope_stands(folded: str) -> bool:
    """Tell whether the rules' scope stands without the model's reading: the project or a path in it is
    named, the person says where they are and the clock they keep, or asks to see a plan before a change."""
    return names_this_project(folded) or _TIMEZONE.search(folded) is not None or _PLAN_FIRST.search(folded) is not None


def scope_of(folded: str, category: str, cues: frozenset[str]) -> str:
    """Return 'global' for who the person is, how to talk to them and habits of every project."""
    if category == "identity" or IDENTITY.pattern in cues:
        return "global"
    if EVERY_PROJECT.search(folded) or _TIMEZONE.search(folded):
        return "global"
    # "这个项目用 poetry，别给我用 pip install", "you can answer in English in this repo": said of this project
    if names_this_project(folded):
        return "project"
    if COMMUNICATION.pattern in cues or reply_slots(folded) or _PLAN_FIRST.search(folded):
        return "global"  # "以后回复都用英文吧" sets how to answer too
    # …how the agent works with the person, not a tool the repo runs ("run tfsec on the changed dir before you push")
    if STANDING.pattern in cues and _WITH_ME.search(folded) and not _PROJECT_PART.search(folded):
        return "project" if _RUNS_A_TOOL.match(folded) else "global"
    if category == "preference" and _FIRST_PERSON_HABIT.search(folded) and not _PROJECT_ANCHOR.search(folded):
        return "global"
    return "project"


def scope_beside(scope: str, said: str, known_scope: str, *, changes: bool = False) -> str:
    """Return the scope of a statement that adds to or changes a known insight: what adds to or changes one
    project's rule is that project's ("这种 data backfill 的 migration 可以不写 down.sql" beside "Migrations must
    be reversible"), unless it says it holds in every project; otherwise its own ``scope``.

    ``changes``: the statement changes the known one. A change of plan said of a rule that holds everywhere,
    naming no project, is as wide as the rule ("from now on you can push feature branches yourself, just never
    main" beside "never push — pushing is my job"); said of this repository it is its exception.
    """
    # folded only where it decides: relate reads every candidate beside each of its neighbours
    if known_scope == "project" and scope != "project" and not EVERY_PROJECT.search(fold(said)):
        return "project"
    if changes and known_scope == "global" and scope != "global":
        folded = fold(said)
        if CHANGE_OF_PLAN.search(folded) and not names_this_project(folded):
            return "global"
    return scope


def scope_in(scope: str, said: str, category: str, project: str) -> str:
    """Return the scope of a statement said in ``project``: one that names that project ("in infra-live the commit
    scope is the env", "helmwright 的 MR 以後改找 Oskar review") is its rule, unless it is who the person is or
    says it holds in every project."""
    if scope != "global" or category == "identity" or len(project) < 3:
        return scope
    folded = fold(said)
    named = re.search(rf"(?<![\w.-]){re.escape(project.casefold())}(?![\w-])", folded.casefold())
    return "project" if named and not EVERY_PROJECT.search(folded) else scope
