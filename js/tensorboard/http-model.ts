/**
 * The viewer's model in TensorBoard: the notebook's viewer (js/viewer/) talks to it as
 * to anywidget's model, and it carries the viewer's requests to the plugin's routes
 * (agent_widget/tensorboard/_plugin.py) instead of to a kernel. The state comes from
 * `/episode`; each request goes to `/message` without its id (so that equal requests
 * are one URL, which the browser's cache answers), and its replies come back with it.
 * A file that grew (a recording under way) gives the model its new length (`grow`).
 *
 * Example:
 *   const { model } = await episodeModel(base, "dqn/seed0/episode-000.rollout");
 *   const cleanup = widget.render({ model, el });
 */
import { LocalModel } from "../page/local-model.ts";
import type { Reply } from "../page/answers.ts";
import { unpacked } from "./packed.ts";

/** The error reply of each kind of request, as the viewer's modules expect it. */
const ERRORS: Record<string, string> = { chunks: "error", timeline: "timeline-error", panel: "panel-error" };

export type Fetch = (url: string) => Promise<Response>;

/** Requests the plugin answers: frame chunks, a stretch of the timeline, panel cards. */
const ANSWERED = new Set(["chunks", "timeline", "panel"]);

/** An episode opened: the viewer's model, the file's version, and why it shows no frames (replay refused or failed). */
export interface Opened {
  model: LocalModel;
  version: string;
  problem: string | null;
}

/** What `/episode` answers: the viewer's state of the file as it is now, and its version. */
interface EpisodeState {
  state: Record<string, unknown>;
  version: string;
  problem?: string | null;
}

/** The traits a file that grew changes, in this order: the view reads the series and summary as its length changes. */
const GROWN = ["series", "summary", "length"];

/** A model of the episode file `path` (relative to the logdir), routes under `base`. */
export async function episodeModel(base: URL, path: string, fetcher: Fetch = fetch): Promise<Opened> {
  const body = await episodeState(base, path, fetcher);
  const model = new LocalModel(new Map(Object.entries(body.state)), (content) => replies(base, path, content, fetcher));
  return { model, version: body.version, problem: body.problem ?? null };
}

/**
 * `model` given the state of the file `path` as it is now (a recording grew since it was
 * opened): the view shows the positions written since. Returns the file's version.
 */
export async function grow(model: LocalModel, base: URL, path: string, fetcher: Fetch = fetch): Promise<string> {
  const body = await episodeState(base, path, fetcher);
  for (const name of GROWN) model.set(name, body.state[name]);
  return body.version;
}

async function episodeState(base: URL, path: string, fetcher: Fetch): Promise<EpisodeState> {
  const response = await fetcher(route(base, "episode", { path }));
  if (!response.ok) throw new Error(`the episode could not be opened: ${await response.text()}`);
  return unpacked(await response.arrayBuffer()) as EpisodeState;
}

/** The plugin's replies to one of the viewer's requests, as a kernel would send them. */
export async function replies(base: URL, path: string, content: unknown, fetcher: Fetch = fetch): Promise<Reply[]> {
  const { id, ...request } = content as { id?: unknown; type?: unknown };
  if (typeof request.type !== "string" || !ANSWERED.has(request.type)) return [];
  const failed = (message: string): Reply[] => [[{ type: ERRORS[request.type as string], id, message }, []]];
  let response: Response;
  try {
    response = await fetcher(route(base, "message", { path, m: JSON.stringify(request) }));
  } catch (error) {
    return failed(`TensorBoard did not answer: ${(error as Error).message}`);
  }
  if (!response.ok) return failed(await response.text());
  const body = unpacked(await response.arrayBuffer()) as { replies: [Record<string, unknown>, DataView[]][] };
  return body.replies.map(([message, buffers]): Reply => [{ ...message, id }, buffers]);
}

export function route(base: URL, name: string, params: Record<string, string>): string {
  return new URL(`${name}?${new URLSearchParams(params)}`, base).href;
}
