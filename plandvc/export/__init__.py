"""export: a dataset version as the folders each trainer's loader reads with no glue (hf, llamafactory,
openai, wds), each with a dataset card; the stage after filter-rows."""
