// Bundles js/widget.ts (and js/widget.css) into agent_widget/static/, the files anywidget loads.
import { build } from "esbuild";

await build({
  entryPoints: ["js/widget.ts", "js/widget.css"],
  outdir: "agent_widget/static",
  bundle: true,
  format: "esm",
  target: "es2022",
  logLevel: "info",
});
