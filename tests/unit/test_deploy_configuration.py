"""Static checks of the deployment's configuration, and `provisioning.stack_setup` (no Docker engine needed).

Every variable handed to the app services is one the app reads, every Settings variable is documented,
.env.example matches compose and the app and holds placeholders only, and .env is ignored by git and Docker.
The setup module is checked on the configuration it reads and run against an unreachable address (its file
realm is tested in tests/unit/test_file_realm.py).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from deploy_files import (
    CLUSTER,
    COMPOSE,
    DOCKERIGNORE,
    ENV_EXAMPLE,
    EXTRA_APP_VARIABLES,
    ROOT,
    TLS,
    environment,
    gunicorn_variables,
    is_known_app_variable,
    services,
    settings_variables,
)
from nodeless import free_port

from provisioning import stack_setup

APP_SERVICES = ("setup", "indexer", "webapp")  # services running the app image

# Variables only compose itself interpolates (ports, heap); never passed to the app as such.
COMPOSE_ONLY_VARIABLES = {"ES_HEAP", "ES_PORT", "WEB_PORT", "WEB_BIND"}
INTERPOLATION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)")


def env_example() -> dict[str, str]:
    """NAME → value of every `NAME=value` line of .env.example, commented-out ones included."""
    out = {}
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        match = re.fullmatch(r"#?\s*([A-Z][A-Z0-9_]*)=(.*)", line.strip())
        if match:
            assert match.group(1) not in out, f".env.example lists {match.group(1)} twice"
            out[match.group(1)] = match.group(2).strip()
    return out


def compose_interpolations() -> set[str]:
    names: set[str] = set()
    for path in (COMPOSE, CLUSTER, TLS):
        text = path.read_text(encoding="utf-8").replace("$$", "")  # $$ is a literal dollar for the container
        names |= set(INTERPOLATION.findall(text))
    return names


# --- variables -----------------------------------------------------------------------------------------


def test_extra_variables_are_really_read() -> None:
    for name, (source, _reason) in EXTRA_APP_VARIABLES.items():
        assert name in (ROOT / source).read_text(), f"{name} is whitelisted as read by {source}, which does not"
    assert gunicorn_variables() == {"PROMETHEUS_MULTIPROC_DIR"}  # prometheus_client's own, not ours
    # gunicorn.conf.py reads ours through Settings (DECISIONS.md D-194)
    assert {"PAPERSEARCH_BIND", "PAPERSEARCH_WORKERS", "PAPERSEARCH_LOG_LEVEL"} <= settings_variables()


@pytest.mark.parametrize("path", [COMPOSE, CLUSTER], ids=lambda p: p.name)
def test_app_services_get_only_variables_the_app_reads(path: Path) -> None:
    for name in APP_SERVICES:
        service = services(path).get(name)
        if service is None:
            continue
        for key in environment(service):
            assert is_known_app_variable(key), (
                f"{path.name}: {name} sets {key}, which is neither in papersearch/settings.py nor read by "
                "gunicorn.conf.py nor whitelisted in EXTRA_APP_VARIABLES"
            )


def test_every_settings_variable_is_documented() -> None:
    documented = set(env_example())
    for name in APP_SERVICES:
        documented |= set(environment(services(COMPOSE)[name]))
    missing = settings_variables() - documented
    assert not missing, f"Settings variables missing from .env.example and docker-compose.yml: {sorted(missing)}"


def test_env_example_matches_compose_and_app() -> None:
    documented = set(env_example())
    undocumented = compose_interpolations() - documented
    assert not undocumented, f"compose interpolates variables .env.example does not document: {sorted(undocumented)}"
    unused = {n for n in documented
              if not is_known_app_variable(n) and n not in compose_interpolations() | COMPOSE_ONLY_VARIABLES}
    assert not unused, f".env.example documents variables nothing reads: {sorted(unused)}"
    assert compose_interpolations() >= COMPOSE_ONLY_VARIABLES


def test_env_example_has_no_real_secrets() -> None:
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    assert "-----BEGIN" not in text
    for name, value in env_example().items():
        if re.search(r"PASSWORD|API_KEY|SECRET|TOKEN", name):
            assert value.startswith(stack_setup.PLACEHOLDER_PREFIX), f"{name} must be a change-me-… placeholder"
        elif re.fullmatch(r"[A-Za-z0-9_+=-]{20,}", value):
            classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]"))
            assert classes < 3, f"{name}={value} looks like a real secret"
    secrets = ("ELASTIC_PASSWORD", "ES_PASSWORD", "ES_WEB_PASSWORD")
    placeholders = {k: v for k, v in env_example().items() if k in secrets}
    with pytest.raises(stack_setup.ConfigError, match="placeholder"):
        stack_setup.read_config({"ES_URL": "http://es:9200", **placeholders})


def test_dotenv_is_ignored_by_git_and_docker() -> None:
    git = shutil.which("git")
    assert git, "git is needed to check .gitignore"
    assert subprocess.run([git, "check-ignore", "-q", ".env"], cwd=ROOT).returncode == 0, ".env must be git-ignored"
    assert subprocess.run([git, "check-ignore", "-q", ".env.example"], cwd=ROOT).returncode == 1, \
        ".env.example must be committed"
    ignored = {line.strip() for line in DOCKERIGNORE.read_text().splitlines()}
    assert {".env", ".git", ".venv", ".local", "plugin/target"} <= ignored


# --- provisioning.stack_setup ----------------------------------------------------------------------------

GOOD_ENV = {"ES_URL": "http://es:9200", "ELASTIC_PASSWORD": "s3cret-elastic",
            "ES_PASSWORD": "s3cret-indexer", "ES_WEB_PASSWORD": "s3cret-webapp"}


def test_setup_reads_its_configuration() -> None:
    config = stack_setup.read_config({**GOOD_ENV, "PAPERSEARCH_ALIAS": "lab_papers"})
    assert config.admin_user == "elastic"
    assert config.passwords == {"papersearch_indexer": "s3cret-indexer", "papersearch_web": "s3cret-webapp"}
    assert config.index_patterns == ["lab_papers*"]


@pytest.mark.parametrize(("change", "message"), [
    ({"ES_URL": ""}, "ES_URL is not set"),
    ({"ES_URL": "es:9200"}, "ES_URL must look like"),
    ({"ES_PASSWORD": "short"}, "ES_PASSWORD is too short"),
    ({"ES_WEB_PASSWORD": "change-me-webapp-password"}, "ES_WEB_PASSWORD still has the placeholder"),
    ({"ES_WEB_PASSWORD": GOOD_ENV["ES_PASSWORD"]}, "are equal"),
    ({"PAPERSEARCH_ALIAS": "Papers*"}, "PAPERSEARCH_ALIAS"),
])
def test_setup_rejects_bad_configuration(change: dict[str, str], message: str) -> None:
    with pytest.raises(stack_setup.ConfigError, match=message):
        stack_setup.read_config({**GOOD_ENV, **change})


def test_setup_without_environment_exits_2_naming_every_missing_variable(capsys: pytest.CaptureFixture) -> None:
    assert stack_setup.main([], env={}) == stack_setup.EXIT_CONFIG
    err = capsys.readouterr().err
    for name in ("ES_URL", "ELASTIC_PASSWORD", "ES_PASSWORD", "ES_WEB_PASSWORD"):
        assert f"{name} is not set" in err


def test_setup_fails_fast_and_clearly_on_an_unreachable_cluster() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    env = {"PATH": "/usr/bin:/bin", **GOOD_ENV, "ES_URL": url}
    # Fast: it gives up after the --timeout given (the message says so), not the default 180 s, which the
    # run's ceiling of 120 s would catch.
    proc = subprocess.run([sys.executable, "-m", "provisioning.stack_setup", "--timeout", "1"], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == stack_setup.EXIT_FAILED, proc.stderr
    assert f"cannot reach Elasticsearch at {url} within 1s" in proc.stderr
    assert "Connection refused" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_rate_limit_storage_gets_its_password_from_a_file(tmp_path: Path, monkeypatch) -> None:
    """The stack's Redis wants a password (issue 45.11): read from a file setup wrote, never in the URI's variable."""
    from papersearch.settings import Settings

    password = tmp_path / "password"
    password.write_text("p/ss@word+1\n")
    monkeypatch.setenv("PAPERSEARCH_RATE_LIMIT_STORAGE", "redis://redis:6379")
    assert Settings().rate_limit_storage_uri() == "redis://redis:6379"
    monkeypatch.setenv("PAPERSEARCH_RATE_LIMIT_STORAGE_PASSWORD_FILE", str(password))
    assert Settings().rate_limit_storage_uri() == "redis://:p%2Fss%40word%2B1@redis:6379"
    monkeypatch.setenv("PAPERSEARCH_RATE_LIMIT_STORAGE_PASSWORD_FILE", "")  # compose's ${VAR:-}: unset
    assert Settings().rate_limit_storage_uri() == "redis://redis:6379"
