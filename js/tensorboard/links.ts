/**
 * Links between the Agent tab and the rest of TensorBoard, in TensorBoard's own URL
 * forms: an episode at a step as the tab's hash keys (TensorBoard hands a plugin the
 * keys `p.<plugin>.*`: `#agent&p.agent.run=...&p.agent.episode=...&p.agent.t=...`),
 * and a run's scalars as the Time Series dashboard filtered to that run (`runFilter`,
 * a regular expression over run names).
 *
 * Example:
 *   deepLink(page, "ppo/seed0/episode-001.rollout", 40)
 *   // "http://host:6006/#agent&p.agent.run=ppo%2Fseed0&p.agent.episode=episode-001.rollout&p.agent.t=40"
 */

/** The episode and step a deep link names. */
export interface Linked {
  path: string;
  t: number;
}

/** A link to the episode file `path` (relative to the logdir) at step `t`, on `page`. */
export function deepLink(page: URL, path: string, t: number): string {
  const cut = path.lastIndexOf("/");
  const keys = { run: cut < 0 ? "." : path.slice(0, cut), episode: path.slice(cut + 1), t: String(t) };
  const hash = Object.entries(keys).map(([key, value]) => `p.agent.${key}=${encodeURIComponent(value)}`);
  return `${pageBase(page)}#${["agent", ...hash].join("&")}`;
}

/** What the hash keys TensorBoard hands the plugin (`{run, episode, t}`) link to, if anything. */
export function linked(keys: unknown): Linked | undefined {
  const { run, episode, t } = (keys ?? {}) as Record<string, unknown>;
  if (typeof episode !== "string" || episode === "" || episode.includes("/")) return undefined;
  const folder = typeof run === "string" && run !== "" && run !== "." ? `${run}/` : "";
  const step = Number(t);
  return { path: `${folder}${episode}`, t: Number.isInteger(step) && step >= 0 ? step : 0 };
}

/**
 * The `p.agent.*` keys of a TensorBoard URL's hash, read as TensorBoard reads its hash
 * (`&`-separated `key=value`, each decoded). TensorBoard 2.21's own answer to a
 * plugin's `GetURLPluginData` holds only the keys set since the page loaded (it reads
 * the hash on a change, not at load), so a deep link pasted into a new tab needs this.
 */
export function hashKeys(hash: string): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const pair of hash.replace(/^#/, "").split("&")) {
    const parts = pair.split("=");
    if (parts.length !== 2 || !parts[0].startsWith("p.agent.")) continue;
    try {
      keys[decodeURIComponent(parts[0]).slice("p.agent.".length)] = decodeURIComponent(parts[1]);
    } catch {
      // a malformed escape: not a key of ours
    }
  }
  return keys;
}

/** The Time Series dashboard showing only the scalars of TensorBoard run `run`. */
export function scalarsLink(page: URL, run: string): string {
  const filter = `^${run.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`;
  return `${pageBase(page)}?${new URLSearchParams({ runFilter: filter })}#timeseries`;
}

function pageBase(page: URL): string {
  return `${page.origin}${page.pathname}`;
}
