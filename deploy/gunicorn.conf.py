"""Gunicorn configuration for deployments that run gunicorn directly:

    REDIS_URL=redis://... gunicorn -c deploy/gunicorn.conf.py 'service.api:create_app()'

The settings are the ones ``python -m service`` uses (``service.api.server``): the service's
gevent worker (``service.api.worker.TigrisWorker``), with header and socket timeouts for
slow clients, so that open event streams and stalled clients never starve commands.
Set ``PROMETHEUS_MULTIPROC_DIR`` to an empty, writable directory for ``/metrics`` (which
``python -m service`` does by itself; see ``service.api.metrics``).
"""

from service.api.server import gunicorn_options

globals().update({k: v for k, v in gunicorn_options().items() if v is not None})
