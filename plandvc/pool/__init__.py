"""The executor pool by construction: task generation, the scripted executor, the recorder (make-pool), the
pool loader, and the preparation of a task's start shared with run-chains."""
