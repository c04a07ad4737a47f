/**
 * A page's blocks, read from their script elements as the browser parses them. The
 * page's script runs before the blocks are parsed (so the first frame does not wait
 * for the whole file); a block element is whole once another element follows it (the
 * parser has moved past its text) or the document is parsed.
 */
import type { Block, BlockSource } from "./answers.ts";

/** Blocks parsed from their elements, the last few kept. */
const KEEP = 4;

export function documentBlocks(id: string): BlockSource {
  const parsed = new Map<number, Promise<Block>>();
  return (b) => {
    let block = parsed.get(b);
    if (block === undefined) {
      block = whole(`agent-widget-block-${id}-${b}`).then((text) => JSON.parse(text) as Block);
      parsed.set(b, block);
      if (parsed.size > KEEP) parsed.delete(parsed.keys().next().value!);
    }
    return block;
  };
}

/** The text of element `elementId` once the parser is past it. */
function whole(elementId: string): Promise<string> {
  const ready = () => {
    const element = document.getElementById(elementId);
    const done = element !== null && (element.nextElementSibling !== null || document.readyState !== "loading");
    return done ? element.textContent ?? "" : undefined;
  };
  const text = ready();
  if (text !== undefined) return Promise.resolve(text);
  return new Promise((resolve, reject) => {
    const check = () => {
      const text = ready();
      if (text !== undefined) {
        observer.disconnect();
        document.removeEventListener("DOMContentLoaded", check);
        resolve(text);
      } else if (document.readyState !== "loading") {
        observer.disconnect();
        reject(new Error(`the page has no ${elementId}`));
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { childList: true });
    document.addEventListener("DOMContentLoaded", check);
  });
}
