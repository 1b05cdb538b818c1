"""The players' feeds, as jobs: the projection of a game's new versions into its players'
feeds (``service.application.feed``), and the deliveries of a player's webhooks.

A player's webhook is a subscription of the ``WebhookStore`` port (a store of its own,
``player_hooks``, keyed by the player's id where a game's is keyed by the game's id) whose
cursor is the number of the last feed entry delivered. A delivery sends the entries after
it (up to ``BATCH``), filtered by type, as one message ``player.feed`` signed per Standard
Webhooks, with the lock, the fixed batches under one ``webhook-id``, the retry schedule,
the 410 and the URL checks of a game's webhooks (``service.jobs.webhooks``: the same
code). Entries a feed no longer keeps (``TIGRIS_PLAYER_FEED_LENGTH``) are not sent.
"""

from __future__ import annotations

from service.application.feed import entry_json
from service.jobs.context import JobContext
from service.jobs.enqueue import DELIVER_PLAYER_WEBHOOK, enqueue_player_deliveries
from service.jobs.webhooks import BATCH, locked, send


def project(context: JobContext, game_id: str) -> str:
    """The projection job: the entries of ``game_id``'s versions not projected yet; the
    deliveries of the players' webhooks follow (``JobTriggers.feed_written``)."""
    written = context.games.feeds.project(game_id)
    count = sum(len(seqs) for seqs in written.values())
    return f"{count} entries for {len(written)} players"


def deliver(context: JobContext, player_id: str, sub_id: str) -> str:
    """The delivery job of a player's webhook: its next batch of feed entries."""
    hooks = context.player_hooks
    return locked(hooks, player_id, sub_id, context, lambda: _deliver(context, player_id, sub_id))


def _deliver(context: JobContext, player_id: str, sub_id: str) -> str:
    hooks = context.player_hooks
    sub = hooks.get(player_id, sub_id)  # again, under the lock
    if sub is None or sub.status != "active":
        return "no active subscription"
    feeds = context.games.feeds
    _, last_written = feeds.store.bounds(player_id)
    if sub.batch is not None and sub.batch[1] > sub.cursor:
        first, last = sub.batch  # a batch already tried: the same entries again
        entries = feeds.store.read(player_id, first - 1, last - first + 1)
    elif sub.cursor >= last_written:
        return "up to date"
    else:
        entries = feeds.store.read(player_id, sub.cursor, BATCH)
        if not entries:  # dropped before they could be sent
            hooks.advance(sub, last_written)
            return "up to date"
        first, last = sub.cursor + 1, entries[-1].seq
    selected = [entry_json(e) for e in entries if not sub.events or e.data["type"] in sub.events]
    outcome = "skipped"
    if selected:
        data = {"player_id": player_id, "last_id": last, "entries": selected}
        failed = send(
            context,
            hooks,
            sub,
            (first, last),
            "player.feed",
            data,
            len(selected),
            retry_job=DELIVER_PLAYER_WEBHOOK,
        )
        if failed is not None:
            return failed
        outcome = "delivered"
    hooks.advance(sub, last)
    if last < last_written:  # more than one batch behind: the next one
        enqueue_player_deliveries(context.queue, context.settings, hooks, player_id, last_written)
    return f"{outcome} entries {first}-{last}"
