// Bundles each widget's entry (its folder's <name>.ts and <name>.css) into agent_widget/static/<name>.js
// and <name>.css, the files anywidget loads: widget (EpisodeViewer, in js/viewer/), compare (CompareViewer),
// leaderboard. The output names are what the Python classes load (and hatch_build.py's ENTRIES).
import { build } from "esbuild";

const entries = { widget: "js/viewer/widget", compare: "js/compare/compare", leaderboard: "js/leaderboard/leaderboard" };

await build({
  entryPoints: Object.entries(entries).flatMap(([out, path]) => [
    { in: `${path}.ts`, out },
    { in: `${path}.css`, out },
  ]),
  outdir: "agent_widget/static",
  bundle: true,
  format: "esm",
  target: "es2022",
  logLevel: "info",
});
