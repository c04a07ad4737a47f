import { describe, expect, it } from "vitest";
import { ByteLRU } from "./cache.ts";

const lru = (budget: number) => new ByteLRU<string, Uint8Array>(budget, (v) => v.byteLength);
const bytes = (n: number) => new Uint8Array(n);

describe("ByteLRU", () => {
  it("counts the bytes of what it holds", () => {
    const cache = lru(100);
    cache.set("a", bytes(30));
    cache.set("b", bytes(20));
    expect(cache.bytes).toBe(50);
    cache.delete("a");
    expect(cache.bytes).toBe(20);
  });

  it("evicts the least recently stored entries once the byte budget is exceeded", () => {
    const cache = lru(100);
    cache.set("a", bytes(40));
    cache.set("b", bytes(40));
    cache.set("c", bytes(40));
    expect([...cache.keys()]).toEqual(["b", "c"]);
    expect(cache.bytes).toBe(80);
  });

  it("keeps an entry it was asked for: get makes it the most recently used", () => {
    const cache = lru(100);
    cache.set("a", bytes(40));
    cache.set("b", bytes(40));
    cache.get("a");
    cache.set("c", bytes(40));
    expect([...cache.keys()]).toEqual(["a", "c"]);
  });

  it("does not change recency on peek", () => {
    const cache = lru(100);
    cache.set("a", bytes(40));
    cache.set("b", bytes(40));
    cache.peek("a");
    cache.set("c", bytes(40));
    expect(cache.has("a")).toBe(false);
  });

  it("evicts as many entries as needed for one large value", () => {
    const cache = lru(100);
    for (const key of ["a", "b", "c", "d"]) cache.set(key, bytes(25));
    cache.set("big", bytes(90));
    expect([...cache.keys()]).toEqual(["big"]);
  });

  it("keeps a value larger than the whole budget, alone", () => {
    const cache = lru(100);
    cache.set("a", bytes(10));
    cache.set("huge", bytes(150));
    expect([...cache.keys()]).toEqual(["huge"]);
    expect(cache.bytes).toBe(150);
  });

  it("replaces a key's value and its byte count", () => {
    const cache = lru(100);
    cache.set("a", bytes(10));
    cache.set("a", bytes(30));
    expect(cache.size).toBe(1);
    expect(cache.bytes).toBe(30);
  });

  it("deletes the entries a predicate selects", () => {
    const cache = lru(100);
    for (const key of ["a1", "b1", "a2"]) cache.set(key, bytes(10));
    cache.deleteWhere((key) => key.startsWith("a"));
    expect([...cache.keys()]).toEqual(["b1"]);
    expect(cache.bytes).toBe(10);
  });

  it("evicts the least recently used entries down to a smaller budget, the newest kept", () => {
    const cache = lru(100);
    for (const key of ["a", "b", "c"]) cache.set(key, bytes(30));
    cache.resize(60);
    expect([...cache.keys()]).toEqual(["b", "c"]);
    cache.resize(10);
    expect([...cache.keys()]).toEqual(["c"]);
    expect(cache.budget).toBe(10);
  });

  it("hands each value it evicts for its budget to onEvict, not those deleted", () => {
    const evicted: string[] = [];
    const cache = new ByteLRU<string, Uint8Array>(100, (v) => v.byteLength, (v) => evicted.push(String(v.byteLength)));
    cache.set("a", bytes(40));
    cache.set("b", bytes(50));
    cache.delete("b");
    cache.set("c", bytes(70));
    expect(evicted).toEqual(["40"]);
  });
});
