"""The service around the pure domain: event store, application service, HTTP API."""
