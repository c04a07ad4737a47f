"""Side-by-side performance runs; results in RESULTS.md. Their servers, browser and far
link come from the harness package (harness/), which the tests drive too."""
