"""filter-rows: validation of planner rows, the versioned dataset, its manifest and metrics."""
