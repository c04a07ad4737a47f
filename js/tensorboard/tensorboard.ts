/**
 * The Agent tab's ES module: TensorBoard imports it in the tab's iframe and calls
 * `render()`. It lists the runs under the logdir and their episodes
 * (agent_widget/tensorboard/_plugin.py's `/runs`), and opens the one picked in the
 * notebook's own viewer (js/viewer/widget.ts), whose model speaks to the plugin over
 * HTTP (`http-model.ts`). The plugin's routes sit beside this module's URL.
 */
import widget from "../viewer/widget.ts";
import { episodeModel } from "./http-model.ts";
import { EpisodeTable, type EpisodeRow, type Runs } from "./table.ts";

const base = new URL(import.meta.url);

export async function render(): Promise<void> {
  const stylesheet = document.createElement("link");
  stylesheet.rel = "stylesheet";
  stylesheet.href = new URL("index.css", base).href;
  document.head.append(stylesheet);

  const root = document.createElement("div");
  root.className = "aw-tb";
  const status = document.createElement("p");
  status.className = "aw-tb-status";
  const shown = document.createElement("div");
  shown.className = "aw-tb-episode";
  let close: (() => void) | undefined;

  const open = async (row: EpisodeRow) => {
    close?.();
    close = undefined;
    shown.replaceChildren();
    status.textContent = `Opening ${row.path}…`;
    try {
      const model = await episodeModel(base, row.path);
      const el = document.createElement("div");
      shown.append(el);
      close = widget.render({ model, el });
      status.textContent = row.path;
    } catch (error) {
      status.textContent = (error as Error).message;
    }
  };
  const table = new EpisodeTable(root, (row) => void open(row));
  root.append(status, shown);
  document.body.append(root);

  status.textContent = "Reading the runs…";
  try {
    const response = await fetch(new URL("runs", base));
    if (!response.ok) throw new Error(await response.text());
    const runs = (await response.json()) as Runs;
    table.show(runs);
    const count = runs.runs.reduce((n, run) => n + run.episodes.length, 0);
    status.textContent = `${count} episode${count === 1 ? "" : "s"} in ${runs.runs.length} run${runs.runs.length === 1 ? "" : "s"}: pick one.`;
  } catch (error) {
    status.textContent = `The runs could not be read: ${(error as Error).message}`;
  }
}
