/**
 * Widgets shown inside another widget (the comparison's viewers, the leaderboard's
 * opened viewer). A trait holding a widget reference ("IPY_MODEL_<id>") is resolved
 * to the child's model through the widget manager anywidget hands to each model
 * (`widget_manager.get_model`), and the child is drawn by calling its own render
 * function on an element made here.
 *
 * Why not `widget_manager.create_view`: only the Jupyter managers have it; marimo's
 * has `get_model` alone, and an exported page has no manager at all. Rendering the
 * model ourselves works wherever anywidget runs.
 */
import type { Model } from "./types.ts";

/** A mounted child widget: its element to place, and `remove()` to dispose of it. */
export interface ChildView {
  el: HTMLElement;
  remove(): void;
}

/** The one method of a widget manager the front end uses (marimo's has only this). */
export interface WidgetManager {
  get_model(id: string): Promise<Model>;
}

/** A widget's render function, as anywidget calls it: returns its cleanup, if any. */
export type Render = (props: { model: Model; el: HTMLElement }) => void | (() => void);

function manager(model: Model): WidgetManager {
  const found = (model as Model & { widget_manager?: WidgetManager }).widget_manager;
  if (typeof found?.get_model !== "function") throw new Error("this front end gives widgets no widget manager");
  return found;
}

/** The model a widget reference names. */
export function childModel(model: Model, ref: string): Promise<Model> {
  return manager(model).get_model(ref.replace(/^IPY_MODEL_/, ""));
}

/** `child` drawn by `render` into a new element; `remove()` runs the render's cleanup once. */
export function mountChild(child: Model, render: Render): ChildView {
  const el = document.createElement("div");
  el.className = "aw-child";
  const cleanup = render({ model: child, el });
  let removed = false;
  return {
    el,
    remove() {
      if (removed) return;
      removed = true;
      if (typeof cleanup === "function") cleanup();
      el.remove();
    },
  };
}

/**
 * The child model a widget-reference trait names, followed as the trait changes:
 * `latest()` resolves the trait's reference now, giving `null` when it names no
 * widget and `undefined` when the trait changed again while the model was looked up
 * (that answer is stale: the newer call draws).
 */
export class ChildTrait {
  private version = 0;

  constructor(
    private readonly model: Model,
    private readonly name: string,
  ) {}

  async latest(): Promise<Model | null | undefined> {
    const version = ++this.version;
    const ref = this.model.get(this.name);
    const found = typeof ref === "string" ? await childModel(this.model, ref) : null;
    return version === this.version ? found : undefined;
  }
}

/**
 * The widget a reference trait names, shown in `where` and replaced when the trait
 * changes (the leaderboard's, the arena's and the moments' opened viewer): `show()`
 * on each change, `remove()` when the view goes.
 */
export class OpenedChild {
  private readonly trait: ChildTrait;
  private view: ChildView | undefined;

  constructor(
    model: Model,
    name: string,
    private readonly where: HTMLElement,
    private readonly renderOf: (child: Model) => Render,
  ) {
    this.trait = new ChildTrait(model, name);
  }

  async show(): Promise<void> {
    const child = await this.trait.latest();
    if (child === undefined) return;
    this.view?.remove();
    this.view = child === null ? undefined : mountChild(child, this.renderOf(child));
    if (this.view !== undefined) this.where.appendChild(this.view.el);
  }

  remove(): void {
    this.view?.remove();
    this.view = undefined;
  }
}
