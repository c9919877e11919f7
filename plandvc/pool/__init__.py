"""The executor pool by construction: task generation over the macro registry (`plandvc.macros`), the scripted
executor, the recorder (make-pool), the pool's one reader (`store.Pool`, its files checked against the
contract's schemas by `schema`), and the preparation of a task's start shared with run-chains."""
