# One image for web, worker, beat and the one-shot migrate (docker-compose.yml). Runs as an unprivileged
# user; .dockerignore keeps .venv, var/, .env and .git out of the build context.
FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 DJANGO_SETTINGS_MODULE=config.settings.production \
    HOST=0.0.0.0 PORT=8000
WORKDIR /app
RUN groupadd --system --gid 10001 chinchi \
    && useradd --system --uid 10001 --gid chinchi --home-dir /app --shell /usr/sbin/nologin chinchi
COPY . .
# PyICU (look-alike names) builds against ICU: its development files, pkg-config and a C++ compiler.
# collectstatic needs settings only: a throwaway key that production's own check accepts.
RUN apt-get update && apt-get install -y --no-install-recommends libicu-dev pkg-config g++ \
    && rm -rf /var/lib/apt/lists/* \
    && pip install . \
    && SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(50))')" \
       python manage.py collectstatic --noinput \
    && chown -R chinchi:chinchi /app
USER chinchi:chinchi
EXPOSE 8000
# As many uvicorn workers as the container's cores (WEB_CONCURRENCY overrides): config/web.py.
CMD ["python", "-m", "config.web"]
