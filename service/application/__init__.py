"""The application layer: between the HTTP API and the domain and stores, one module per job.

- ``mapper``: envelopes to and from the store (type names, schema versions, metadata from
  the request's ``CommandMeta`` in its versioned stored form, upcasting on read) and the
  game's info record.
- ``repository``: a game's state now or at any version (``replay``: folding with service
  events honoured), snapshots and their policy, the per-process game cache.
- ``commands``: creating games, deciding commands and appending their events, idempotency.
- ``queries``: event pages, waiting for events, listing games, the snapshot audit.
- ``undo``: the undo workflow (request, answer, revert) and its policy.
- ``tokens``: seat tokens and stream tickets: making them, and whom they stand for.
- ``game_service``: ``GameService``, the parts wired together (a plain container: callers
  use the parts); ``build_service`` on the configured Redis.
- ``observer``: what the layer reports for metrics (``Observer``; the API's Prometheus
  metrics implement it, ``NullObserver`` by default), and every successful write to what
  follows it (``WriteObserver``, gathered in ``Observers``: the background jobs).

A command's path: API view → ``CommandHandler.handle`` →
``GameRepository`` (the cached copy, caught up from the events it lacks when behind,
else a load) → ``rules.decide`` / ``rules.evolve`` →
``EventStore.append`` (its envelopes made by the ``EventMapper``) →
``GameRepository.remember`` → ``Observers.appended`` (the write's observers: jobs for bots,
clocks, webhooks). Undo requests and answers take the same way from ``UndoWorkflow``,
which hands its events to ``CommandHandler.append``; a creation, a claim and an imported
record tell the observers the same way, once per successful append, never on a replay.
"""
