"""Machine checks of every theorem: symbolic proofs, accuracy against high-precision references, brute force
on tiny mechanisms in exact arithmetic, and properties.  ``ampbounds certify`` runs them all."""
