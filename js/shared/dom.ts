/** Small DOM builders shared by the controls and the panel cards. */

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  element.className = className;
  return element;
}

export function button(className: string, text: string, title: string): HTMLButtonElement {
  const b = el("button", className);
  b.type = "button";
  b.textContent = text;
  b.title = title;
  return b;
}

export function input(className: string, type: string): HTMLInputElement {
  const i = el("input", className);
  i.type = type;
  return i;
}
