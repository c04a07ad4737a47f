/**
 * The entry of a page made by `to_html()`: the viewer (or the comparison and its
 * viewers, or the checkpoint viewer and its episodes), rendered into the page's `#agent-widget` element, talking to models that
 * answer from the data embedded in the page instead of to a kernel.
 */
import checkpoints from "../checkpoints/checkpoints.ts";
import compare from "../compare/compare.ts";
import type { WidgetManager } from "../shared/children.ts";
import widget from "../viewer/widget.ts";
import { answer, type EpisodeData, pageState, readPageData } from "./answers.ts";
import { documentBlocks } from "./blocks.ts";
import { followChoices } from "./checkpoint-choices.ts";
import { LocalModel } from "./local-model.ts";

function episodeModel(data: EpisodeData): LocalModel {
  const blocks = documentBlocks(data.id);
  return new LocalModel(pageState(data.state), (content) => answer(data, blocks, content));
}

/** A comparison's or checkpoint viewer's children, by id ("0", "1", ...); the comparison draws them itself. */
function childManager(children: LocalModel[]): WidgetManager {
  return { get_model: async (id: string) => children[Number(id)] };
}

const root = document.getElementById("agent-widget")!;
try {
  const data = readPageData(document.getElementById("agent-widget-data")!.textContent ?? "");
  if (data.widget === "compare") {
    const manager = childManager(data.children.map(episodeModel));
    compare.render({ model: new LocalModel(pageState(data.state), () => [], manager), el: root });
  } else if (data.widget === "checkpoints") {
    const children = data.children.map(episodeModel);
    const model = new LocalModel(pageState(data.state), () => [], childManager(children));
    followChoices(model, children, data.episodes);
    checkpoints.render({ model, el: root });
  } else {
    widget.render({ model: episodeModel(data), el: root });
  }
} catch (error) {
  root.textContent = `This page could not show its episode: ${(error as Error).message}`;
  throw error;
}
