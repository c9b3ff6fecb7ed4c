/**
 * Where a warning goes: to `onWarningObservable` while someone observes it, else to Babylon's `Logger.Warn`, once
 * per cause — the same rule for FullBodyBipedIK (and what hooks on it) as for the family's components, so a
 * Playground user without an observer still sees a typo or a NaN weight. UAL, in the repository.
 */
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { FullBodyBipedIK, LimbIK } from "../../src/index.js";
import { type BipedReferences, resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";

let m: LoadedModel;
let refs: BipedReferences;
let logged: string[] = [];

beforeAll(async () => {
  m = await loadModel("UAL");
  m.scene.render();
  refs = resolveBipedReferences(m.skeleton).references;
});
afterAll(() => m.dispose());
beforeEach(() => {
  logged = [];
  vi.spyOn(Logger, "Warn").mockImplementation((msg: unknown) => void logged.push(String(msg)));
});
afterEach(() => vi.restoreAllMocks());

/** The logged lines that contain `text`. */
const lines = (text: string): string[] => logged.filter((l) => l.includes(text));

describe("a warning nobody observes is logged once", () => {
  it("FullBodyBipedIK: an option typo at create, then a NaN weight in a frame", () => {
    // without the rule the FBBIK kept both in warningsRaised only: 0 lines
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton, { iteration: 3 } as never);
    try {
      expect(lines('unknown option "iteration"')).toHaveLength(1);
      ik.solver.ikPositionWeight = Number.NaN;
      m.scene.render();
      m.scene.render();
      expect(lines("ikPositionWeight is NaN")).toHaveLength(1);
      expect(ik.warningsRaised.map((w) => w.cause)).toContain("ikPositionWeight");
    } finally {
      ik.dispose();
    }
  });

  it("FullBodyBipedIK: an observed warning goes to the observer, not the log", () => {
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const seen: string[] = [];
    ik.onWarningObservable.add((w) => void seen.push(w.cause));
    try {
      ik.solver.ikPositionWeight = Number.NaN;
      m.scene.render();
      expect(seen).toEqual(["ikPositionWeight"]);
      expect(lines("ikPositionWeight")).toEqual([]);
    } finally {
      ik.dispose();
    }
  });

  it("LimbIK: the same rule", () => {
    const leg = LimbIK.create(m.scene, refs.leftThigh, refs.leftCalf, refs.leftFoot, { maxIteration: 3 } as never);
    try {
      expect(lines('unknown option "maxIteration"')).toHaveLength(1);
      const target = new TransformNode("gone", m.scene);
      leg.target = target;
      target.dispose();
      m.scene.render();
      m.scene.render();
      const gone = logged.filter((l) => !l.includes("maxIteration"));
      expect(gone).toHaveLength(1);
      expect(gone[0]).toContain("LimbIK");
    } finally {
      leg.dispose();
    }
  });
});
