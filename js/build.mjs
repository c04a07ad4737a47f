// Bundles each widget's entry (its folder's <name>.ts and <name>.css) into agent_widget/static/<name>.js
// and <name>.css, the files anywidget loads: widget (EpisodeViewer, in js/viewer/), compare (CompareViewer),
// leaderboard, arena (Arena.leaderboard), moments (RunLibrary.moments), training (TrainingViewer), checkpoints (CheckpointViewer), tensorboard (the Agent tab's ES module, which TensorBoard imports); and page.js, the script of a page made by EpisodeViewer.to_html() (which inlines it
// beside widget.css). The output names are what the Python classes load (and hatch_build.py's BUNDLES).
import { build } from "esbuild";

const widgets = {
  widget: "js/viewer/widget",
  compare: "js/compare/compare",
  leaderboard: "js/leaderboard/leaderboard",
  arena: "js/arena/arena",
  moments: "js/moments/moments",
  training: "js/training/training",
  checkpoints: "js/checkpoints/checkpoints",
  tensorboard: "js/tensorboard/tensorboard",
};
const scripts = { page: "js/page/page" };

const options = { outdir: "agent_widget/static", bundle: true, format: "esm", target: "es2022", logLevel: "info" };

// Minified too: every widget model carries its bundle in its state (anywidget's `_esm`),
// so a saved notebook holds one copy per viewer (a comparison's columns included);
// minified, each copy is 46% smaller (benchmarks/RESULTS.md, "Notebook size with viewers").
await build({
  ...options,
  minify: true,
  entryPoints: Object.entries(widgets).flatMap(([out, path]) => [
    { in: `${path}.ts`, out },
    { in: `${path}.css`, out },
  ]),
});
// A classic script, so it runs as soon as it is parsed, before the page's blocks are;
// minified, as it is copied into every exported page.
await build({
  ...options,
  entryPoints: Object.entries(scripts).map(([out, path]) => ({ in: `${path}.ts`, out })),
  format: "iife",
  minify: true,
});
