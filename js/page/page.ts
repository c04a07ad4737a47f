/**
 * The entry of a page made by `EpisodeViewer.to_html()`: the viewer, rendered into
 * the page's `#agent-widget` element, talking to a model that answers from the data
 * embedded in the page instead of to a kernel.
 */
import widget from "../viewer/widget.ts";
import { answer, pageState, readPageData } from "./answers.ts";
import { LocalModel } from "./local-model.ts";

const root = document.getElementById("agent-widget")!;
try {
  const data = readPageData(document.getElementById("agent-widget-data")!.textContent ?? "");
  const model = new LocalModel(pageState(data), (content) => answer(data, content));
  widget.render({ model, el: root });
} catch (error) {
  root.textContent = `This page could not show its episode: ${(error as Error).message}`;
  throw error;
}
