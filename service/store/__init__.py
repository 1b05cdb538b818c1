"""Event store port and its adapters (Redis Streams on one server or a Redis Cluster,
in-memory)."""
