FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 DJANGO_SETTINGS_MODULE=config.settings.production
WORKDIR /app
COPY pyproject.toml README.md ./
COPY config ./config
COPY accounts ./accounts
COPY games ./games
COPY rooms ./rooms
COPY ranking ./ranking
COPY manage.py ./
RUN pip install . && SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["uvicorn", "config.asgi:application", "--host", "0.0.0.0", "--port", "8000", "--workers", "2", "--lifespan", "off", "--log-config", "config/uvicorn_logging.json"]
