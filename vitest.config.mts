import { defineConfig } from "vitest/config";

// Front-end logic tests: pure modules, no DOM needed.
export default defineConfig({
  test: {
    include: ["js/**/*.test.ts"],
    environment: "node",
  },
});
