"""The executor pool by construction: task generation over the macro registry (`plandvc.macros`), the scripted
executor, the recorder (make-pool), the pool loader, and the preparation of a task's start shared with
run-chains."""
