// Bundles each widget's entry (js/<name>.ts and js/<name>.css) into agent_widget/static/,
// the files anywidget loads: widget (EpisodeViewer), compare (CompareViewer), leaderboard.
import { build } from "esbuild";

await build({
  entryPoints: ["widget", "compare", "leaderboard"].flatMap((name) => [`js/${name}.ts`, `js/${name}.css`]),
  outdir: "agent_widget/static",
  bundle: true,
  format: "esm",
  target: "es2022",
  logLevel: "info",
});
