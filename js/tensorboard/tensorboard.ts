/**
 * The Agent tab's ES module: TensorBoard imports it in the tab's iframe and calls
 * `render()`. It lists the runs under the logdir and their episodes
 * (agent_widget/tensorboard/_plugin.py's `/runs`), again whenever TensorBoard reloads
 * its data, and opens the one picked in the notebook's own viewer (js/viewer/widget.ts),
 * whose model speaks to the plugin over HTTP (`http-model.ts`). A deep link
 * (`links.ts`) opens its episode at its step; the link to the step shown sits above
 * the viewer. A recording under way grows in the viewer on each reload, and its
 * finished file takes its place (`follow.ts`). The plugin's routes sit beside this
 * module's URL.
 */
import widget from "../viewer/widget.ts";
import { TensorBoardHost } from "./host.ts";
import { changeOf, finishedPath } from "./follow.ts";
import { episodeModel, grow } from "./http-model.ts";
import type { LocalModel } from "../page/local-model.ts";
import { deepLink, hashKeys, linked, scalarsLink } from "./links.ts";
import { EpisodeTable, type Runs } from "./table.ts";

const base = new URL(import.meta.url);

class AgentTab {
  private readonly status = document.createElement("p");
  private readonly problem = document.createElement("p");
  private readonly link = document.createElement("a");
  private readonly shown = document.createElement("div");
  private readonly table: EpisodeTable;
  private close: (() => void) | undefined;
  /** The episode shown: its file, the version it was read at, its model. */
  private episode: { path: string; version: string; model: LocalModel } | undefined;

  constructor(
    el: HTMLElement,
    private readonly page: URL,
  ) {
    const root = document.createElement("div");
    root.className = "aw-tb";
    this.status.className = "aw-tb-status";
    this.problem.className = "aw-tb-problem";
    this.link.className = "aw-tb-link";
    this.link.target = "_top";
    this.shown.className = "aw-tb-episode";
    this.table = new EpisodeTable(root, (row) => void this.open(row.path), (run) => scalarsLink(page, run));
    const bar = document.createElement("div");
    bar.className = "aw-tb-bar";
    bar.append(this.status, this.link);
    root.append(this.problem, bar, this.shown);
    el.append(root);
  }

  /** Reads the runs again (TensorBoard reloaded: new episodes, a recording grown). */
  async refresh(): Promise<void> {
    try {
      const response = await fetch(new URL("runs", base));
      if (!response.ok) throw new Error(await response.text());
      const runs = (await response.json()) as Runs;
      this.table.show(runs);
      this.problem.textContent = runs.panels_problem ?? "";
      if (this.close === undefined) this.status.textContent = summary(runs);
      await this.follow(runs);
    } catch (error) {
      this.status.textContent = `The runs could not be read: ${(error as Error).message}`;
    }
  }

  /** The episode shown as its file is now: grown (a recording under way), or finished under its own name. */
  private async follow(runs: Runs): Promise<void> {
    const episode = this.episode;
    if (episode === undefined) return;
    const change = changeOf(runs, episode.path, episode.version);
    if (change.kind === "changed") {
      const version = await grow(episode.model, base, episode.path);
      if (this.episode === episode) episode.version = version;
    } else if (change.kind === "finished") {
      await this.open(change.path, Number(episode.model.get("step")));
    }
  }

  /**
   * Shows the episode file `path` in the viewer, at step `t`; a recording's `.part` that
   * is gone (a deep link from while it was recorded), as the file it became.
   */
  async open(path: string, t = 0): Promise<void> {
    this.close?.();
    this.close = undefined;
    this.episode = undefined;
    this.shown.replaceChildren();
    this.link.removeAttribute("href");
    this.link.textContent = "";
    this.status.textContent = `Opening ${path}…`;
    try {
      const { model, version, problem } = await episodeModel(base, path).catch((error: Error) => {
        const finished = finishedPath(path);
        if (finished === undefined) throw error;
        path = finished;
        return episodeModel(base, finished);
      });
      model.set("step", Math.min(t, Number(model.get("length")) - 1));
      const showLink = () => {
        this.link.href = deepLink(this.page, path, Number(model.get("step")));
        this.link.textContent = "Link to this step";
      };
      model.on("change:step", showLink);
      showLink();
      const el = document.createElement("div");
      this.shown.append(el);
      this.close = widget.render({ model, el });
      this.episode = { path, version, model };
      this.status.textContent = problem === null ? path : `${path}: ${problem}`;
      el.querySelector<HTMLElement>(".agent-widget")?.focus();
    } catch (error) {
      this.status.textContent = (error as Error).message;
    }
  }
}

function summary(runs: Runs): string {
  const episodes = runs.runs.reduce((n, run) => n + run.episodes.length, 0);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  return `${plural(episodes, "episode")} in ${plural(runs.runs.length, "run")}: pick one.`;
}

/** The TensorBoard page around the iframe (same origin), for links into it. */
function tensorBoardPage(): URL {
  try {
    return new URL(window.parent.location.href);
  } catch {
    return new URL(document.referrer || window.location.href);
  }
}

function parentHash(): string {
  try {
    return window.parent.location.hash;
  } catch {
    return "";
  }
}

export async function render(): Promise<void> {
  const stylesheet = document.createElement("link");
  stylesheet.rel = "stylesheet";
  stylesheet.href = new URL("index.css", base).href;
  document.head.append(stylesheet);
  const tab = new AgentTab(document.body, tensorBoardPage());
  const host = new TensorBoardHost(window.parent);
  host.listen("experimental.DataReloaded", () => tab.refresh());
  // A deep link's episode opens as soon as TensorBoard says which; the table loads meanwhile.
  void host.send("experimental.GetURLPluginData").then((keys) => {
    const target = linked(keys) ?? linked(hashKeys(parentHash()));
    if (target !== undefined) void tab.open(target.path, target.t);
  });
  await tab.refresh();
}
