"""The generated training world: domains × layout families × themes -> site specs (`plandvc make-sites`)."""
