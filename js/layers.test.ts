// The front end's folders import only downwards (js/README.md): a folder may import
// itself and the folders listed for it, nothing else.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const MAY_IMPORT: Record<string, string[]> = {
  shared: [],
  frames: ["shared"],
  panels: ["frames", "shared"],
  viewer: ["panels", "frames", "shared"],
  compare: ["viewer", "shared"],
  leaderboard: ["compare", "viewer", "shared"],
  arena: ["leaderboard", "viewer", "shared"],
  moments: ["viewer", "shared"],
  training: ["viewer", "shared"],
  checkpoints: ["compare", "viewer", "shared"],
  page: ["checkpoints", "viewer", "compare", "shared"],
  tensorboard: ["page", "viewer"],
};

const root = dirname(new URL(import.meta.url).pathname);

function sources(folder: string): string[] {
  return readdirSync(join(root, folder))
    .filter((name) => /\.(ts|css)$/.test(name))
    .map((name) => join(root, folder, name));
}

function importedFolders(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:from|import)\s+["'](\.[^"']+)["']/g)].map((m) => m[1]);
  return specifiers.map((spec) => relative(root, join(dirname(file), spec)).split("/")[0]);
}

describe("js/ layers", () => {
  it("has a rule for every folder", () => {
    const folders = readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.sort()).toEqual(Object.keys(MAY_IMPORT).sort());
  });

  for (const [folder, allowed] of Object.entries(MAY_IMPORT)) {
    it(`${folder}/ imports only ${[folder, ...allowed].join(", ")}`, () => {
      const imports = sources(folder).flatMap((file) => importedFolders(file));
      expect(imports.length).toBeGreaterThan(0);
      for (const imported of imports) expect([folder, ...allowed]).toContain(imported);
    });
  }
});
