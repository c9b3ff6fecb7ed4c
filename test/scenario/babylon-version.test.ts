// Which Babylon the scenario tests run on: the root's pinned devDependency under `npm test`, compat/babylon8's
// under `npm run test:compat` (its config sets FBBIK_EXPECT_BABYLON). Fails if the compat alias did not take.
import { readFileSync } from "node:fs";
import { AbstractEngine } from "@babylonjs/core/Engines/abstractEngine.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { describe, expect, it } from "vitest";

const rootPackage = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
const expected: string = process.env.FBBIK_EXPECT_BABYLON ?? rootPackage.devDependencies["@babylonjs/core"];

describe("the Babylon under test", () => {
  it(`is @babylonjs/core ${expected}`, () => {
    expect(AbstractEngine.Version).toBe(expected);
    expect(NullEngine.NpmPackage).toBe(`babylonjs@${expected}`);
  });

  it("loads the glTF loader against that same copy", async () => {
    // (an earlier test file of the same worker may have imported the loader already: files share modules)
    const { SceneLoader } = await import("@babylonjs/core/Loading/sceneLoader.js");
    await import("@babylonjs/loaders/glTF/2.0/index.js");
    // the loader registers with the SceneLoader of the core it imports: found here only if both are one copy
    expect(SceneLoader.IsPluginForExtensionAvailable(".glb")).toBe(true);
  });
});
