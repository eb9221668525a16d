# One image for web, worker, beat and the one-shot migrate (docker-compose.yml); docs/operations-deploy.md.
# Two stages: the build stage has the compiler and ICU's development files (PyICU builds against them) and
# installs the dependencies into /venv; the final stage has only ICU's runtime library, /venv and the code.
# The dependencies are installed from pyproject.toml alone, before any code is copied: a code change
# rebuilds the last layers only. .dockerignore keeps tests/, bench/, .venv, var/, .env and .git out.
# Debian 12 (bookworm) pinned: its ICU runtime package is libicu72.
FROM python:3.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update && apt-get install -y --no-install-recommends libicu-dev pkg-config g++ \
    && rm -rf /var/lib/apt/lists/*
RUN python -m venv /venv
COPY pyproject.toml /tmp/pyproject.toml
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('/tmp/pyproject.toml', 'rb'))['project']['dependencies']))" \
       > /tmp/requirements.txt \
    && /venv/bin/pip install -r /tmp/requirements.txt

FROM python:3.11-slim-bookworm
ENV PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 PATH=/venv/bin:$PATH \
    DJANGO_SETTINGS_MODULE=config.settings.production HOST=0.0.0.0 PORT=8000
RUN apt-get update && apt-get install -y --no-install-recommends libicu72 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 chinchi \
    && useradd --system --uid 10001 --gid chinchi --home-dir /app --shell /usr/sbin/nologin chinchi
COPY --from=build /venv /venv
WORKDIR /app
COPY --chown=chinchi:chinchi . .
# collectstatic needs settings only: a throwaway key that production's own check accepts.
RUN SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(50))')" \
       python manage.py collectstatic --noinput --verbosity 0 \
    && chown -R chinchi:chinchi /app/staticfiles
USER chinchi:chinchi
EXPOSE 8000
# Two uvicorn workers per core of the container (WEB_CONCURRENCY overrides): config/web.py.
CMD ["python", "-m", "config.web"]
