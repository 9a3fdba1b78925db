from __future__ import annotations

from pathlib import Path

import pytest

from incremind_daemon.config import example_config, load_settings, read_jsonc
from incremind_daemon.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]


def test_defaults_need_no_config_file(private_home: Path) -> None:
    settings = load_settings()
    assert settings.home_dir == private_home / ".incremind"
    assert settings.inbox_dir == private_home / ".incremind" / "inbox"
    assert settings.database_path == private_home / ".incremind" / "memory.db"


def test_environment_overrides_config_file(private_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = private_home / ".incremind"
    home.mkdir()
    (home / "config.json").write_text('{"inbox": {"max_file_mb": 5} // five\n}', encoding="utf-8")
    assert load_settings().inbox.max_file_mb == 5
    monkeypatch.setenv("INCREMIND_INBOX__MAX_FILE_MB", "7")
    assert load_settings().inbox.max_file_mb == 7


def test_home_flag_beats_environment(tmp_path: Path) -> None:
    assert load_settings(home=tmp_path / "elsewhere").home_dir == tmp_path / "elsewhere"


def test_misspelt_key_names_the_key(private_home: Path) -> None:
    home = private_home / ".incremind"
    home.mkdir()
    (home / "config.json").write_text('{"inbox": {"max_file_md": 5}}', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"unknown setting 'inbox\.max_file_md'"):
        load_settings()


def test_malformed_file_names_file_and_line(private_home: Path) -> None:
    home = private_home / ".incremind"
    home.mkdir()
    (home / "config.json").write_text('{\n  "default_project": "x",\n  oops\n}', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"config\.json:3:"):
        load_settings()


def test_explicit_missing_config_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "nope.json")


def test_shipped_example_matches_every_setting_and_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INCREMIND_EMBEDDING__BACKEND")  # compare against the real defaults
    shipped = (REPO / "config.example.json").read_text(encoding="utf-8")
    assert shipped == example_config(), "regenerate config.example.json from config.example_config()"
    data = read_jsonc(REPO / "config.example.json")
    assert load_settings(**{k: v for k, v in data.items() if k != "home"}).model_dump() == {
        **load_settings().model_dump()
    }
