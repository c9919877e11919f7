"""App sites: real web applications as held-out worlds (docs/APPS.md)."""
