"""Gunicorn configuration for deployments that run gunicorn directly:

    REDIS_URL=redis://... gunicorn -c deploy/gunicorn.conf.py 'service.api:create_app()'

The settings are the ones ``python -m service`` uses (``service.api.server``): the gthread
worker with many threads, so that hundreds of open event streams never starve commands.
"""

from service.api.server import gunicorn_options

globals().update({k: v for k, v in gunicorn_options().items() if v is not None})
