"""The planner evaluation on held-out chains: `eval-specs` (the chains, on the test sites only) and
`eval-planner` (teacher-forced and closed-loop scores of any OpenAI-compatible planner, and the reference
planners that make the scores trustworthy)."""
