"""One module per job; each exposes CONFIG (a dataclass) and run(config, events)."""
