"""Side-by-side performance runs; results in RESULTS.md."""
