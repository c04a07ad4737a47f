/**
 * A page's checkpoint viewer, answering its own choices as the kernel would: choosing
 * a checkpoint or a seed shows that episode (one of the page's child viewers) at the
 * episode step asked for, its end when it ended sooner (and says so), and the step
 * where it first acts differently from the checkpoint before. A choice the page was
 * exported without says so and leaves the episode shown.
 */
import type { Model } from "../shared/types.ts";

/** The page's episodes by "<checkpoint index>/<seed>": their child and divergence. */
export type CheckpointEpisodes = Record<string, { child: number; divergence: number | null }>;

export function followChoices(model: Model, children: readonly Model[], episodes: CheckpointEpisodes): void {
  const shown = () => String(model.get("episode") ?? "").replace(/^IPY_MODEL_/, "");
  let wanted = Number(children[Number(shown())]?.get("step")) || 0;
  children.forEach((child, i) =>
    child.on("change:step", () => {
      if (shown() === String(i)) wanted = Number(child.get("step")) || 0;
    }),
  );
  const show = () => {
    const index = Number(model.get("checkpoint")) || 0;
    const seed = Number(model.get("seed")) || 0;
    const entry = episodes[`${index}/${seed}`];
    if (entry === undefined) {
      const steps = model.get("training_steps") as unknown[];
      model.set("message", `training step ${String(steps?.[index])}, seed ${seed}: not in this page (exported without it)`);
      return;
    }
    const child = children[entry.child];
    const last = Math.max(0, (Number(child.get("length")) || 1) - 1);
    const asked = wanted;
    child.set("step", Math.min(asked, last));
    wanted = asked;
    model.set("divergence", entry.divergence);
    model.set("message", asked > last ? `t = ${asked} is past the end of this episode: it ended at t = ${last}, shown` : "");
    model.set("episode", `IPY_MODEL_${entry.child}`);
  };
  model.on("change:checkpoint", show);
  model.on("change:seed", show);
}
