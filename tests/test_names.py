"""Project names: refused with the reason where a person or an agent types one, made safe off a folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from incremind_daemon.cli import main
from incremind_daemon.names import ProjectNameError, check_project, project_for_cwd, project_from_folder


@pytest.mark.parametrize("name", ["ledger-api", "我的项目", "my project", "v1.2+beta", "_drafts", "计费服务 v2"])
def test_plain_names_in_any_script_are_kept(name: str) -> None:
    assert check_project(name) == name


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("<!-- incremind:end -->", "'<'"),
        ("@/etc/passwd", "'@'"),
        ("api\x00", "'\\x00'"),
        ("a\n## Rules", "'\\n'"),
        ("`rm -rf`", "'`'"),
        ("a  b", "double space"),
        (".hidden", "how it starts"),
        ("x" * 65, "65 characters"),
        ("", "empty"),
    ],
)
def test_a_name_that_could_break_a_block_is_refused_with_the_reason(name: str, reason: str) -> None:
    with pytest.raises(ProjectNameError, match="project name") as caught:
        check_project(name)
    assert reason in str(caught.value)


def test_a_folder_name_is_made_into_a_safe_project_name() -> None:
    assert project_from_folder("<!-- incremind:end -->") == "incremind-end"
    assert project_from_folder("@evil `x`") == "evil -x"
    assert project_from_folder("my  repo (copy)") == "my repo -copy"
    assert project_from_folder("<>") is None


def test_a_session_in_a_hostile_folder_gets_a_safe_project(tmp_path: Path) -> None:
    repo = tmp_path / "<!-- incremind:end --> @~"
    (repo / "src").mkdir(parents=True)
    (repo / ".git").mkdir()
    assert project_for_cwd(str(repo / "src"), {}) == "incremind-end"


def test_the_command_line_refuses_a_bad_project(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as code:
        main(["pending", "--project", "<!--x-->"])
    assert code.value.code == 2
    assert "cannot be used" in capsys.readouterr().err
