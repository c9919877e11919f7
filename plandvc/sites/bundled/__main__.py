"""`python -m plandvc.sites.bundled [OUT_DIR]`: write the bundled sites."""

from plandvc.sites.bundled import main

main()
