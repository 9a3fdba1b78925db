"""Session snapshots: goal, done, decisions, next steps and files, from synthetic and real transcripts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.goal import GOAL_CHARS
from incremind_daemon.pipeline.snapshot import SessionSnapshot, Turn, snapshot_session
from incremind_daemon.pipeline.state_cues import is_done
from incremind_daemon.sources.sessions import (
    ClaudeParser,
    CodexParser,
    GeminiParser,
    Rewind,
    SessionItem,
    SessionMessage,
    SessionParser,
    parse_gemini_json,
)
from incremind_daemon.store.snapshots import snapshot_from_json, snapshot_json

FIXTURES = Path(__file__).parent.parent / "fixtures" / "sessions"
REAL_FILES = sorted(path for agent in ("claude", "codex", "gemini") for path in (FIXTURES / agent).rglob("*.json*"))
PATH_LIKE = re.compile(r"[~./]?[\w@+.~/-]+")


def user(text: str) -> Turn:
    return Turn("user", text)


def assistant(text: str) -> Turn:
    return Turn("assistant", text)


def tool(text: str) -> Turn:
    return Turn("tool", text)


ENGLISH_SESSION = [
    user("hi"),
    user("Can you add a dark mode toggle to the settings page? It should remember the choice."),
    assistant("I'll look at the settings page first."),
    tool("Read: /home/ana/web/src/settings/SettingsPage.tsx"),
    tool("Grep: theme in /home/ana/web/src"),
    assistant("Next, I'll add a theme context."),
    tool("Write: /home/ana/web/src/theme/ThemeContext.tsx"),
    tool("Edit: /home/ana/web/src/settings/SettingsPage.tsx"),
    assistant(
        "I've added a `ThemeContext` in `src/theme/ThemeContext.tsx` and wired the toggle into the settings page.\n\n"
        "```tsx\nconst next = theme === 'dark' ? 'light' : 'dark'; // I've added nothing here\n```\n\n"
        "We'll store the choice in localStorage for now."
    ),
    user("actually, let's use the system preference by default instead of always starting light"),
    assistant("Good idea. Let's use `prefers-color-scheme` as the default instead of light."),
    tool("Edit: /home/ana/web/src/theme/ThemeContext.tsx"),
    tool("Bash: npm test -- --run"),
    tool('Bash: git commit -am "Add dark mode toggle"'),
    assistant(
        "Done:\n- Read the system preference on first load\n- All 42 tests pass\n\n"
        "Next steps:\n- Add a test for the localStorage fallback\n- Still need to update the docs in README.md\n\n"
        "Want me to also add a keyboard shortcut?"
    ),
    user("thanks!"),
]

CHINESE_SESSION = [
    user("继续"),
    user("帮我给登录页加一个验证码，防止暴力破解。"),
    assistant("好的，我先看一下登录页的代码。"),
    tool("Read: src/auth/login.py"),
    tool("Edit: src/auth/login.py"),
    tool("Write: src/auth/captcha.py"),
    assistant("已经添加了 `captcha.py`，登录失败三次后要求输入验证码。"),
    user("不用图片验证码了，改用滑块验证。"),
    assistant("明白，决定改用滑块验证，删除了图片验证码的代码。测试全部通过。"),
    tool("Edit: src/auth/captcha.py"),
    assistant("改好了，滑块验证已经接入登录页。下一步：给滑块加上无障碍支持。还需要更新 docs/auth.md 里的说明。"),
    user("好的"),
]

MIXED_SESSION = [
    user("/clear"),
    user("请帮我把 config loader 改成支持 TOML，现在只支持 JSON。"),
    assistant("我来看看 `incremind/config.py`。"),
    tool("Read: incremind/config.py"),
    tool("apply_patch: incremind/config.py, tests/test_config.py"),
    assistant("已经完成：config loader 现在同时支持 TOML 和 JSON，新增了 tests/test_config.py 的用例。"),
    user("其实 JSON 不用支持了，就用 TOML。"),
    assistant("OK, 决定只保留 TOML，JSON 的分支已删除。I've removed the JSON branch and updated the tests."),
    tool("apply_patch: incremind/config.py"),
    assistant("TODO: 之后再把 README.md 的配置示例换成 TOML。"),
]


def test_snapshot_is_empty_when_there_are_no_turns() -> None:
    snapshot = snapshot_session([])

    assert snapshot == SessionSnapshot("", "", (), (), (), ())
    assert snapshot.render() == ""


def test_english_session_snapshot_holds_goal_progress_plan_and_files() -> None:
    snapshot = snapshot_session(ENGLISH_SESSION)

    assert snapshot.index_line == "Add a dark mode toggle to the settings page?"
    assert snapshot.goal == "Add a dark mode toggle to the settings page? It should remember the choice."
    assert any("ThemeContext" in item for item in snapshot.done)
    assert "All 42 tests pass" in snapshot.done
    assert "Committed: Add dark mode toggle" in snapshot.done
    assert any("system preference" in item for item in snapshot.decisions)  # the change of plan
    # the offer nobody took is no agreed step
    assert snapshot.next_steps == (
        "Add a test for the localStorage fallback",
        "Still need to update the docs in README.md",
    )
    assert snapshot.files == ("README.md", "src/theme/ThemeContext.tsx", "/home/ana/web/src/settings/SettingsPage.tsx")


def test_chinese_session_snapshot_holds_goal_progress_plan_and_files() -> None:
    snapshot = snapshot_session(CHINESE_SESSION)

    assert snapshot.index_line == "给登录页加一个验证码，防止暴力破解。"
    assert snapshot.goal == "给登录页加一个验证码，防止暴力破解。"
    assert any("已经添加了 `captcha.py`" in item for item in snapshot.done)
    assert any(item.startswith("改好了") for item in snapshot.done)
    assert any("测试全部通过" in item for item in snapshot.done)
    assert any(item.startswith("不用图片验证码了，改用滑块验证") for item in snapshot.decisions)
    assert any("无障碍" in item for item in snapshot.next_steps)
    assert any("docs/auth.md" in item for item in snapshot.next_steps)
    assert snapshot.files == ("docs/auth.md", "src/auth/captcha.py", "src/auth/login.py")


def test_mixed_session_snapshot_holds_goal_progress_plan_and_files() -> None:
    snapshot = snapshot_session(MIXED_SESSION)

    assert snapshot.index_line.startswith("把 config loader 改成支持 TOML")
    assert snapshot.goal == "把 config loader 改成支持 TOML，现在只支持 JSON。"
    assert any("I've removed the JSON branch" in item for item in snapshot.done)
    assert snapshot.decisions == ("JSON 不用支持了，就用 TOML",)
    assert any("README.md" in item for item in snapshot.next_steps)
    assert snapshot.files[0] == "README.md"
    assert set(snapshot.files) == {"README.md", "incremind/config.py", "tests/test_config.py"}


@pytest.mark.parametrize(
    "opener", ["hi", "continue", "yes", "继续", "好的，继续", "ok thanks!", "Sounds good, go ahead.", "/init", "/clear"]
)
def test_goal_skips_opener_when_it_is_only_an_acknowledgement_or_command(opener: str) -> None:
    snapshot = snapshot_session([user(opener), user("Fix the flaky upload test in tests/test_upload.py")])

    assert snapshot.index_line == "Fix the flaky upload test in tests/test_upload.py"
    assert snapshot.goal == snapshot.index_line


@pytest.mark.parametrize(
    ("later", "decided"),
    [
        ("Actually, make it a CLI flag instead.", "CLI flag"),
        ("其实不用配置文件了，用环境变量。", "用环境变量"),
        ("Scratch that, switch the cache to SQLite.", "SQLite"),
        ("算了，改用 SQLite 吧。", "改用 SQLite"),
    ],
)
def test_change_of_plan_is_a_decision_and_the_goal_stays_the_first_ask(later: str, decided: str) -> None:
    snapshot = snapshot_session([user("Add a setting for the cache size."), assistant("On it."), user(later)])

    assert snapshot.goal == snapshot.index_line == "Add a setting for the cache size."
    assert any(decided in item for item in snapshot.decisions)


def test_goal_keeps_the_first_request_when_later_requests_are_not_refinements() -> None:
    snapshot = snapshot_session([user("Add a setting for the cache size."), user("Also add a test for it.")])

    assert snapshot.goal == "Add a setting for the cache size."


def test_index_line_is_one_short_line_when_the_request_is_long() -> None:
    request = (
        "Please refactor the ingestion pipeline so that every extractor reports its progress, handles "
        "cancellation cleanly and retries transient network failures with exponential backoff\n"
        "and also log every retry."
    )
    snapshot = snapshot_session([user(request)])

    assert len(snapshot.index_line) <= 80 and "\n" not in snapshot.index_line
    assert snapshot.index_line.startswith("Refactor the ingestion pipeline")
    assert snapshot.index_line.endswith("…")
    assert len(snapshot.goal) <= GOAL_CHARS


def test_index_line_comes_from_the_agent_when_no_person_asked() -> None:
    snapshot = snapshot_session(
        [user("/init"), assistant("I'll analyze the codebase and create a CLAUDE.md file for this repository.")]
    )

    assert snapshot.index_line == "Analyze the codebase and create a CLAUDE.md file for this repository."


@pytest.mark.parametrize("text", ["We moved the app to nextjs 14 for routing.", "The Next.js build now uses SWC."])
def test_next_cue_is_word_bounded_when_it_is_part_of_a_name(text: str) -> None:
    snapshot = snapshot_session([user("Speed up the build."), assistant(text)])

    assert snapshot.next_steps == ()


def test_next_step_is_kept_when_the_reply_ends_the_round() -> None:
    snapshot = snapshot_session([user("Speed up the build."), assistant("Next, we can cache the dependencies.")])

    assert snapshot.next_steps == ("Next, we can cache the dependencies",)


def test_narration_of_the_next_tool_call_is_not_a_next_step() -> None:
    turns = [
        user("Speed up the build."),
        assistant("Next, I'll read the webpack config."),
        tool("Read: webpack.config.js"),
        assistant("接下来我会看一下缓存配置。"),
        tool("Read: babel.config.js"),
        assistant("The build is now working with the cache enabled."),
    ]

    snapshot = snapshot_session(turns)

    assert snapshot.next_steps == ()
    assert snapshot.done == ("The build is now working with the cache enabled",)


def test_sentences_inside_code_fences_are_skipped() -> None:
    reply = "Here is the script:\n```python\n# TODO: still need to handle errors\nprint('I have fixed it')\n```\n"
    snapshot = snapshot_session([user("Write a backup script."), assistant(reply)])

    assert (snapshot.done, snapshot.decisions, snapshot.next_steps) == ((), (), ())


SUBJECTS = ["date parsing", "unicode escapes", "comment stripping", "header folding", "quote handling"]
SUBJECTS += ["number rounding", "boolean coercion", "null checks", "tab expansion", "line endings"]


def test_later_items_win_when_there_are_more_candidates_than_slots() -> None:
    replies = [assistant(f"I've fixed the {subject} bug.") for subject in SUBJECTS]

    snapshot = snapshot_session([user("Fix the parser bugs."), *replies])

    assert snapshot.done == tuple(f"I've fixed the {subject} bug" for subject in SUBJECTS[-8:])


@pytest.mark.parametrize(
    ("first", "heads", "details"),
    [
        ("Bumped the deployment target to 17.0.",
         ["Added migration v7_plans to AppDatabase.", "Moved the setup call before the environment is built."],
         ["Removed the Combine import from PlanStore.", "Converted refresh() to async throws.",
          "Dropped the AnyCancellable set.", "Renamed fetchAll to loadPlans.", "Added a retry to the sync call.",
          "Deleted the unused PlanCache type.", "Wrapped the writer in a guard.", "Fixed the typo in the header.",
          "Updated the README section on storage."]),
        ("已把部署版本升到 17.0。",
         ["已在 AppDatabase 里加了迁移 v7_plans。", "已把 setup 挪到环境创建之前。"],
         ["删掉了 Combine 导入。", "已把 refresh() 改成 async throws。", "去掉了 AnyCancellable 集合。",
          "已把 fetchAll 改名为 loadPlans。", "给 sync 调用加了重试。", "删掉了没用的 PlanCache 类型。",
          "已给 writer 加上 guard。", "修好了表头的错字。", "更新了 README 的存储说明。"]),
    ],
)  # fmt: skip
def test_each_turns_head_report_stays_when_a_later_turn_reports_much_detail(
    first: str, heads: list[str], details: list[str]
) -> None:
    turns = [user("Move the app to iOS 17."), assistant(f"{first}\n\nBuild is clean.")]
    for head in heads:
        turns += [user("Go on with the store."), assistant(head)]
    turns += [user("Now the imports."), assistant("\n".join(f"- {detail}" for detail in details)), user("thanks")]

    done = snapshot_session(turns).done

    assert done[0] == first.rstrip(".。"), done
    assert len(done) == 8


def test_duplicates_are_dropped_when_they_differ_only_in_case_space_or_a_word() -> None:
    turns = [
        user("Fix the login redirect."),
        assistant("I've fixed the login redirect loop in the auth middleware."),
        assistant("I've   FIXED the login redirect loop in the auth middleware!"),
        assistant("I've fixed the login redirect loop in the new auth middleware."),
    ]

    snapshot = snapshot_session(turns)

    assert snapshot.done == ("I've fixed the login redirect loop in the new auth middleware",)


def test_section_captions_and_checkboxes_classify_their_items() -> None:
    reply = (
        "## Changes made\n"
        "- `parser.py`: stricter date handling\n"
        "- [x] migration script for old rows\n"
        "- [ ] backfill for archived rows\n\n"
        "**Open questions:**\n"
        "1. Should archived rows keep their ids\n\n"
        "### 下一步\n"
        "- 更新文档中的日期格式说明\n"
    )
    snapshot = snapshot_session([user("Make date parsing strict."), assistant(reply)])

    assert snapshot.done == ("`parser.py`: stricter date handling", "migration script for old rows")
    assert snapshot.next_steps == (
        "backfill for archived rows",
        "Should archived rows keep their ids",
        "更新文档中的日期格式说明",
    )


def test_chinese_section_captions_classify_their_items() -> None:
    reply = "### 未完成\n- 接口文档的同步更新工作\n\n**已完成：**\n- 登录接口的参数校验逻辑"

    snapshot = snapshot_session([user("整理登录流程的代码"), assistant(reply)])

    assert (snapshot.done, snapshot.next_steps) == (("登录接口的参数校验逻辑",), ("接口文档的同步更新工作",))


def test_nested_items_join_the_item_that_introduces_them() -> None:
    reply = "- Added version notes to:\n  - `README.md:12`\n  - `docs/setup.md:3`\n- Deleted `TODO.md`"

    snapshot = snapshot_session([user("Document the versions."), assistant(reply)])

    assert snapshot.done == ("Added version notes to: `README.md:12`, `docs/setup.md:3`", "Deleted `TODO.md`")


def test_markdown_noise_is_trimmed_from_items() -> None:
    reply = "> **Fixed** the [race condition](https://example.com/issue/7) in `worker.py` ✨"

    snapshot = snapshot_session([user("Fix the race."), assistant(reply)])

    assert snapshot.done == ("Fixed the race condition in `worker.py` ✨",)


def test_long_items_are_cut_at_a_word_boundary() -> None:
    reply = "I've updated " + " ".join(f"module{n}" for n in range(60)) + "."

    (item,) = snapshot_session([user("Update the modules."), assistant(reply)]).done

    assert len(item) <= 160 and item.endswith("…")
    assert re.fullmatch(r"I've updated( module\d+)+…", item)


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        ("我已經完成了登入頁的重構。", "done"),
        ("之後再補上單元測試的覆蓋率。", "next"),
        ("还没有处理超时的重试逻辑。", "next"),
        ("I haven't fixed the flaky timeout test yet.", "none"),
    ],
)
def test_cues_match_in_traditional_chinese_and_respect_negation(reply: str, kind: str) -> None:
    snapshot = snapshot_session([user("整理登入流程"), assistant(reply)])

    found = {"done": snapshot.done, "decisions": snapshot.decisions, "next": snapshot.next_steps}
    assert {name for name, items in found.items() if items} == ({kind} - {"none"})


def test_tool_output_never_becomes_an_item() -> None:
    body = "Bash: pytest -q\n" + "I've fixed nothing. TODO: ignore me.\n" * 50

    snapshot = snapshot_session([user("Run the tests."), tool(body)])

    assert (snapshot.done, snapshot.decisions, snapshot.next_steps, snapshot.files) == ((), (), (), ())


def test_system_reminders_are_ignored() -> None:
    text = "<system-reminder>TODO: the file README.md was modified.</system-reminder>Add rate limiting to the API."

    snapshot = snapshot_session([user(text)])

    assert snapshot.index_line == "Add rate limiting to the API."
    assert snapshot.next_steps == () and snapshot.files == ()


def test_files_are_most_recent_first_and_prefer_the_short_form_of_one_path() -> None:
    turns = [
        user("Look at src/app.py and then the config."),
        tool("Read: /home/me/proj/src/app.py"),
        tool("Edit: /home/me/proj/config/settings.toml"),
        assistant("I've updated `config/settings.toml:4` and left `./src/app.py` alone."),
    ]

    assert snapshot_session(turns).files == ("src/app.py", "config/settings.toml")


def test_files_prefer_changed_files_when_there_are_more_than_twelve() -> None:
    turns = [user("Tidy the repo."), tool("Edit: src/core.py")]
    turns += [tool(f"Read: src/module_{n}.py") for n in range(20)]

    files = snapshot_session(turns).files

    assert len(files) == 12
    assert files[-1] == "src/core.py"
    assert files[0] == "src/module_19.py"


@pytest.mark.parametrize(
    "text",
    [
        "See https://github.com/org/repo/blob/main/app.py and github.com/org/repo/x.py",
        "Bump to v1.2.3 or 3.10, e.g. the latest, and check hex.pm or go.dev.",
        "The terminal is xterm.js inside a Node.js app.",
        "Glob results in /tmp/claude-1000/tasks/out.txt",
    ],
)
def test_files_ignore_urls_versions_domains_libraries_and_scratch_paths(text: str) -> None:
    assert snapshot_session([user(text)]).files == ()


@pytest.mark.parametrize(
    "marker",
    ["Glob: **/*.py in /repo", "Grep: TODO in /repo/src", "WebFetch: https://example.com/a.md", "TodoWrite"],
)
def test_files_ignore_search_and_web_tools(marker: str) -> None:
    assert snapshot_session([user("Find the todo items."), tool(marker)]).files == ()


@pytest.mark.parametrize(
    ("marker", "files"),
    [
        ("apply_patch: go.mod, README.zh-TW.md", ("go.mod", "README.zh-TW.md")),
        ("shell: sed -n '1,200p' go.mod && cat .python-version", (".python-version", "go.mod")),
        ("[tool] Edit src/app.py", ("src/app.py",)),
        ("write_file: Makefile", ("Makefile",)),
    ],
)
def test_files_come_from_tool_markers(marker: str, files: tuple[str, ...]) -> None:
    assert set(snapshot_session([user("Update the build."), tool(marker)]).files) == set(files)


@pytest.mark.parametrize(
    ("marker", "done"),
    [
        ("Bash: git push -u origin feat/rollback", ("Pushed feat/rollback",)),
        ("shell: git checkout -b fix/x && git push origin HEAD:fix/x", ("Pushed fix/x",)),
        ("shell: git push origin --tags", ()),
        ("shell: git push -u origin fix/ci-testc …", ()),  # a marker cut short names no branch
    ],
)
def test_pushed_branch_is_done(marker: str, done: tuple[str, ...]) -> None:
    assert snapshot_session([user("Push the branch."), tool(marker)]).done == done


def test_render_lists_nonempty_parts_in_order() -> None:
    snapshot = SessionSnapshot("Fix it", "Fix the bug", ("Fixed A", "Fixed B"), (), ("Add tests",), ("a.py", "b.py"))

    assert snapshot.render() == "Goal: Fix the bug\nDone: Fixed A; Fixed B\nNext: Add tests\nFiles: a.py, b.py"


def next_lines(snapshot: SessionSnapshot) -> list[str]:
    return [line for line in snapshot.render().splitlines() if line.startswith("Next:")]


@pytest.mark.parametrize(
    ("reply", "step"),
    [
        ("I've fixed the retry loop. Next steps: add a test for the backoff cap.", "add a test for the backoff cap"),
        (
            "Done: the retry loop is fixed.\n\nNext steps:\n- add a test for the backoff cap",
            "add a test for the backoff cap",
        ),
        ("已经修复了重试循环。下一步：给退避上限补一个测试。", "给退避上限补一个测试"),
        ("重试循环改好了。\n\n**下一步：**\n- 给退避上限补一个测试", "给退避上限补一个测试"),
        # no caption, only the words that say it is next
        ("重试循环改好了。下一步我把退避上限的测试补上。", "把退避上限的测试补上"),
        ("The retry loop is fixed. Next, I'll add a test for the backoff cap.", "add a test for the backoff cap"),
    ],
)
def test_next_step_has_one_label_when_the_agent_writes_its_own(reply: str, step: str) -> None:
    snapshot = snapshot_session([user("Fix the retry loop."), assistant(reply), user("thanks")])

    assert snapshot.next_steps == (step,)
    assert next_lines(snapshot) == [f"Next: {step}"]


@pytest.mark.parametrize(
    "paste",
    [
        "still failing:\nFAIL src/cart/Cart.test.tsx > totals > adds tax\nAssertionError: expected 3 to be 2\n"
        "    at src/cart/Cart.test.tsx:41:18\nTODO: still need to see why",
        "还是挂了：\nFAIL src/cart/Cart.test.tsx > totals > adds tax\nAssertionError: expected 3 to be 2\n"
        "    at src/cart/Cart.test.tsx:41:18\n下一步看看税率",
        'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\nValueError: next step failed',
    ],
)
def test_pasted_log_line_is_never_the_next_step(paste: str) -> None:
    turns = [user("Fix the cart totals."), assistant("I've fixed the rounding in `cart.ts`."), user(paste)]

    snapshot = snapshot_session(turns)

    rendered = snapshot.render()
    assert "FAIL" not in rendered and "AssertionError" not in rendered and "Traceback" not in rendered
    assert not any("Error" in item or "src/cart" in item for item in snapshot.next_steps)


@pytest.mark.parametrize(
    ("plan", "objection", "rejected", "decided"),
    [
        ("测试我用 jest 配一下，接下来用 jest 配一下。", "不对，测试用 vitest，jest 一个都不要装。", "jest", "vitest"),
        (
            "Next, I'll set up jest for the tests.",
            "No, we use vitest here, don't install jest.",
            "set up jest",
            "vitest",
        ),
        ("Want me to switch the store tests to pgxmock?", "不用。测试里不 mock 数据库，起真库。", "pgxmock", "mock"),
        ("要不要我把温度改成 learnable？", "No. The temperature stays fixed at 0.02.", "learnable", "0.02"),
    ],
)
def test_plan_the_person_overruled_is_no_next_step_and_what_they_said_is_a_decision(
    plan: str, objection: str, rejected: str, decided: str
) -> None:
    snapshot = snapshot_session([user("给 shipments 页面加筛选"), assistant(plan), user(objection)])

    assert not any(rejected in item for item in snapshot.next_steps)
    assert not any(rejected in item and decided not in item for item in snapshot.decisions)
    assert any(decided in item for item in snapshot.decisions)


@pytest.mark.parametrize(
    ("plan", "report"),
    [
        ("TODO: add the index on orders.created_at.", "Added the index on orders.created_at; tests pass."),
        ("接下来给 orders.created_at 加索引。", "已经给 orders.created_at 加好索引了，测试通过。"),
    ],
)
def test_work_done_after_it_was_planned_is_not_a_next_step(plan: str, report: str) -> None:
    turns = [user("Speed up the orders page."), assistant(plan), tool("Edit: db/schema.sql"), assistant(report)]

    snapshot = snapshot_session(turns)

    assert snapshot.next_steps == ()
    assert any("created_at" in item for item in snapshot.done)


@pytest.mark.parametrize(
    ("turns", "decided"),
    [
        ([user("Add an offline mode."), assistant("I'll keep the Postgres store."),
          user("Let's switch to SQLite, Postgres is overkill for a desktop app.")], "switch to SQLite"),
        ([user("加一个离线模式。"), assistant("我先沿用 Postgres。"),
          user("改用 SQLite 吧，桌面应用用 Postgres 太重了。")], "改用 SQLite"),
        ([user("Add an offline mode."), assistant("I'd suggest switching the store to SQLite. Should I?"),
          user("yes"), assistant("Switched the store to SQLite.")], "SQLite"),
        ([user("加一个离线模式。"), assistant("建议把存储换成 SQLite，可以吗？"), user("行。"),
          assistant("已经换成 SQLite 了。")], "SQLite"),
        ([user("Port is 8443, not 8080 — the gateway only forwards 8443. Add the health check.")], "8443"),
    ],
)  # fmt: skip
def test_what_the_person_decided_or_accepted_is_a_decision(turns: list[Turn], decided: str) -> None:
    assert any(decided in item for item in snapshot_session(turns).decisions)


def test_offer_the_person_took_at_the_end_is_the_next_step() -> None:
    turns = [user("Tag the release."), assistant("Tagged v0.4.0 locally. Want me to push the tag?"), user("yes please")]

    assert snapshot_session(turns).next_steps == ("Want me to push the tag?",)


@pytest.mark.parametrize(
    ("last", "step"),
    [
        ("ok. don't merge yet, Sam wants to look at the rollback UX tomorrow.", "Sam wants to look at the rollback UX"),
        ("好，这个 PR 先别合，等老唐把 ES 数据迁完再说。", "等老唐把 ES 数据迁完"),
    ],
)
def test_step_the_person_put_off_at_the_end_is_the_next_step(last: str, step: str) -> None:
    turns = [user("Add a rollback command."), assistant("Added `rollback` and pushed feat/rollback."), user(last)]

    assert any(step in item for item in snapshot_session(turns).next_steps)


@pytest.mark.parametrize(
    ("summary", "complaint", "done"),
    [
        ("Done. Summary of everything in this branch so far:\n\n- **tests/test_notify.py**: the test now uses "
         "`respx.mock`. No network access needed.\n- All 12 tests pass locally.",
         "Don't write long summaries at the end; three lines are enough.", "respx.mock"),
        ("了解。\n\n本次變更摘要：\n- 新增 `ProductVariant` model\n- 建立 migration `add_product_variant`\n"
         "- commit `8f2c1d4`", "還有你回答短一點就好，不用每次最後都幫我列 summary。", "8f2c1d4"),
    ],
)  # fmt: skip
def test_summary_is_done_when_the_reply_objects_only_to_the_agents_manner(
    summary: str, complaint: str, done: str
) -> None:
    snapshot = snapshot_session([user("Mock the webhook in that test."), assistant(summary), user(complaint)])

    assert any(done in item for item in snapshot.done)


def test_summary_item_is_done_in_its_first_sentence_only() -> None:
    reply = "Done. Summary so far:\n\n- cli.py: new `rollback` command. It refuses to run with one revision."

    done = snapshot_session([user("Add a rollback command."), assistant(reply), user("thanks")]).done

    assert "cli.py: new `rollback` command" in done
    assert not any("refuses" in item for item in done)


@pytest.mark.parametrize(
    "report",
    [
        "已把 values-staging.yaml 的 image.tag 改成 `3f9a2c1d7e4b`。",
        "`run_helm()` 里加了 `timeout=10`，超时会抛 `HelmTimeout`。",
        "用 hz-prod-admin 重新查了，annotation 指向 `role/shipmate-oss-rw`。",
        "改回 `[]Point`，build 通过。",
        "Recreated the `shipmate-it` cluster with 6 GB for Docker.",
        "Seeded `random` with 42 inside that test only.",
    ],
)
def test_report_in_more_forms_of_english_and_chinese_is_done(report: str) -> None:
    snapshot = snapshot_session([user("Fix the deploy."), assistant(report), user("ok")])

    assert snapshot.done == (report.rstrip("。."),)


@pytest.mark.parametrize(
    ("ask", "report", "done"),
    [
        ("bump the liveness delay to 30s.", "Done.", "Done — bump the liveness delay to 30s."),
        ("liveness 的 delay 调到 30s 试试。", "改好了：", "改好了 — liveness 的 delay 调到 30s 试试。"),
        ("don't add moment. Format dates with date-fns.", "tsc is clean and the table tests pass.",
         "tsc is clean and the table tests pass — don't add moment. Format dates with date-fns."),
        ("日期统一用 dayjs 格式化。", "测试全部通过。", "测试全部通过 — 日期统一用 dayjs 格式化。"),
        # found on the fresh halves: "已补上" was no report at all, and the session had nothing done
        ("schema.yml 里的 description 补一句。", "已补上。", "已补上 — schema.yml 里的 description 补一句。"),
        ("两个 partial 挪到 partials/ 下。", "都挪好了。", "都挪好了 — 两个 partial 挪到 partials/ 下。"),
    ],
)  # fmt: skip
def test_report_that_names_nothing_takes_the_ask_it_answers(ask: str, report: str, done: str) -> None:
    snapshot = snapshot_session([user("Fix the probes."), assistant("Looking."), user(ask), assistant(report)])

    assert done in snapshot.done


def test_report_that_names_what_it_did_keeps_its_own_words() -> None:
    turns = [user("Fix the probes."), assistant("Looking."), user("bump it to 30s."), assistant("Done, delay is 30s.")]

    assert snapshot_session(turns).done == ("Done, delay is 30s",)


@pytest.mark.parametrize(
    ("report", "marker", "done"),
    [
        ("Moved the timestamp to the server component.", "replace: /app/checkout/OrderSummary.tsx",
         "Moved the timestamp to the server component (OrderSummary.tsx)"),
        ("开头加了 `set -euo pipefail`，已修。", "apply_patch: scripts/switch-kubeconfig.sh",
         "开头加了 `set -euo pipefail`，已修 (switch-kubeconfig.sh)"),
        ("Fixed the import in `cli.py`.", "Edit: /repo/shipmate/cli.py", "Fixed the import in `cli.py`"),
    ],
)  # fmt: skip
def test_done_report_names_the_file_its_tools_changed_when_it_names_none(report: str, marker: str, done: str) -> None:
    snapshot = snapshot_session([user("Fix it."), assistant(report), tool(marker), user("ok")])

    assert snapshot.done == (done,)


@pytest.mark.parametrize(
    "announcement",
    [
        "I'll add `lumen/gradcache.py` with a `gradcache_step()` and call it from train.py.",
        "Yes — I'm capturing the CUDA RNG state per chunk and restoring it for the re-forward.",
        "我在 livenessProbe 下面加一个 readinessProbe，参数都从 values 里取。",
    ],
)
def test_change_an_agent_announces_is_done_when_its_tools_make_it(announcement: str) -> None:
    edited = snapshot_session([user("Add it."), assistant(announcement), tool("Edit: src/app.py"), user("ok")])
    read_only = snapshot_session([user("Add it."), assistant(announcement), tool("Read: src/app.py"), user("ok")])

    assert any(announcement.rstrip("。.")[:20] in item for item in edited.done)
    assert read_only.done == ()


def test_reply_that_is_only_a_diff_is_done() -> None:
    diff = '```diff\n--- a/config.go\n+++ b/config.go\n-\tdir = "~/Hikes"\n+\tdir = "~/Dropbox/hikes"\n```'
    turns = [user("预设目录改成 ~/Dropbox/hikes。"), assistant(diff), tool("replace: internal/config.go"), user("ok")]

    assert snapshot_session(turns).done == ('Changed config.go: dir = "~/Dropbox/hikes"',)


def test_a_changed_line_that_ends_a_statement_is_shown_without_its_semicolon() -> None:
    """Read in a tuning half's context: "Changed: return `…`;; Pushed HEAD" joined two items with two marks."""
    diff = "```diff\n-  return raw;\n+  return `## ${cap(w.label)} shift`;\n```"
    turns = [user("Show the shift window."), assistant(diff), tool("replace: src/summary.ts"), user("ok")]
    assert snapshot_session(turns).done == ("Changed: return `## ${cap(w.label)} shift`",)


@pytest.mark.parametrize("checks", ["测试 14/14 通过。", "All 14 tests pass."])
def test_a_diff_with_no_file_header_and_the_checks_after_it_is_done(checks: str) -> None:
    """Found on the fresh halves: a ```diff without +++ lines and "测试 14/14 通过" left the change unsaid."""
    diff = (
        "```diff\n-        let plan = solver::solve(&depots, &req.stops)?;\n"
        "+        let stops = req.stops.clone();\n"
        "+        let plan = tokio::task::spawn_blocking(move || solver::solve(&depots, &stops))\n"
        "+            .await?;\n```\n" + checks
    )
    turns = [user("ok 这次先包一下，别阻塞 worker。"), assistant(diff), user("ok")]
    assert any("spawn_blocking" in item for item in snapshot_session(turns).done), snapshot_session(turns).done


@pytest.mark.parametrize(
    ("marker", "done"),
    [
        ('shell: git checkout -b feat/deploy && git add -A && git commit -m "ci: deploy on tags"',
         ("Committed on feat/deploy: ci: deploy on tags",)),
        ('Bash: git commit -am "docs: move the changelog" && git tag v0.4.0 && git tag --list',
         ("Committed: docs: move the changelog", "Tagged v0.4.0")),
        # one call, two commits: both are work done, though their messages differ only in the scope
        ("shell: git add live/stg && git commit -qm 'feat(stg): eks 1.30' && git add live/prod && "
         "git commit -qm 'feat(prod): eks 1.30'",
         ("Committed: feat(stg): eks 1.30", "Committed: feat(prod): eks 1.30")),
    ],
)  # fmt: skip
def test_commit_names_the_branch_it_started_and_a_version_tag_is_done(marker: str, done: tuple[str, ...]) -> None:
    assert set(snapshot_session([user("Commit it."), tool(marker)]).done) == set(done)


def test_check_reports_give_way_first_when_there_are_too_many_done_items() -> None:
    reports = [
        "Added `reader.py` for the CSV input.",
        "Wrote a parser that keeps quoted commas.",
        "Removed the old cleaner module.",
        "Switched the splitter to sentence boundaries.",
        "Updated `embed.py` to batch 64 texts.",
        "Created the writer with atomic renames.",
        "Moved the settings into `config.toml`.",
        "Renamed the cli entry point to `ingest`.",
        "All 12 tests pass.",
    ]
    turns = [user("Build the pipeline.")] + [turn for report in reports for turn in (assistant(report), user("ok"))]

    done = snapshot_session(turns).done

    assert len(done) == 8 and "All 12 tests pass" not in done


@pytest.mark.parametrize(
    ("last", "step"),
    [
        ("thanks, that's it for today.", "I'll apply it tonight"),
        ("thanks. if the webhook turns out slow we might bump the timeout, but let's see.", "I'll apply it tonight"),
        ("好了，两个 pod 都 1/1 Running 了，发布时也没 502 了。谢谢，先这样。", None),
        ("thanks, the pods are all running now and the 502s are gone.", None),
        ("好的谢谢，先撤了", "I'll apply it tonight"),
        ("ok thanks, I'm off.", "I'll apply it tonight"),
    ],
)
def test_news_after_the_thanks_opens_an_exchange_with_no_step_agreed(last: str, step: str | None) -> None:
    turns = [
        user("Add cert-manager."),
        assistant("Here is the command:\n\n```\nkubectl apply -f issuer.yaml\n```"),
        user("fine. I'll apply it tonight after traffic drops."),
        assistant("OK."),
        user(last),
    ]

    steps = snapshot_session(turns).next_steps

    assert any(step in item for item in steps) if step else steps == ()


@pytest.mark.parametrize(
    ("offer", "answer", "step"),
    [
        ("Tagged `v0.4.0` locally. Want me to push the tag?", "no, I'll push it.", "no, I'll push it (push the tag)"),
        ("已推送并创建 MR !47。", "👌 reviewer 填 Sam。don't merge yet，等他周五 sync 的时候看。",
         "👌 reviewer 填 Sam — don't merge yet，等他周五 sync 的时候看"),
        ("6 of 7 pass, `test_watch_rollout` fails.",
         "that one's flaky upstream. skip it for now with a reason, I'll open an issue.",
         "that one's flaky upstream — skip it for now with a reason, I'll open an issue"),
        # found in a tuning half: how someone feels is nothing a pronoun points back to
        ("Dry run: 6,842 uploads, 0 key collisions.",
         "我媽看到這些一定很開心。OK: I'll run it for real Saturday morning, with --limit 500 first.",
         "OK: I'll run it for real Saturday morning, with --limit 500 first"),
        ("Fixed the font scaling.", "nice, 謝啦. I'll check it in the simulator with my mom's font size.",
         "I'll check it in the simulator with my mom's font size"),
    ],
)  # fmt: skip
def test_next_step_named_by_a_pronoun_says_what_it_points_to(offer: str, answer: str, step: str) -> None:
    snapshot = snapshot_session([user("Cut the release."), assistant(offer), user(answer)])

    assert snapshot.next_steps == (step,)


@pytest.mark.parametrize("closing", ["好的，有需要再叫我。", "Done. Ping me if anything else comes up."])
def test_the_agents_closing_pleasantry_is_no_next_step(closing: str) -> None:
    snapshot = snapshot_session([user("Fix the flaky test."), assistant(f"Fixed the race in the fixture. {closing}")])

    assert snapshot.next_steps == ()


def test_pronoun_that_points_inside_its_own_sentence_is_left_alone() -> None:
    rule = "the exception to the migration rule: if it's still on an unmerged branch, just edit it, no new file"
    turns = [user("Fix the migration."), assistant("Added 0012."), user(f"no need for 0012. {rule}.")]

    assert rule in snapshot_session(turns).decisions


@pytest.mark.parametrize(
    ("last", "held"),
    [
        ("nice. don't merge yet, wait for Sam to look at staging.", "don't merge yet, wait for Sam to look at staging"),
        ("这个 PR 先别合，等老唐把 ES 数据迁完。", "这个 PR 先别合，等老唐把 ES 数据迁完"),
        ("commit 吧。先别推。", "先别推"),
    ],
)
def test_step_the_person_holds_back_is_a_decision_too(last: str, held: str) -> None:
    snapshot = snapshot_session([user("Add the orders page."), assistant("Added `/admin/orders`."), user(last)])

    assert held.casefold() in (item.casefold() for item in snapshot.decisions)


@pytest.mark.parametrize(
    "said",
    [
        "CIDR 白名单那块 this time just hardcode it 成 10.20.0.0/16",
        "helm 调用的 timeout 这次先写死 10 秒，配置项下个 PR 再加",
        "liveness 的 initialDelaySeconds 调到 30s 看看",
        "The old webhook build is 9c41e07ab3f2",
        "這個專案的 integration test 直接打 docker 裡的 test DB（lanhua_test）",
        "Mock the webhook in that test — respx is already in the dev deps",
        "config 很简单，自己 parse 就好",
        "push the branch, I'll open the PR myself",
        "For the record: the release bar is nDCG@10 ≥ 0.62 on hx-query-2k",
    ],
)
def test_choice_for_now_a_rule_of_this_project_or_a_value_set_is_a_decision(said: str) -> None:
    turns = [user("Set up the bucket."), assistant("Added the bucket module."), user(said), assistant("OK.")]

    # "For the record:" is about the telling, and goes
    assert said.replace("For the record: the", "The") in snapshot_session(turns).decisions


@pytest.mark.parametrize(
    ("said", "key", "decided"),
    [
        ("if you're not sure just say so, don't guess — I'd rather hear 'not sure' than a wrong answer", "guess", True),
        ("if we ever go multi-region，这个 module 得拆开，先在 module 里记个 TODO 注释就行", "TODO", True),
        ("if it still blows up maybe we try 5e-5, but let's see", "5e-5", False),
        ("要是以后上多区域，可能得拆 bucket", "拆", False),
    ],
)
def test_what_if_is_a_decision_only_when_what_follows_it_directs(said: str, key: str, decided: bool) -> None:
    turns = [user("Add the bucket."), assistant("Added it."), user(said), assistant("OK.")]

    assert any(key in decision for decision in snapshot_session(turns).decisions) is decided


@pytest.mark.parametrize(
    ("handed", "step", "shown"),
    [
        ("apply 命令留给你：\n\n```\nterraform -chdir=env/staging apply /tmp/stg.tfplan\n```", "apply 我晚点自己跑。",
         "apply 我晚点自己跑 (`terraform -chdir=env/staging apply /tmp/stg.tfplan`)"),
        ("Run this after the CRDs:\n\n```bash\n$ kubectl apply -f issuer.yaml\n```\n\n```diff\n+apply: true\n```",
         "I'll apply it tonight.", "I'll apply it tonight (`kubectl apply -f issuer.yaml`)"),
    ],
)  # fmt: skip
def test_step_the_person_takes_carries_the_command_the_agent_handed_over(handed: str, step: str, shown: str) -> None:
    snapshot = snapshot_session([user("Add the bucket."), assistant(handed), user(step)])

    assert snapshot.next_steps == (shown,)


@pytest.mark.parametrize(
    ("plan", "answer", "decided"),
    [
        ("I'll print the history table and call `typer.confirm()` when env is prod.",
         "Go. Detect prod from the `--env` flag we already pass.", "Detect prod from the `--env` flag we already pass"),
        ("我打算在 run_helm 里加一个超时。", "行。超时从配置文件里读。", "超时从配置文件里读"),
    ],
)  # fmt: skip
def test_what_follows_a_bare_yes_to_the_agents_plan_is_a_decision(plan: str, answer: str, decided: str) -> None:
    snapshot = snapshot_session([user("Add the prompt."), assistant(plan), user(answer)])

    assert decided in snapshot.decisions


def test_instruction_after_a_bare_yes_to_no_plan_is_no_decision() -> None:
    turns = [user("Add the prompt."), assistant("Added the prompt."), user("ok. add a golden for qixing too.")]

    assert snapshot_session(turns).decisions == ()


def test_sentence_with_two_decided_clauses_is_one_decision() -> None:
    said = "Plan 用 staging workspace；no, don't touch the prod workspace for this one"
    turns = [user("Add the bucket."), assistant("Added it."), user(said), assistant("OK.")]

    assert snapshot_session(turns).decisions == (said,)


def test_opening_that_changes_the_plan_is_a_decision_as_well_as_the_goal() -> None:
    ask = "change of plans for `trailmark export`: default format is json now, markdown only with `--format md`."

    snapshot = snapshot_session([user(ask)])

    assert snapshot.goal == ask
    assert any("default format is json" in item for item in snapshot.decisions)


def test_persons_disagreement_is_a_decision_with_what_it_disagrees_with() -> None:
    said = "陈屹还是觉得应该直接上 Triton，说 dynamic batching 它自带。我不同意，先记下他的观点。"
    turns = [user("看看瓶颈。"), assistant("已改。"), user(said), assistant("记下了。")]

    assert any("Triton" in item and "不同意" in item for item in snapshot_session(turns).decisions)


LONG_ASKS = [
    "Please refactor the ingestion pipeline so that every extractor reports its progress through one callback, "
    "handles cancellation cleanly when the user closes the window, retries transient network failures with "
    "exponential backoff capped at thirty seconds, and writes every retry to the log with the file it was reading.",
    "请把导入流程重构一下，让每个解析器都通过同一个回调汇报进度，用户关闭窗口的时候能干净地取消正在进行的任务，"
    "遇到临时的网络错误时按指数退避重试，最长等待三十秒，所有的重试都要写进日志，方便之后排查线上的问题，"
    "另外把旧的进度条组件删掉，换成新的状态栏显示，状态栏上要能看到每个文件的名字、大小、已经处理的行数和预计剩余时间，"
    "顺便把相关的单元测试和集成测试都补齐，所有的新代码都要有类型标注，别忘了更新使用文档和变更日志里的说明，"
    "最后在测试环境里用上周那批真实的导出文件完整跑一遍，把每个阶段的耗时和内存峰值记下来发给我，"
    "如果有哪个阶段比现在慢了百分之十以上，先别合并，把原因和对比数据一起写在合并请求的描述里。",
]


@pytest.mark.parametrize("ask", LONG_ASKS)
def test_long_goal_is_shortened_at_a_boundary_with_an_ellipsis(ask: str) -> None:
    goal = snapshot_session([user(ask)]).goal

    assert len(goal) <= GOAL_CHARS and goal.endswith("…")
    kept = goal[:-1].rstrip()
    spoken = ask.removeprefix("Please ").removeprefix("请")
    assert spoken.lower().startswith(kept.lower()) and len(kept) >= 60
    after = spoken[len(kept)]
    assert not (kept[-1].isalnum() and after.isalnum()) or not kept[-1].isascii()  # never inside a Latin word
    if not kept[-1].isascii():  # CJK: cut at a mark, a particle or a change of script
        assert kept[-1] in "，、的了和与或在是把给让被将就也都及并从向对" or after in "，、。" or kept[-1].isspace()


def test_goal_keeps_the_ask_when_an_introduction_leaves_no_room() -> None:
    ask = (
        "Morning. Context: lumen-serve is the Rust inference service for the lumen embedding model, axum and ort "
        "on CUDA. We're keeping our own Rust service, no Triton, I've been through that debate already. "
        "Today: add dynamic batching to the /embed handler, right now every request does its own session.run()."
    )
    goal = snapshot_session([user(ask)]).goal

    assert "Today: add dynamic batching to the /embed handler" in goal and len(goal) <= GOAL_CHARS
    assert not goal.startswith("Morning")


def live_messages(items: list[SessionItem]) -> list[SessionMessage]:
    """What the store keeps: a later item with the same id replaces it; a rewind drops the tail."""
    kept: dict[str, SessionMessage] = {}
    for item in items:
        if isinstance(item, SessionMessage):
            kept[item.message_id] = item
        elif isinstance(item, Rewind):
            order = list(kept)
            cut = order.index(item.to_message_id) if item.to_message_id in kept else 0
            for message_id in order[cut:]:
                del kept[message_id]
    return list(kept.values())


def parse_real(path: Path) -> list[SessionMessage]:
    if path.suffix == ".json":
        return parse_gemini_json(path.read_bytes())
    parser: SessionParser
    if "claude" in path.parts:
        parser = ClaudeParser.for_path(path)
    elif "codex" in path.parts:
        parser = CodexParser.for_path(path)
    else:
        parser = GeminiParser()
    items: list[SessionItem] = []
    offset = 0
    for line in path.read_bytes().split(b"\n"):
        items += parser.feed(line, offset=offset)
        offset += len(line) + 1
    return live_messages(items + list(parser.flush()))


def real_snapshot(path: Path) -> SessionSnapshot:
    return snapshot_session([Turn(m.role, m.text) for m in parse_real(path)])


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_real_transcript_snapshot_is_sensible(path: Path) -> None:
    messages = parse_real(path)
    snapshot = real_snapshot(path)

    if messages:
        assert 0 < len(snapshot.index_line) <= 80 and "\n" not in snapshot.index_line
    rendered = snapshot.render()
    assert "<system-reminder" not in rendered and "```" not in rendered
    outputs = [m.text for m in messages if m.role == "tool"]
    for item in (*snapshot.done, *snapshot.decisions, *snapshot.next_steps):
        assert len(item) <= 160 and "\n" not in item
        assert not any(item in output for output in outputs), f"{item!r} came from a tool marker"
    for name in snapshot.files:
        assert PATH_LIKE.fullmatch(name), name
        assert "://" not in name and not name.startswith("/tmp/")


def test_real_claude_transcript_snapshot_names_the_created_file() -> None:
    snapshot = real_snapshot(FIXTURES / "claude" / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")

    assert snapshot.index_line.startswith("Analyze the codebase and create a CLAUDE.md file")
    assert snapshot.done == ("I've created a basic CLAUDE.md file for this empty repository",)
    assert snapshot.files == ("CLAUDE.md",)


def test_real_codex_transcript_state_lists_changes_and_leaves_the_unanswered_offer_out() -> None:
    snapshot = real_snapshot(FIXTURES / "codex" / "codex.jsonl")

    assert snapshot.index_line.startswith("檢查一下 go.mod")
    # the whole ask fits the goal (GOAL_CHARS), to its last step
    assert snapshot.goal.startswith("檢查一下 go.mod 裡面 為何 go版本是 1.24?")
    assert snapshot.goal.endswith("TODO.md 刪除")
    assert any(item.startswith("Updated Go version") for item in snapshot.done)
    assert "Deleted: TODO.md" in snapshot.done
    assert any("統一成 1.24" in item for item in snapshot.decisions)
    assert snapshot.next_steps == ()  # the closing "Want me to also scrub …?" was never answered
    assert {"go.mod", ".python-version", "README.zh-TW.md", "README.zh-CN.md", "TODO.md"} <= set(snapshot.files)
    assert "Next: Next" not in snapshot.render()


def test_real_claude_transcript_state_reads_the_same_through_its_stored_form() -> None:
    snapshot = real_snapshot(FIXTURES / "claude" / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")

    parts = snapshot_from_json(snapshot_json(snapshot.parts()))
    assert (parts.goal, parts.done, parts.decisions, parts.next_steps, parts.files) == (
        snapshot.goal,
        snapshot.done,
        snapshot.decisions,
        snapshot.next_steps,
        snapshot.files,
    )
    assert parts.goal.startswith("Analyze the codebase and create a CLAUDE.md file")
    assert parts.decisions == ()  # the agent worked alone: nobody decided anything


def test_real_gemini_transcript_snapshot_reports_chinese_progress() -> None:
    snapshot = real_snapshot(FIXTURES / "gemini" / "test_conversation_gemini.json")

    assert snapshot.index_line.startswith("依照專案實際狀況更新 README.md")
    assert any("移除了開發者專用的建置流程" in item for item in snapshot.done)
    assert snapshot.files[0] == "CONTRIBUTING.md"


FEATURES = ["csv export", "json import", "retry policy", "rate limiter", "audit log", "dark mode", "search index"]


def long_session(rounds: int) -> list[Turn]:
    """A day-long session: each round a new request, a read, an edit and a report."""
    turns: list[Turn] = []
    for n in range(rounds):
        feature = FEATURES[n % len(FEATURES)]
        path = f"src/{feature.replace(' ', '_')}/tenant_{n}.py"
        turns += [
            user(f"Please add {feature} for tenant {n}; 其实也要支持 CSV 格式，之后再加 JSON。"),
            assistant(f"Next, I'll read `{path}` and its tests.\n\n```python\nx = {n}\n```"),
            tool(f"Read: /home/me/proj/{path}"),
            tool(f"Edit: /home/me/proj/{path}"),
            assistant(
                f"I've added {feature} for tenant {n} in `{path}`. 已经修复了第 {n} 个租户的问题。\n\n"
                f"- Decided to keep the {feature} writer streaming instead of buffering.\n"
                f"- TODO: still need to document {feature} for tenant {n}.\n\n"
                + "The exporter writes rows one at a time, so memory stays flat for large tables. "
                * 8
            ),
        ]
    return turns


def quiet_session(rounds: int) -> list[Turn]:
    """A session with no cue at all, so every turn is read to the start."""
    turns: list[Turn] = []
    for n in range(rounds):
        turns += [
            user(f"How does the exporter handle table {n}?"),
            tool(f"Read: /home/me/proj/src/export/table_{n}.py"),
            assistant("The exporter writes rows one at a time, so memory stays flat for large tables. " * 8),
            tool(f"Grep: table_{n} in /home/me/proj/src"),
        ]
    return turns


def test_a_long_working_session_ends_with_its_latest_state() -> None:
    turns = long_session(400)  # its time is measured by benchmarks/snapshot.py, not here
    assert len(turns) == 2000

    snapshot = snapshot_session(turns)

    assert snapshot.done[-1] == "已经修复了第 399 个租户的问题"
    assert snapshot.next_steps[-1] == "still need to document csv export for tenant 399"  # its "TODO:" is the label
    assert snapshot.files[0] == "src/csv_export/tenant_399.py"


def test_a_long_session_without_any_cue_has_no_items() -> None:
    turns = quiet_session(500)
    assert len(turns) == 2000

    snapshot = snapshot_session(turns)

    assert (snapshot.done, snapshot.decisions, snapshot.next_steps) == ((), (), ())
    assert snapshot.index_line == "How does the exporter handle table 0?"


ROLES = st.sampled_from(["user", "assistant", "tool", "system"])
FRAGMENTS = st.sampled_from(
    [
        "I've fixed ", "TODO: ", "next ", "let's use ", "决定改用", "已经完成", "还需要", "继续", "/init", "```",
        "\n", "\n- ", "\n  - ", "- [ ] ", "## Next steps\n", ":", "。", ". ", "?", "src/app.py", "Edit: ",
        "Bash: git commit -m \"x\"", "`a.md`", "**", "<system-reminder>", "</system-reminder>", " ", "\t", "😀",
        "\ud800", "e\u0301", "a" * 300, "长" * 300, "https://x.y/z.py", "../x.py", "//a.py", "....py",
    ]
)  # fmt: skip
TEXTS = st.one_of(st.text(max_size=300), st.lists(FRAGMENTS, max_size=30).map("".join))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.builds(Turn, ROLES, TEXTS), max_size=30))
@example([Turn("user", "A。:")])  # a lone colon after a sentence used to become an empty sentence
def test_snapshot_never_raises_and_keeps_every_limit(turns: list[Turn]) -> None:
    snapshot = snapshot_session(turns)

    assert len(snapshot.index_line) <= 80 and len(snapshot.goal) <= GOAL_CHARS
    assert not any(c in snapshot.index_line for c in "\n\r")
    assert len(snapshot.done) <= 6 and len(snapshot.decisions) <= 8 and len(snapshot.next_steps) <= 6
    for items in (snapshot.done, snapshot.decisions, snapshot.next_steps):
        assert all(0 < len(item) <= 160 and "\n" not in item for item in items)
    assert len(snapshot.files) <= 12 and len(set(snapshot.files)) == len(snapshot.files)
    assert all(name and "\n" not in name for name in snapshot.files)
    if not any(turn.role in ("user", "assistant") for turn in turns):
        assert snapshot.index_line == "" and snapshot.goal == ""
    snapshot.render()


@pytest.mark.parametrize(
    ("opening", "wanted"),
    [
        (
            "Morning! Quick intro since it's the first time you're in this repo. I'm Yifan, data engineer here. "
            "Answer in whatever language I write in. Today: fct_orders has duplicate order_ids since Friday's run. "
            "Can you find out why?",
            ("duplicate order_ids", "find out why"),
        ),
        (
            "New repo for you: this is pulse-ingest, a Python service that writes Parquet to S3. Dependencies are "
            "managed with poetry, so poetry add / poetry run, not pip. Athena queries are crawling. "
            "I want proper flushing — buffer and write bigger files.",
            ("proper flushing",),
        ),
        (
            "晚上好。先说一下，以后回复都用中文。问题：fct_orders 的 merge 每次都全表扫描，跑了四十分钟。"
            "帮我看看为什么。",
            ("全表扫描", "为什么"),
        ),
    ],
)
def test_the_goal_is_the_ask_not_the_introduction_or_the_rules_said_on_the_way(
    opening: str, wanted: tuple[str, ...]
) -> None:
    goal = snapshot_session([user(opening), assistant("On it.")]).goal

    assert all(part in goal for part in wanted), goal


@pytest.mark.parametrize(
    ("report", "marker", "named"),
    [
        ("Committed on `yz/DATA-440-dlq` as `feat(consumer): send bad messages to the dlq` and opened PR #61.",
         "Bash: git checkout -qb yz/DATA-440-dlq && git commit -qm 'feat(consumer): send bad messages to the dlq'",
         "#61"),
        ("sqlfluff 通过。已提交并开 PR #279：`perf(fct_orders): limit merge scan to the last 7 days`。",
         "Bash: git checkout -b perf/merge-scan && git commit -qam 'perf(fct_orders): limit merge scan to the last "
         "7 days' && git push -qu origin perf/merge-scan",
         "#279"),
    ],
)  # fmt: skip
def test_of_two_near_duplicate_reports_the_one_naming_more_stays(report: str, marker: str, named: str) -> None:
    done = snapshot_session([user("Commit it and open a PR."), assistant(report), tool(marker), user("ok")]).done

    assert any(named in item for item in done)
    assert not any(item.startswith("Committed: ") for item in done)  # the tool's bare line gave way


def test_commit_started_with_quiet_flags_names_its_branch_and_a_cut_message_keeps_what_is_left() -> None:
    marker = "shell: git checkout -qb flush-buffer && git add -A && git commit -qm 'feat(consumer): flush at 50 …"

    done = snapshot_session([user("Commit it."), tool(marker)]).done

    assert done == ("Committed on flush-buffer: feat(consumer): flush at 50…",)


@pytest.mark.parametrize(
    ("ask", "report", "wanted", "unwanted"),
    [
        ("14 分钟……dev 的 warehouse 以后都换成 TRANSFORM_WH_M 吧，S 跑太慢了。profiles.yml 你直接改就行。",
         "改了 `~/.dbt/profiles.yml` 的 dev warehouse，重跑：3 分 58 秒，测试都过。",
         "dev warehouse → TRANSFORM_WH_M", None),
        ("Switch the dev warehouse to TRANSFORM_WH_M, not TRANSFORM_WH_XS.",
         "Changed the warehouse in the dev profile.", "dev profile → TRANSFORM_WH_M", "TRANSFORM_WH_XS"),
        ("settings.py is wrong there: the bucket is fk-lake-raw in eu-central-1, not eu-west-1.",
         "Fixed the defaults.", "fk-lake-raw", None),
        ("默认 bucket 改成 fk-lake-raw，region 用 eu-central-1。", "已修正默认配置。", "fk-lake-raw", None),
        ("incremental_predicates 可以，目标表只扫最近 7 天就够了。加完在 dev 上跑一下看看多久。",
         "加好了，dev 上跑通了，但用了 14 分钟，3 个测试都过。", "incremental_predicates", None),
    ],
)  # fmt: skip
def test_report_that_leaves_out_the_value_it_was_asked_for_takes_it_from_the_ask(
    ask: str, report: str, wanted: str, unwanted: str | None
) -> None:
    turns = [user("Fix the build."), assistant("Looking."), user(ask), assistant(report), user("ok")]

    done = snapshot_session(turns).done

    assert any(wanted in item for item in done), done
    assert unwanted is None or not any(unwanted in item for item in done)


def test_report_that_names_its_own_change_does_not_take_the_ask() -> None:
    turns = [user("Fix the build."), assistant("Looking."), user("go with ubuntu-latest, we don't mock the db."),
             assistant("CI now runs on ubuntu-latest."), user("ok")]  # fmt: skip

    assert snapshot_session(turns).done == ("CI now runs on ubuntu-latest",)


@pytest.mark.parametrize(
    ("reply", "wanted"),
    [
        ("You're right, I hadn't. sqlfluff flagged my `QUALIFY ... OVER` and a missing space; fixed both, lint passes.",
         "sqlfluff flagged my `QUALIFY ... OVER` and a missing space — fixed both"),
        ("flake8 报了两处没用到的 import；两个都修好了，测试也过了。", "flake8 报了两处没用到的 import — 两个都修好了"),
    ],
)  # fmt: skip
def test_report_of_fixing_both_says_what_both_were(reply: str, wanted: str) -> None:
    done = snapshot_session([user("Lint it."), assistant(reply), user("ok")]).done

    assert any(item.startswith(wanted) for item in done), done


@pytest.mark.parametrize(
    "report",
    [
        "已 squash merge #279。",
        "注释改成英文了。",
        "dev 上 full refresh 6 分 42 秒，之后跑一次普通增量只要 38 秒。",
        "Two commits on `flush-buffer`, pushed.",
        "The dry run was clean.",
        "Model built in 4m 46s on the small warehouse.",
    ],
)
def test_report_in_still_more_forms_of_english_and_chinese_is_done(report: str) -> None:
    snapshot = snapshot_session([user("Run it."), assistant(report), user("ok")])

    assert snapshot.done == (report.rstrip("。."),)


@pytest.mark.parametrize(
    ("question", "reply", "decided"),
    [
        ("How many days should the lookback be?", "3-day lookback is fine, payment updates land within 48h.",
         "3-day lookback is fine, payment updates land within 48h"),
        ("Plan: flush at 128 MB or 60 s. Do those thresholds work for you?",
         "Flush at 50,000 records or 60 seconds, whichever comes first.",
         "Flush at 50,000 records or 60 seconds, whichever comes first"),
        ("要加 incremental_predicates 吗？N 用多少？", "可以，目标表只扫最近 7 天就够了。加完跑一下。",
         "可以，目标表只扫最近 7 天就够了"),
        ("cluster_by 变了要重建表，dev 上跑一次 `--full-refresh`，可以吗？", "dev 上可以跑。", "dev 上可以跑"),
    ],
)  # fmt: skip
def test_answer_to_the_agents_question_that_takes_or_names_a_choice_is_a_decision(
    question: str, reply: str, decided: str
) -> None:
    snapshot = snapshot_session([user("Fix the model."), assistant(question), user(reply), assistant("OK.")])

    assert decided in snapshot.decisions


@pytest.mark.parametrize("reply", ["CI is red again.", "CI 又挂了，还是那个超时。"])
def test_news_in_answer_to_the_agents_question_is_no_decision(reply: str) -> None:
    turns = [user("Add the webhook."), assistant("Which image tag should I pin?"), user(reply), assistant("Looking.")]

    assert snapshot_session(turns).decisions == ()


@pytest.mark.parametrize(
    ("plan", "reply"),
    [
        ("The test compares an aware timestamp to a naive one. I'll make the test fixture naive so they match.",
         "Other way round: use datetime.now(tz=UTC) in the code."),
        ("测试里比较的是带时区的时间。我把测试 fixture 改成不带时区的。", "反过来：代码里统一用 UTC 时间，测试别动。"),
    ],
)  # fmt: skip
def test_other_way_round_turns_the_plan_down_and_decides(plan: str, reply: str) -> None:
    turns = [user("Fix the test."), assistant(plan), tool("Edit: tests/test_dlq.py"), user(reply), assistant("Done.")]

    snapshot = snapshot_session(turns)

    assert not any("naive" in item or "不带时区" in item for item in snapshot.done)
    assert any("UTC" in item for item in snapshot.decisions)


@pytest.mark.parametrize(
    ("report", "reply", "kept"),
    [
        ("Committed as `feat(marts): add fct_rider_shifts`, pushed, and opened PR #287. "
         "Want me to merge it as soon as the checks are green?",
         "No — it touches marts, so wait for Priya's review before merging.", "PR #287"),
        ("已提交并创建 MR !47。要我等 CI 绿了直接合并吗？", "不用，等 Sam review 完我自己合。", "MR !47"),
    ],
)  # fmt: skip
def test_no_to_the_closing_offer_takes_back_neither_the_reports_before_it_nor_makes_the_offer_done(
    report: str, reply: str, kept: str
) -> None:
    done = snapshot_session([user("Commit and open the PR."), assistant(report), user(reply)]).done

    assert any(kept in item for item in done)
    assert not any(item.endswith(("?", "？")) or "merge it" in item or "直接合并" in item for item in done)


@pytest.mark.parametrize(
    "said",
    [
        "prod 那次 full refresh 我跟 Marta 约了周四晚上一起盯着做",
        "The prod backfill I'll do with Marta on Thursday night",
    ],
)
def test_step_the_person_puts_off_before_the_end_is_a_decision(said: str) -> None:
    turns = [user("Rebuild the table."), assistant("Done on dev."), user(f"{said}."), assistant("Noted."),
             user("Also bump the timeout to 30s."), assistant("Bumped it to 30s.")]  # fmt: skip

    snapshot = snapshot_session(turns)

    assert said in snapshot.decisions and not any(said in step for step in snapshot.next_steps)


@pytest.mark.parametrize(
    ("last", "step"),
    [
        ("不用，Airflow 那边我明早自己 clear task 重跑。今天就到这，谢谢～", "Airflow 那边我明早自己 clear task 重跑"),
        ("No, I'll rerun the task end of day myself. Thanks, that's all.", "I'll rerun the task end of day myself"),
    ],
)  # fmt: skip
def test_step_put_off_to_tomorrow_morning_or_end_of_day_is_the_next_step(last: str, step: str) -> None:
    turns = [user("Fix the merge."), assistant("Merged. Want me to clear the Airflow task now?"), user(last)]

    assert any(step in item for item in snapshot_session(turns).next_steps)


@pytest.mark.parametrize(
    "said",
    [
        "mypy --strict covers scripts/ too, not just the package",
        "Make --dry-run the default; actually writing needs an explicit --apply",
        "Also bump replicas from 6 to 8 in values-prod.yaml",
        "The replica bump goes in its own PR, one thing per PR",
        "DLQ topics are named <topic>.dlq",
        "Subscribe to rider.location.v2 and order.status.v1 only",
        "So: merge, unique_key order_id, 3-day lookback",
        "副本数从 6 调到 8",
        "replica 的改动单独开一个 PR",
        "DLQ topic 按 <topic>.dlq 命名",
        "所以：merge，unique_key 用 order_id，回看 3 天",
    ],
)
def test_scope_default_value_change_split_naming_and_recap_are_decisions(said: str) -> None:
    turns = [user("Set up the consumer."), assistant("Added the consumer."), user(said), assistant("OK.")]

    assert said in snapshot_session(turns).decisions


@pytest.mark.parametrize(
    ("said", "instead"),
    [
        ("Don't write credentials into files, ever. Locally they come from 1Password: op run --env-file=.env.tpl.",
         "1Password"),
        ("别把密钥写进文件。本地一律从 1Password 读，用 op run 跑测试。", "1Password"),
    ],
)  # fmt: skip
def test_sentence_after_a_prohibition_says_what_to_do_instead_and_is_a_decision(said: str, instead: str) -> None:
    turns = [user("Add the integration test."), assistant("Added it."), user(said), assistant("OK.")]

    assert any(instead in item for item in snapshot_session(turns).decisions)


@pytest.mark.parametrize(
    "opening",
    [
        "Quick intro since it's the first time you're in this repo. Code and commit messages are always in English. "
        "Today: fct_orders has duplicate order_ids since Friday's run. Can you find out why?",
        "先自我介绍一下，我是嘉禾，这个 repo 是 lumen-train。代码注释一律写英文。今天：v2 的训练配置理一遍。",
    ],
)
def test_introduction_and_ask_caption_of_the_opening_are_no_decisions(opening: str) -> None:
    decisions = snapshot_session([user(opening), assistant("Looking.")]).decisions

    assert decisions and not any(item.startswith(("Quick intro", "Today", "先自我介绍", "今天")) for item in decisions)
    assert any("English" in item or "英文" in item for item in decisions)


@pytest.mark.parametrize(
    ("report", "reply"),
    [
        ("Set the port to 9090. Want me to restart the server?", "No, that's wrong, the port is 8080."),
        ("端口改成 9090 了。要我重启服务吗？", "不对，9090 是错的，端口是 8080。"),
    ],
)
def test_reply_that_calls_the_report_wrong_takes_it_back_though_the_turn_ends_with_a_question(
    report: str, reply: str
) -> None:
    done = snapshot_session([user("Set the port."), assistant(report), user(reply)]).done

    assert not any("9090" in item for item in done)


@pytest.mark.parametrize(
    ("report", "shown"),
    [
        ("好, PR #421。", "好, PR #421"),
        ("👍 Added the 11:26 row to the log.", "👍 Added the 11:26 row to the log"),
        ("addons.tf updated, three versions bumped.", "addons.tf updated, three versions bumped"),
        ("Rewritten as bullets, 68 → 41 lines.", "Rewritten as bullets, 68 → 41 lines"),
        ("I put `--platform linux/amd64` into `build.sh`.", "I put `--platform linux/amd64` into `build.sh`"),
        ("画好了：`figures/slides/selectivity.png`。", "画好了：`figures/slides/selectivity.png`"),
        ("那条 cache warning 我顺手跑了 `luaotfload-tool --update`，已经没了。",
         "那条 cache warning 我顺手跑了 `luaotfload-tool --update`，已经没了"),
    ],
)  # fmt: skip
def test_report_after_a_yes_of_a_subject_and_participle_or_of_more_verbs_is_done(report: str, shown: str) -> None:
    snapshot = snapshot_session([user("Run it."), assistant(report), user("ok")])

    assert snapshot.done == (shown,)


@pytest.mark.parametrize("report", ["Nothing committed.", "Not pushed.", "我还没跑。"])
def test_report_of_what_was_not_done_is_not_done(report: str) -> None:
    snapshot = snapshot_session([user("Run it."), assistant(report), user("ok")])

    assert snapshot.done == ()


@pytest.mark.parametrize("report", ["Both files → 1.9.8.", "Header now: prod Wed 31 Mar 10:00–12:00 SGT."])
def test_short_report_of_a_new_value_is_done_when_the_turns_tools_changed_it(report: str) -> None:
    edited = [user("Update it."), assistant(report), tool("Edit: /repo/atlantis.yaml"), user("ok")]
    unedited = [user("Update it."), assistant(report), user("ok")]

    assert snapshot_session(edited).done == (f"{report.rstrip('.')} (atlantis.yaml)",)
    assert snapshot_session(unedited).done == ()


@pytest.mark.parametrize(
    ("ask", "reply", "shown"),
    [
        ("然后 bump 一下版本到 3.8.0 build 212。", "改了：\n\n```\nMARKETING_VERSION = 3.8.0\n```\n\nInfo.plist 没动。",
         "改了 — bump 一下版本到 3.8.0 build 212。"),
        ("Then bump the version to 3.8.0.", "Changed:\n\n```diff\n-1.2.0\n+3.8.0\n```\n\nNothing else moved.",
         "Changed — Then bump the version to 3.8.0."),
    ],
)  # fmt: skip
def test_bare_report_over_the_code_it_changed_borrows_the_ask(ask: str, reply: str, shown: str) -> None:
    snapshot = snapshot_session([user("Fix the build."), assistant("Fixed."), user(ask), assistant(reply), user("ok")])

    assert shown in snapshot.done


@pytest.mark.parametrize(
    "said",
    [
        "Times in SGT please, not UTC.",
        "Figures go in figures/<chapter>/ as vector PDF, not PNG.",
        "While you're in there: no CPU limits on anything, only requests.",
        "No force unwraps in app code please, tests are fine.",
        "Read-only kubectl on prod is fine.",
        "pino-http 留着吧，requestId 要用它。",
        "codemod 算了，剩下的我手动一个个迁。",
        "技术词用英文没关系，句子简单一点。",
    ],
)
def test_value_over_another_no_rule_permission_and_keeping_or_dropping_are_decisions(said: str) -> None:
    snapshot = snapshot_session([user("Fix the chart."), assistant("Fixed the chart."), user(said), assistant("OK.")])

    assert snapshot.decisions == (said.rstrip("。."),)


@pytest.mark.parametrize("said", ["That is fine, thanks.", "Maybe it is fine after all.", "It works, not sure why."])
def test_ack_shrug_or_doubt_is_no_decision(said: str) -> None:
    snapshot = snapshot_session([user("Fix the chart."), assistant("Fixed the chart."), user(said), assistant("OK.")])

    assert snapshot.decisions == ()


@pytest.mark.parametrize("last", ["好. commit. 明天我请假, 周五回来", "ok, commit it. I'm off tomorrow, back Friday."])
def test_saying_when_the_person_is_away_is_no_next_step(last: str) -> None:
    snapshot = snapshot_session([user("Fix the test."), assistant("Fixed the test."), user(last), assistant("OK.")])

    assert snapshot.next_steps == ()


@pytest.mark.parametrize(
    "last",
    [
        "gpu3 上的 checkpoint 不要删，数据和结果文件一律不删，要清理就挪到 ~/trash/ 里，我自己定期清",
        "Never run terraform apply from here, always leave it to me, I'll apply it myself after review.",
    ],
)
def test_rule_for_every_time_that_names_who_does_it_is_a_decision_not_the_next_step(last: str) -> None:
    snapshot = snapshot_session([user("Fix the probe."), assistant("Fixed the probe."), user(last), assistant("OK.")])

    assert snapshot.next_steps == ()
    assert any(last.rstrip(".") in decided for decided in snapshot.decisions), snapshot.decisions


def test_step_whose_pronoun_points_inside_its_own_sentence_borrows_nothing() -> None:
    turns = [
        user("Fix the 502s."),
        assistant("Added the error handler. Want me to add a retry too?"),
        user("retry 这次先不加。core-api 是 Kevin 他们组的，502 的事我去问他"),
        assistant("OK."),
    ]

    assert snapshot_session(turns).next_steps == ("core-api 是 Kevin 他们组的，502 的事我去问他",)


@pytest.mark.parametrize(
    ("ask", "goal"),
    [
        ("staging 迁到新机器了，HostName 已经改了，但是 ssh 报这个\n\n"
         "IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\nSomeone could be eavesdropping on you right now!\n"
         "The fingerprint for the ED25519 key sent by the remote host is SHA256:q3JvT0m1.\n\n帮我看下咋回事",
         "staging 迁到新机器了，HostName 已经改了，但是 ssh 报这个，帮我看下咋回事"),
        ("Staging moved to a new box and ssh now prints this:\n\n"
         "It is also possible that a host key has just been changed.\nPlease contact your system administrator.\n\n"
         "Can you find out what is going on?",
         "Staging moved to a new box and ssh now prints this. Can you find out what is going on?"),
        ("CI is red:\n\n```\nError: Cannot connect to the Docker daemon\n```\n\nrunner-3 has no docker, can you check?",
         "CI is red (Error: Cannot connect to the Docker daemon), runner-3 has no docker, can you check?"),
    ],
)  # fmt: skip
def test_paragraph_a_sentence_points_to_is_a_paste_though_it_reads_as_prose(ask: str, goal: str) -> None:
    snapshot = snapshot_session([user(ask), assistant("Looking."), user("ok")])

    assert snapshot.goal == goal
    assert not any("system administrator" in decided or "fingerprint" in decided for decided in snapshot.decisions)


def test_paragraphs_of_a_chinese_ask_are_parted_by_a_comma() -> None:
    ask = "先从 plans 相关的接口开始\n\n现在 v1 打过去会带 deprecation 头"
    snapshot = snapshot_session([user(ask), assistant("OK.")])

    assert snapshot.goal == "先从 plans 相关的接口开始，现在 v1 打过去会带 deprecation 头"


@pytest.mark.parametrize(
    ("ask", "goal"),
    [
        ("Task: the 5-seed runs finished overnight on gpu3 and I've pulled them into results/ as mbert.jsonl and "
         "xlmr.jsonl, one run per line, with model, layer, seed, f1 and selectivity on each, and the control task "
         "runs in the same files under their own task field. I want a pandas table: mean ± std of F1 and "
         "selectivity per model × layer, and then whether mBERT and XLM-R differ at each layer.",
         "I want a pandas table: mean ± std of F1 and selectivity per model × layer, and then whether mBERT and XLM-R "
         "differ at each layer."),
        ("任务：5 个 seed 的结果昨晚在 gpu3 上都跑完了，我已经拉到 results/ 下面了，"
         "一共两个文件，mbert.jsonl 和 xlmr.jsonl，格式和之前一样，每行一个 run，"
         "字段有 model、layer、seed、f1、selectivity，另外还有 control task 的结果，"
         "放在同一个文件里，用 task 字段区分，control task 的 seed 和正式实验的一样，也是 0 到 4，"
         "每个 run 大概跑了四十分钟，日志在 logs/ 下面，有问题可以去那里看。帮我做一张 pandas 表：每个模型每层的 "
         "F1 和 selectivity 的均值和标准差，再看一下 mBERT 和 XLM-R 在每一层上有没有显著差异，用 paired bootstrap。",
         "帮我做一张 pandas 表：每个模型每层的 F1 和 selectivity 的均值和标准差，"
         "再看一下 mBERT 和 XLM-R 在每一层上有没有显著差异，用 paired bootstrap。"),
    ],
)  # fmt: skip
def test_ask_caption_over_news_gives_its_weight_to_the_ask_after_it(ask: str, goal: str) -> None:
    snapshot = snapshot_session([user(ask), assistant("OK."), user("thanks")])

    assert snapshot.goal.startswith(goal), snapshot.goal


@pytest.mark.parametrize(
    ("said", "closing", "step"),
    [
        ("别改 HeartRateSync，那块是阿杰的，我把 crash 和你这个 diff 转给他", "ok 今天就这些 谢",
         "别改 HeartRateSync，那块是阿杰的，我把 crash 和你这个 diff 转给他"),
        ("Leave the PDB alone, that's Marcus's team. I'll forward the drain log to him.",
         "ok, that's everything, thanks", "I'll forward the drain log to him"),
    ],
)  # fmt: skip
def test_step_the_person_takes_on_before_a_closing_thanks_is_the_next_step(said: str, closing: str, step: str) -> None:
    turns = [
        user("Fix the release dates."),
        assistant("Fixed the release dates. Want me to fix the crash too?"),
        user(said),
        assistant("OK, leaving it."),
        user(closing),
    ]

    assert snapshot_session(turns).next_steps == (step,)


@pytest.mark.parametrize(
    ("ask", "reply", "yes", "done", "step"),
    [
        ("get the 1.30 addon versions into addons.tf", "addons.tf updated, plan: 0 to add, 3 to change.", "ok",
         ("addons.tf updated, plan: 0 to add, 3 to change",), ()),
        ("把 1.30 的 addon 版本写进 addons.tf", "addons.tf 已更新，plan: 0 个新增，3 个变更。", "好",
         ("addons.tf 已更新，plan: 0 个新增，3 个变更",), ()),
        ("get the 1.30 addon versions into addons.tf", "Plan: bump vpc-cni first, then coredns.", "ok",
         (), ("Plan: bump vpc-cni first, then coredns",)),
        ("把 1.30 的 addon 版本写进 addons.tf", "方案：先升 vpc-cni，再升 coredns。", "好",
         (), ("方案：先升 vpc-cni，再升 coredns",)),
    ],
)  # fmt: skip
def test_plan_caption_after_a_report_names_a_result_not_a_proposal(
    ask: str, reply: str, yes: str, done: tuple[str, ...], step: tuple[str, ...]
) -> None:
    snapshot = snapshot_session([user(ask), assistant(reply), user(yes)])

    assert (snapshot.done, snapshot.next_steps) == (done, step)


@pytest.mark.parametrize(
    ("asked", "answer", "decided"),
    [
        ("Two ways to fix it:\n1. skip zero-width spans in `char_to_subword`;\n2. pin transformers back.\n\n"
         "I'd go with 1. Want me to change it?", "1 then.", "1 then — skip zero-width spans in `char_to_subword`"),
        ("两种修法：\n1. 在 `char_to_subword` 里跳过 zero-width span；\n2. 把 transformers pin 回旧版本。\n\n"
         "我建议 1。要我改吗？", "改 1 吧。", "改 1 吧 — 在 `char_to_subword` 里跳过 zero-width span"),
        ("Either (a) rename the font in thesis.cls or (b) switch the build to lualatex.", "(b) then.",
         "(b) then — switch the build to lualatex"),
        ("`pyproject.toml` sets line-length = 88. Change it to 100?", "Yes, 100.", "Yes, 100 — Change it to 100"),
        ("`pyproject.toml` 里 line-length 是 88，改成 100 可以吗？", "行，100。",
         "行，100 — `pyproject.toml` 里 line-length 是 88，改成 100"),
        ("lualatex 能编译，代价是慢一点：38 秒变成 71 秒。", "慢点没关系。", "慢点没关系"),
    ],
)  # fmt: skip
def test_short_answer_to_the_agent_decides_the_option_it_picks(asked: str, answer: str, decided: str) -> None:
    turns = [user("Fix the alignment bug."), assistant(asked), user(answer), assistant("OK."), user("thanks")]

    assert decided in snapshot_session(turns).decisions


@pytest.mark.parametrize("answer", ["不用。", "别。", "No.", "ok"])
def test_bare_refusal_or_yes_to_the_agent_is_no_decision_of_its_own(answer: str) -> None:
    turns = [user("Fix the alignment bug."), assistant("Fixed. Should I also pin transformers?"), user(answer)]

    assert answer.rstrip("。.") not in snapshot_session(turns).decisions


@pytest.mark.parametrize(
    "ask",
    [
        "Morning. Two things today.\n\n1) ruff: the lab moved every repo to line length 88 this week, mine too, so "
        "it is 88 from now on, not 100. Change it back in pyproject, then ruff format the whole repo.\n\n2) The "
        "bootstrap test: for the layer-wise comparison we run 13 tests (one per layer), so add a Holm–Bonferroni "
        "correction on top of the bootstrap p-values. Report both raw and corrected p.",
        "早。今天两件事。\n\n1) ruff：实验室这周统一了 code style，所有人的 repo 都用 line length 88，我自己的也一样，"
        "以后都按 88，不是 100 了。pyproject 里改回来，然后整个 repo ruff format 一遍。\n\n2) 显著性检验：按层比较"
        "一共要做 13 个检验，每层一个，多重比较的问题很明显，所以在 bootstrap 的 p 值上面再加一个 Holm–Bonferroni "
        "校正。raw 和校正后的 p 都要输出，表格里各占一列，别只给校正后的。",
    ],
)
def test_goal_of_a_numbered_ask_holds_each_item(ask: str) -> None:
    goal = snapshot_session([user(ask), assistant("OK."), user("thanks")]).goal

    first, _, second = goal.partition("2) ")
    assert "1) ruff" in first and "line length 88" in first, goal
    assert "Holm–Bonferroni" in second and len(goal) <= GOAL_CHARS, goal


@pytest.mark.parametrize(
    ("ask", "said", "closing"),
    [
        ("rewrite the runbook as bullets", "ok. tomorrow I'll walk Marcus through it, then open the PR", "better. thx"),
        ("rewrite the runbook as bullets", "ok. tomorrow I'll walk Marcus through it, then open the PR",
         "works now, thanks!"),
        ("把 runbook 改成列表", "行。明天我跟 Marcus 过一遍，然后再开 PR", "好多了 谢谢"),
    ],
)  # fmt: skip
def test_saying_the_result_is_right_closes_the_session(ask: str, said: str, closing: str) -> None:
    turns = [
        user(ask),
        assistant("Rewritten as bullets."),
        user(said),
        assistant("Tightened the wording."),
        user(closing),
    ]

    assert snapshot_session(turns).next_steps == (said.split(". ", 1)[-1].split("。", 1)[-1],)


@pytest.mark.parametrize(
    ("reported", "leaving", "step"),
    [
        ("tsc 通过，测试 51 个全过。", "好 晚上还要背单词 先撤了", ()),
        ("tsc 通过。测试还没补。", "明天再补测试 先撤了", ("明天再补测试 先撤了",)),
        ("Build passes. The route tests are still missing.", "ok, gonna go eat", ()),
        ("Build passes. The route tests are still missing.", "gonna go climb tonight, gotta run", ()),
        ("Build passes. The route tests are still missing.", "ok, tests tomorrow, gotta run",
         ("ok, tests tomorrow, gotta run",)),
        ("Build passes. Want me to split the probes?", "later, standup now", ()),
        ("Build passes. Want me to backfill the rates?", "wait my mum calling, later", ()),
    ],
)  # fmt: skip
def test_a_plan_said_while_leaving_is_a_step_only_when_it_names_the_work(
    reported: str, leaving: str, step: tuple[str, ...]
) -> None:
    turns = [user("修一下 tsc 的报错"), assistant(reported), user(leaving)]

    assert snapshot_session(turns).next_steps == step


@pytest.mark.parametrize(
    ("ask", "reply", "done"),
    [
        ("把 fetchPlans 改成 async/await", "我已经把 `PlanService` 改好了，ViewModel 那边要我一起改吗？",
         "我已经把 `PlanService` 改好了"),
        ("Move fetchPlans to async/await", "I've updated `PlanService`, want me to change the view model too?",
         "I've updated `PlanService`"),
    ],
)  # fmt: skip
def test_report_before_an_offer_in_one_sentence_is_done(ask: str, reply: str, done: str) -> None:
    snapshot = snapshot_session([user(ask), assistant(reply), user("ok")])

    assert snapshot.done == (done,)


@pytest.mark.parametrize(
    ("reply", "result"),
    [
        ("跑完了：\n\n- `check_data`：三个 split 之间没有重叠的 user ✅\n"
         "- mBERT layer 8，seed 0：task F1 = 0.842，control F1 = 0.611，selectivity = 0.231\n\n"
         "log 里那条 warning 可以忽略。",
         "mBERT layer 8，seed 0：task F1 = 0.842，control F1 = 0.611，selectivity = 0.231"),
        ("Finished:\n\n- `check_data`: no user overlaps between the three splits ✅\n"
         "- mBERT layer 8, seed 0: task F1 = 0.842, control F1 = 0.611, selectivity = 0.231\n\n"
         "The warning in the log can be ignored.",
         "mBERT layer 8, seed 0: task F1 = 0.842, control F1 = 0.611, selectivity = 0.231"),
    ],
)  # fmt: skip
def test_items_under_a_bare_report_caption_are_done(reply: str, result: str) -> None:
    turns = [user("Run a smoke test on gpu 2: mbert, layer 8, seed 0."), assistant(reply), user("ok")]

    assert result in snapshot_session(turns).done


@pytest.mark.parametrize(
    ("step", "answer", "closing", "left"),
    [
        ("Yes, feedback file next.",
         "Changed make_feedback.py to list only the failed rubric items. Sample:\n\n"
         "```\nHW2 feedback — 2024011588\n```",
         "ok lgtm. thanks!", ()),
        ("好，下一步做反馈文件。", "已改好 make_feedback.py：反馈文件里只列没通过的 rubric 项。", "ok 谢谢", ()),
        ("Yes, the docs next, but first fix the typo in the header.", "Fixed the typo in the header.", "thanks!",
         ("Yes, the docs next, but first fix the typo in the header",)),
        ("好，下一步更新文档，不过先把表头的错字修了。", "表头的错字修好了。", "谢谢",
         ("好，下一步更新文档，不过先把表头的错字修了",)),
    ],
)  # fmt: skip
def test_step_the_agents_answer_carried_out_is_no_next_step(
    step: str, answer: str, closing: str, left: tuple[str, ...]
) -> None:
    turns = [
        user("Write the late penalty script."),
        assistant("Done. Next: the per-student feedback file?"),
        user(step),
        assistant(answer),
        user(closing),
    ]

    assert snapshot_session(turns).next_steps == left


@pytest.mark.parametrize(
    ("ask", "head"),
    [
        ("stg upgrade, doing it now. control plane done:\n\n```\n$ aws eks describe-cluster --name pay-stg-sg1\n1.30\n"
         "```\n\nnode group roll is stuck on drain, can you look?", "stg upgrade, doing it now."),
        ("stg 升级，现在开始做，按 runbook 的顺序来。已完成：\n\n- control plane\n- addons\n\n"
         "node group 卡在 drain 上了，帮我看下", "stg 升级，现在开始做，按 runbook 的顺序来。"),
    ],
)  # fmt: skip
def test_goal_keeps_the_sentences_before_a_caption_that_ends_their_paragraph(ask: str, head: str) -> None:
    goal = snapshot_session([user(ask), assistant("Looking.")]).goal

    assert goal.startswith(head) and "drain" in goal, goal


@pytest.mark.parametrize(
    ("ask", "goal"),
    [
        ("A student emailed me about the HW2 late penalty:\n\n> Dear TA, I was in hospital from March 4 to March 8, "
         "which is why I submitted HW2 late on the evening of the 8th. I must ask whether the penalty can be waived — "
         "I always submit on time otherwise.\n\nWith a medical certificate the late days are waived entirely. Can you "
         "add an `--exempt` option to scripts/late_penalty.py that takes a list of student IDs?",
         "Can you add an `--exempt` option to scripts/late_penalty.py that takes a list of student IDs?"),
        ("有个学生发邮件说 HW2 迟交的事：\n\n> 助教您好，我 3 月 4 日到 8 日住院了，所以 HW2 是 8 号晚上才交的，"
         "我平时都是按时交的，这次实在是没办法，住院证明和出院小结我都附在邮件里了，如果还需要别的材料请告诉我。"
         "请您帮我把这次迟交的扣分免掉吧，麻烦您了，谢谢老师和助教的理解。\n\n"
         "有医院证明的话迟交天数全免。帮我给 scripts/late_penalty.py 加一个 `--exempt` 选项，接受一串学号。",
         "帮我给 scripts/late_penalty.py 加一个 `--exempt` 选项，接受一串学号。"),
    ],
)  # fmt: skip
def test_an_ask_the_person_quotes_from_someone_else_is_not_their_goal(ask: str, goal: str) -> None:
    snapshot = snapshot_session([user(ask), assistant("OK.")])

    assert goal in snapshot.goal and "免掉" not in snapshot.goal and "waived —" not in snapshot.goal, snapshot.goal


def test_a_decision_the_agent_acknowledges_is_said_without_the_acknowledgement() -> None:
    turns = [
        user("看下数据加载。"),
        assistant("数据路径是相对的。我改成基于项目根目录的绝对路径。"),
        user("不对，数据不在项目里，在 /mnt/data/tides 下面，路径从环境变量 TIDE_DATA 读。"),
        assistant("明白，改为从 TIDE_DATA 读取，默认不猜路径。已修改 loader.py 并通过测试。"),
        user("好。下一步把潮位预测的 notebook 整理成脚本。"),
    ]
    decisions = snapshot_session(turns).decisions
    assert "改为从 TIDE_DATA 读取，默认不猜路径" in decisions
    assert not any(item.startswith("明白") for item in decisions)


def test_a_step_the_person_names_as_next_is_the_next_step_once_not_a_decision() -> None:
    turns = [
        user("ledger-api 的测试一直挂，帮我看看。"),
        assistant("时区假设有问题，已改成用 UTC，现在 42 个测试都通过了。要我把这条写进 CONTRIBUTING.md 吗？"),
        user("要，写进去。下一步把发票导出改成异步任务。"),
        assistant("已写进 CONTRIBUTING.md。下一步我会把发票导出改成 Celery 异步任务。"),
    ]
    snapshot = snapshot_session(turns)
    assert not any("发票导出" in item for item in snapshot.decisions)
    assert snapshot.next_steps == ("把发票导出改成 Celery 异步任务",)  # the agent's words name more; said once


def test_an_acknowledged_rule_is_not_work_done() -> None:
    turns = [
        user("The theme is PaperMod, pinned at v7.0 as a git submodule. Don't upgrade it without asking me."),
        assistant("Noted, PaperMod stays at v7.0 unless you say otherwise. Build passes with hugo 0.139."),
    ]
    done = snapshot_session(turns).done
    assert not any(item.startswith("Noted") for item in done)
    assert is_done(fold("Noted the pinned version in the README"))  # noting something down is work done


@pytest.mark.parametrize(
    ("opening", "title"),
    [
        (
            "商品列表页在 Android 上滑快了会直接闪退，下面是 adb logcat 抓到的：\n\n"
            "```\nFATAL EXCEPTION: main\njava.lang.IllegalStateException: boom\n```\n帮我看看是哪里的问题。",
            "商品列表页在 Android 上滑快了会直接闪退，下面是 adb logcat 抓到的",
        ),
        (
            "The product list crashes on Android, adb logcat says:\n\n"
            "```\nFATAL EXCEPTION: main\njava.lang.IllegalStateException: boom\n```\nCan you find the cause?",
            "The product list crashes on Android, adb logcat says.",
        ),
    ],
)
def test_a_sessions_title_ends_on_its_words_not_on_the_colon_over_a_paste(opening: str, title: str) -> None:
    """Found by a new user: `incremind sessions` listed "…adb logcat 抓到的，"."""
    snapshot = snapshot_session([user(opening), assistant("Looking at the trace now.")])
    assert snapshot.index_line == title


LAZY_DIFF = (
    "```diff\n"
    '-static PLAN_HIST: LazyLock<Histogram> = LazyLock::new(|| histogram!("route_plan_duration_seconds"));\n'
    '+static PLAN_HIST: Lazy<Histogram> = Lazy::new(|| histogram!("route_plan_duration_seconds"));\n'
    "```\n"
)


@pytest.mark.parametrize(
    ("words", "done"),
    [
        ("`once_cell` 已在依赖树里，1.79 可编译。", True),
        ("once_cell is already in the tree, so this builds on 1.79.", True),
        ("要不要这样改？", False),
        ("Shall I apply this?", False),
    ],
)
def test_a_diff_whose_words_report_nothing_is_done_unless_they_ask(words: str, done: bool) -> None:
    """Found on the fresh halves: a diff and a remark about it ("once_cell 已在依赖树里") left the change unsaid."""
    turns = [user("LazyLock 换成 once_cell。"), assistant(LAZY_DIFF + words), user("ok")]
    assert any("Lazy::new" in item for item in snapshot_session(turns).done) is done
