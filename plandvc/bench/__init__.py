"""Measuring code that tests import (the scripts that drive it stay in `bench/`): `accounting` (the CPU and
memory of everything a command causes), `structures` (the distinct page structures of a world, in Chromium),
`chains` (pool-items and chain-specs timed on a generated pool)."""
