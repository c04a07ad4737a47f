import { describe, expect, it } from "vitest";
import { deepLink, hashKeys, linked, scalarsLink } from "./links.ts";

const page = new URL("http://tb.test:6006/?darkMode=true#agent&p.agent.t=3");

describe("links", () => {
  it("names an episode at a step by the tab's hash keys, and reads them back", () => {
    const link = deepLink(page, "ppo/seed 0/episode-001.rollout", 40);
    expect(link).toBe(
      "http://tb.test:6006/#agent&p.agent.run=ppo%2Fseed%200&p.agent.episode=episode-001.rollout&p.agent.t=40",
    );
    // TensorBoard hands the plugin its keys decoded, without their prefix.
    expect(linked({ run: "ppo/seed 0", episode: "episode-001.rollout", t: "40" })).toEqual({
      path: "ppo/seed 0/episode-001.rollout",
      t: 40,
    });
  });

  it("reads a pasted link's keys from the hash as TensorBoard does", () => {
    const link = new URL(deepLink(page, "ppo/seed 0/episode-001.rollout", 40));
    expect(hashKeys(link.hash)).toEqual({ run: "ppo/seed 0", episode: "episode-001.rollout", t: "40" });
    expect(hashKeys("#scalars&tagFilter=x&p.agent.t=%E0%A4%A")).toEqual({});
  });

  it("links an episode in the logdir itself by the run '.'", () => {
    expect(deepLink(page, "a.rollout", 0)).toContain("p.agent.run=.&p.agent.episode=a.rollout");
    expect(linked({ run: ".", episode: "a.rollout", t: "0" })).toEqual({ path: "a.rollout", t: 0 });
  });

  it("links nothing without an episode, and step 0 for a step that is no count", () => {
    expect(linked({})).toBeUndefined();
    expect(linked(null)).toBeUndefined();
    expect(linked({ run: "a", episode: "../b.rollout" })).toBeUndefined();
    expect(linked({ run: "a", episode: "b.rollout", t: "-4" })).toEqual({ path: "a/b.rollout", t: 0 });
  });

  it("filters the Time Series dashboard to exactly one run, its name's specials escaped", () => {
    const link = new URL(scalarsLink(page, "CartPole-v1__ppo__1"));
    expect(link.hash).toBe("#timeseries");
    expect(link.searchParams.get("runFilter")).toBe("^CartPole-v1__ppo__1$");
    expect(new URL(scalarsLink(page, "a.b(1)")).searchParams.get("runFilter")).toBe("^a\\.b\\(1\\)$");
  });
});
