"""Issue 38 without a Docker engine: the compose file's settings (every one from ``.env`` with a default, no
secret), its scale rules (N web replicas behind the proxy, one beat), the lean image's Dockerfile and build
context, and the TLS proxy's own config checked by the real ``caddy`` binary."""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_TEXT = (ROOT / "docker-compose.yml").read_text()
# Container wiring, not operator settings: the same in every deployment.
WIRING = {"HOST", "PORT", "PROMETHEUS_MULTIPROC_DIR", "METRICS_PORT", "DATABASE_POOL", "UPSTREAM_HOST",
          "UPSTREAM_PORT"}
_VAR = re.compile(r"\$\{([A-Z0-9_]+)(?:(:-|:\?)((?:[^{}]|\{[^{}]*\}|\$\{[^{}]*\})*))?\}")


def _compose() -> dict:
    return yaml.safe_load(COMPOSE_TEXT)


def interpolate(value: str, env: dict) -> str:
    """Compose's ``${VAR}``, ``${VAR:-default}`` and ``${VAR:?error}`` (nested in a default too), as the
    compose specification defines them; an unset required variable raises ``LookupError``."""
    def one(m: re.Match) -> str:
        name, op, arg = m.group(1), m.group(2), m.group(3) or ""
        if env.get(name):
            return env[name]
        if op == ":?":
            raise LookupError(f"{name}: {arg}")
        return interpolate(arg, env) if op == ":-" else ""

    previous = None
    while previous != value:
        previous, value = value, _VAR.sub(one, value)
    return value.replace("$$", "$")


def _effective_env(service: str, dotenv: dict) -> dict:
    return {k: interpolate(str(v), dotenv) for k, v in _compose()["services"][service]["environment"].items()}


def test_every_setting_comes_from_dotenv_with_a_default_and_no_secret_is_written():
    services = _compose()["services"]
    for name, svc in services.items():
        env = svc.get("environment") or {}
        for key, value in env.items():
            if key in WIRING:
                continue
            assert _VAR.fullmatch(str(value)), (name, key, value)  # ${VAR...} and nothing around it
    assert "POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?" in COMPOSE_TEXT
    for name, svc in services.items():  # no secret written: each is a required or .env-given variable
        for key, value in (svc.get("environment") or {}).items():
            if re.search(r"PASSWORD|SECRET|TOKEN|KEY", key):
                assert _VAR.fullmatch(str(value)) and ":-" not in str(value), (name, key)
    data = yaml.safe_dump(_compose())
    assert "SECRET_KEY" not in data and "METRICS_TOKEN" not in data  # from env_file only
    assert re.search(r"^\s*env_file: \.env$", COMPOSE_TEXT, re.M)
    # Without a password compose refuses to start (the variable is required), with one it is used.
    with pytest.raises(LookupError):
        _effective_env("web", {})
    web = _effective_env("web", {"POSTGRES_PASSWORD": "pw-from-env"})
    assert web["DATABASE_URL"] == "postgres://chinchi:pw-from-env@postgres:5432/chinchi"
    assert web["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
    assert (web["REDIS_URL"], web["LOG_FORMAT"], web["NUM_PROXIES"]) == ("redis://redis:6379/0", "json", "1")
    # .env pointing at managed services wins over the defaults (it was silently ignored before).
    managed = _effective_env("worker", {"DATABASE_URL": "postgres://u:p@db.example.net/c",
                                        "REDIS_URL": "redis://cache.example.net:6379/2",
                                        "DJANGO_SETTINGS_MODULE": "mysite.settings", "POSTGRES_PASSWORD": "x"})
    assert (managed["DATABASE_URL"], managed["REDIS_URL"], managed["DJANGO_SETTINGS_MODULE"]) == (
        "postgres://u:p@db.example.net/c", "redis://cache.example.net:6379/2", "mysite.settings")
    assert managed["DATABASE_POOL"] == "false"
    postgres = _effective_env("postgres", {"POSTGRES_PASSWORD": "pw-from-env"})
    assert postgres == {"POSTGRES_USER": "chinchi", "POSTGRES_PASSWORD": "pw-from-env", "POSTGRES_DB": "chinchi"}


def test_env_example_names_every_variable_compose_reads():
    example = (ROOT / ".env.example").read_text()
    names = set(re.findall(r"\$\{([A-Z0-9_]+)", yaml.safe_dump(_compose())))
    for name in sorted(names):
        assert re.search(rf"^#?\s*{name}=", example, re.M), name
    assert "INSECURE_COOKIES" in example and "SESSION_COOKIE_SECURE" in example and "CSRF_COOKIE_SECURE" in example
    assert re.search(r"^POSTGRES_PASSWORD=$", example, re.M)  # to be set: no default password anywhere


def test_web_scales_behind_the_proxy_and_beat_is_one():
    services = _compose()["services"]
    for name, svc in services.items():
        assert "container_name" not in svc, name  # a fixed name forbids --scale
    web = services["web"]
    assert "ports" not in web and web["expose"] == ["8000"]  # no host port: any number of replicas
    assert web["environment"]["FORWARDED_ALLOW_IPS"].startswith("${FORWARDED_ALLOW_IPS:-")
    published = {name for name, svc in services.items() if svc.get("ports")}
    assert published == {"proxy"}
    proxy = services["proxy"]
    assert interpolate(" ".join(proxy["ports"]), {}) == "80:80 443:443"
    assert proxy["depends_on"] == {"web": {"condition": "service_healthy"}}
    mounted = proxy["volumes"][0].split(":")
    assert (ROOT / mounted[0]).is_file() and mounted[1] == "/etc/caddy/Caddyfile"
    assert (proxy["environment"]["UPSTREAM_HOST"], proxy["environment"]["UPSTREAM_PORT"]) == ("web", "8000")
    beat = services["beat"]
    assert beat["deploy"]["replicas"] == 1 and "ports" not in beat
    assert beat["command"][:4] == ["celery", "-A", "config", "--quiet"] and "beat" in beat["command"]
    assert services["worker"]["command"][:4] == ["celery", "-A", "config", "--quiet"]
    from django.conf import settings

    assert settings.CELERY_BEAT_SCHEDULER == "config.beat:SingleBeatScheduler"  # a second beat idles


def _stages(dockerfile: str) -> list[list[str]]:
    lines, stages = [], []
    for raw in dockerfile.replace("\\\n", " ").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("FROM "):
            stages.append([])
        stages[-1].append(line)
        lines.append(line)
    return stages


def test_the_image_installs_dependencies_before_the_code_and_ships_no_compiler_tests_or_bench():
    stages = _stages((ROOT / "Dockerfile").read_text())
    assert len(stages) == 2
    build, final = stages
    assert "AS build" in build[0]
    copies = [ln for ln in build if ln.startswith("COPY ")]
    assert copies == ["COPY pyproject.toml /tmp/pyproject.toml"]  # the dependency layer sees no code
    assert any("pip install -r /tmp/requirements.txt" in ln for ln in build)
    assert any("g++" in ln and "libicu-dev" in ln for ln in build)
    final_text = "\n".join(final)
    assert "g++" not in final_text and "libicu-dev" not in final_text and "pkg-config" not in final_text
    assert "libicu72" in final_text and "bookworm" in final[0]
    order = [ln.split()[0] + " " + ln.split()[1] for ln in final if ln.startswith("COPY ")]
    assert order == ["COPY --from=build", "COPY --chown=chinchi:chinchi"]  # the venv, then the code
    assert not any("pip install" in ln for ln in final)  # the code's layer installs nothing
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert {"tests", "bench", ".venv", ".env", ".git", "var"} <= ignored


def _caddy(*args: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "HOME": str(tmp_path), **env}
    return subprocess.run(["caddy", *args, "--config", str(ROOT / "deploy" / "Caddyfile"), "--adapter",
                           "caddyfile"], env=full, capture_output=True, text=True, timeout=60, cwd=tmp_path)


@pytest.mark.caddy
def test_the_proxy_config_is_valid_for_a_trial_and_for_a_domain(tmp_path):
    trial = _caddy("validate", tmp_path=tmp_path)
    assert trial.returncode == 0 and "Valid configuration" in trial.stdout + trial.stderr, trial.stderr[-2000:]
    domain = _caddy("validate", tmp_path=tmp_path, SITE_ADDRESS="chinchi.example.net", CADDY_TLS="ops@example.net")
    assert domain.returncode == 0, domain.stderr[-2000:]

    adapted = _caddy("adapt", tmp_path=tmp_path, SITE_ADDRESS="localhost, 192.168.1.20")
    assert adapted.returncode == 0, adapted.stderr[-2000:]
    config = json.loads(adapted.stdout)
    assert config["admin"] == {"disabled": True}
    server = config["apps"]["http"]["servers"]["srv0"]
    assert server["listen"] == [":443"]
    route = server["routes"][0]
    assert route["match"] == [{"host": ["localhost", "192.168.1.20"]}]
    proxy = route["handle"][0]["routes"][0]["handle"][-1]
    assert proxy["handler"] == "reverse_proxy"
    assert proxy["dynamic_upstreams"] == {"source": "a", "name": "web", "port": "8000", "refresh": 5_000_000_000}
    assert proxy["load_balancing"]["selection_policy"] == {"policy": "least_conn"}
    policies = config["apps"]["tls"]["automation"]["policies"]
    assert policies == [{"subjects": ["192.168.1.20", "localhost"], "issuers": [{"module": "internal"}]}]

    acme = json.loads(_caddy("adapt", tmp_path=tmp_path, SITE_ADDRESS="chinchi.example.net",
                             CADDY_TLS="ops@example.net").stdout)
    issuers = acme["apps"]["tls"]["automation"]["policies"][0]["issuers"]
    assert {i["module"] for i in issuers} == {"acme", "zerossl"} or issuers[0]["module"] == "acme"
    assert all(i.get("email") == "ops@example.net" for i in issuers)
