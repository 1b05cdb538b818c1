"""Event store port and its adapters (Redis Streams, in-memory)."""
