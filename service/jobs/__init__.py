"""Background work on RQ: the queue (``queues``), its settings (``settings``), the workers
of ``python -m service worker`` (``worker``) and what the jobs reach (``context``)."""
