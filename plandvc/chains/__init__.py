"""Records of the pool and the seeded chain walk (pool-items, chain-specs): pure logic."""
