/**
 * Bad input every frame, on Mannequin (glTF: TransformNodes) and on the synthetic biped as plain Bones
 * skinning a moved, turned, ×2 mesh. For every bad value: no exception escapes a frame, every bone stays
 * finite, the pose equals the pose of the same frame with the bad input left out (it is ignored), each
 * cause is warned exactly once on onWarningObservable, and good frames give the good pose again (the next one, or
 * within a few where a usable but different value changed the bend: the natural-side fold's memory).
 * Rows are checked against docs/ROBUSTNESS.md (section "input").
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { GrounderFBBIK, GrounderSpineEffector } from "../../src/effectors/grounding/grounder-fbbik.js";
import type { GroundingRaycast } from "../../src/effectors/grounding/grounding-common.js";
import { BodyTilt } from "../../src/effectors/modifiers/body-tilt.js";
import { OffsetPose } from "../../src/effectors/modifiers/offset-pose.js";
import { FullBodyBipedEffector } from "../../src/solver/biped-bones.js";
import type { BabylonEffector } from "../../src/babylon/babylon-effector.js";
import { loadModel, proceduralIdle } from "../helpers/babylon-scene.js";
import { Random } from "../helpers/random.js";
import { boneWorldPosition, bonesFinite, characterSize } from "./common.js";
import { ReportSection, bound, staleMessage, within } from "./report.js";
import { RigSpec, buildRig } from "./rig-builder.js";

const report = new ReportSection("input");
const open: { dispose(): void }[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** A character to feed bad input to. */
interface Subject {
  kind: string;
  scene: Scene;
  skeleton: Skeleton;
  worldPos(b: Bone): Vector3;
  size: number;
  /** Loaded model parts for the cases that need them. */
  model?: Awaited<ReturnType<typeof loadModel>>;
}

const KINDS = ["Mannequin", "plain Bones"] as const;
type Kind = (typeof KINDS)[number];

async function subject(kind: Kind): Promise<Subject> {
  if (kind === "Mannequin") {
    const m = await loadModel("Mannequin");
    open.push(m);
    const worldPos = (b: Bone) => boneWorldPosition(b);
    m.scene.render();
    return {
      kind,
      scene: m.scene,
      skeleton: m.skeleton,
      worldPos,
      size: characterSize(m.skeleton, worldPos),
      model: m,
    };
  }
  const rig = buildRig(RigSpec.biped(), {
    linked: false,
    withMesh: true,
    placement: {
      position: new Vector3(2, 0.5, -1),
      rotation: Quaternion.RotationAxis(Vector3.Up(), 0.8),
      scaling: new Vector3(2, 2, 2),
    },
  });
  open.push(rig);
  return {
    kind,
    scene: rig.scene,
    skeleton: rig.skeleton,
    worldPos: rig.worldPos,
    size: characterSize(rig.skeleton, rig.worldPos),
  };
}

/** Every bone's world position, flattened. */
function pose(s: Subject): number[] {
  return s.skeleton.bones.flatMap((b) => {
    const p = s.worldPos(b);
    return [p.x, p.y, p.z];
  });
}

/** Largest difference between two poses over the character's size. */
function poseDiff(a: number[], b: number[], size: number): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m / size;
}

/** The good input every case starts from: the left hand on a reachable target, the right foot pinned. */
interface Good {
  hand: Vector3;
  foot: Vector3;
  footRotation: Quaternion;
  rest: { position: Vector3; rotation: Quaternion }[];
}

function captureGood(ik: FullBodyBipedIK, s: Subject): Good {
  const r = ik.references;
  const shoulder = s.worldPos(r.leftUpperArm);
  const hand = s.worldPos(r.leftHand);
  return {
    hand: Vector3.Lerp(shoulder, hand, 0.7).add(new Vector3(0, 0.08 * s.size, 0)),
    foot: ik.solver.rightFootEffector.position.clone(),
    footRotation: ik.solver.rightFootEffector.rotation.clone(),
    rest: ik.solver.effectors.map((e) => ({ position: e.position.clone(), rotation: e.rotation.clone() })),
  };
}

/** Resets every effector to the good input. */
function applyGood(ik: FullBodyBipedIK, g: Good): void {
  ik.solver.ikPositionWeight = 1;
  ik.solver.iterations = 4;
  ik.solver.effectors.forEach((e, i) => {
    e.target = null;
    e.position.copyFrom(g.rest[i]!.position);
    e.rotation.copyFrom(g.rest[i]!.rotation);
    e.positionWeight = 0;
    e.rotationWeight = 0;
    e.maintainRelativePositionWeight = 0;
    e.positionOffset.setAll(0);
  });
  for (const c of ik.solver.limbChains) {
    c.bendConstraint.bendGoal = null;
    c.bendConstraint.weight = 0;
    c.pull = 1;
    c.reach = 0.1;
    c.push = 0;
    c.pushParent = 0;
  }
  ik.solver.leftHandEffector.position.copyFrom(g.hand);
  ik.solver.leftHandEffector.positionWeight = 1;
  ik.solver.rightFootEffector.position.copyFrom(g.foot);
  ik.solver.rightFootEffector.rotation.copyFrom(g.footRotation);
  ik.solver.rightFootEffector.positionWeight = 1;
  ik.solver.rightFootEffector.rotationWeight = 1;
}

/** One bad value: set every frame by `bad`; `same` sets the input it must be equivalent to (after the good input). */
interface Sub {
  label: string;
  bad: (ik: FullBodyBipedIK) => void;
  same: (ik: FullBodyBipedIK) => void;
  /** Warning cause expected (null: none, the value is usable). */
  cause: string | null;
}

/** Good frames allowed for the pose to come back after a usable but different input. */
const BACK_FRAMES = 20;

/** How the pose came back: on the next good frame, or within a few (the fold's memory). */
const normalAgain = (frames: number): string =>
  frames <= 1 ? "next frame normal" : `normal again within ${frames} good frames (the natural-side fold's memory)`;

/**
 * Runs the subcases on one fresh IK per subject: from the good pose, two bad frames (finite); good frames until the
 * good pose is back; from there, the same two frames with the input without the bad value, which must give the bad
 * frames' pose (both runs start from one state: the natural-side fold's memory carries a frame's bend into the next);
 * good frames again. Checks each cause is warned exactly once.
 */
async function runSubs(
  make: (ik: FullBodyBipedIK) => Sub[],
  tolerance = 1e-9,
): Promise<{ count: number; worst: number; causes: Set<string>; back: number }> {
  let count = 0;
  let worst = 0;
  let back = 0;
  const allCauses = new Set<string>();
  for (const kind of KINDS) {
    const s = await subject(kind);
    const ik = FullBodyBipedIK.create(s.scene, s.skeleton);
    const seen = new Map<string, number>();
    ik.onWarningObservable.add((w) => seen.set(w.cause, (seen.get(w.cause) ?? 0) + 1));
    const good = captureGood(ik, s);
    applyGood(ik, good);
    s.scene.render();
    const goodPose = pose(s);
    const expected = new Set<string>();
    // good frames until the good pose is back (a usable but different value, a normalised 1e30 rotation, changes
    // the bend: the fold's memory turns it back at most 20° a frame, fold-memory.ts)
    const goodAgain = (where: string): number => {
      let frames = 0;
      let off = Number.POSITIVE_INFINITY;
      while (frames < BACK_FRAMES && !(off < 1e-9)) {
        applyGood(ik, good);
        s.scene.render();
        off = poseDiff(goodPose, pose(s), s.size);
        frames++;
      }
      expect(off, `${where}: the good pose again within ${BACK_FRAMES} good frames`).toBeLessThan(1e-9);
      return frames;
    };
    for (const sub of make(ik)) {
      const where = `${kind}: ${sub.label}`;
      for (let f = 0; f < 2; f++) {
        applyGood(ik, good);
        sub.bad(ik);
        expect(() => s.scene.render(), where).not.toThrow();
        expect(bonesFinite(s.skeleton), where).toBe(true);
      }
      const badPose = pose(s);
      back = Math.max(back, goodAgain(where));
      for (let f = 0; f < 2; f++) {
        applyGood(ik, good);
        sub.same(ik);
        s.scene.render();
      }
      const d = poseDiff(badPose, pose(s), s.size);
      expect(d, `${where}: the bad frames differ from the frames without the bad input`).toBeLessThan(tolerance);
      worst = Math.max(worst, d);
      goodAgain(where);
      if (sub.cause !== null) {
        expect(seen.has(sub.cause), `${where}: warning ${sub.cause} (seen: ${[...seen.keys()].join(", ")})`).toBe(true);
        expected.add(sub.cause);
      }
      count++;
    }
    // exactly one warning per cause, and only the expected causes
    for (const [cause, n] of seen) {
      expect(n, `${kind}: cause ${cause} warned ${n} times`).toBe(1);
      expect(expected.has(cause), `${kind}: unexpected warning ${cause}`).toBe(true);
    }
    for (const c of seen.keys()) allCauses.add(c.replace(/^[A-Za-z ]+:/, "*:"));
    ik.dispose();
  }
  return { count, worst, causes: allCauses, back };
}

const BAD_NUMBERS = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY] as const;
const show = (v: number): string =>
  Number.isNaN(v) ? "NaN" : v === Infinity ? "+∞" : v === -Infinity ? "−∞" : String(v);
const effectorsOf = (ik: FullBodyBipedIK): readonly BabylonEffector[] => ik.solver.effectors;

describe("bad input every frame", () => {
  it("effector positions: NaN, ±∞, ±1e30 on each of the nine effectors", async () => {
    const r = await runSubs((ik) =>
      effectorsOf(ik).flatMap((e, i) =>
        [...BAD_NUMBERS, 1e30, -1e30].map((v) => ({
          label: `${e.name} position ${show(v)}`,
          bad: (k: FullBodyBipedIK) => {
            const x = k.solver.effectors[i]!;
            x.position.set(v, x.position.y, x.position.z);
            x.positionWeight = 1;
          },
          same: (k: FullBodyBipedIK) => {
            k.solver.effectors[i]!.positionWeight = 0;
          },
          cause: Number.isFinite(v) ? `${e.name}:position-far` : `${e.name}:position`,
        })),
      ),
    );
    report.add({
      what: "effector positions NaN, ±∞, ±1e30 (each effector, weight 1)",
      cases: r.count,
      outcome: `ignored for the frame (pose = weight 0 ${within(r.worst)}), warned once per effector and kind (${[...r.causes].sort().join(", ")}), ${normalAgain(r.back)}`,
    });
  });

  it("effector rotations: NaN, ±∞, 1e300, a zero quaternion (ignored); 1e30 and non-unit (normalised)", async () => {
    const ends = [5, 6, 7, 8];
    const r = await runSubs(
      (ik) =>
        ends.flatMap((i) => {
          const e = ik.solver.effectors[i]!;
          const ignored = [...BAD_NUMBERS, 1e300].map((v) => ({
            label: `${e.name} rotation x=${show(v)}`,
            q: new Quaternion(v, 0, 0, 1),
            ok: null as Quaternion | null,
          }));
          const zero = {
            label: `${e.name} rotation (0, 0, 0, 0)`,
            q: new Quaternion(0, 0, 0, 0),
            ok: null as Quaternion | null,
          };
          const big = new Quaternion(1e30, 2e30, -1e30, 3e30);
          const nonUnit = new Quaternion(0.3, -0.2, 0.4, 2.5);
          const normalised = [
            { label: `${e.name} rotation (1e30, 2e30, −1e30, 3e30)`, q: big, ok: big.normalizeToNew() },
            { label: `${e.name} rotation non-unit (length 2.6)`, q: nonUnit, ok: nonUnit.normalizeToNew() },
          ];
          return [...ignored, zero, ...normalised].map((c) => ({
            label: c.label,
            bad: (k: FullBodyBipedIK) => {
              const x = k.solver.effectors[i]!;
              x.rotation.copyFrom(c.q);
              x.rotationWeight = 1;
            },
            same: (k: FullBodyBipedIK) => {
              const x = k.solver.effectors[i]!;
              if (c.ok === null) {
                x.rotationWeight = 0;
              } else {
                x.rotation.copyFrom(c.ok);
                x.rotationWeight = 1;
              }
            },
            cause: c.ok === null ? `${e.name}:rotation` : null,
          }));
        }),
      1e-6,
    );
    report.add({
      what: "effector rotations NaN, ±∞, 1e300, zero quaternion; 1e30 and non-unit quaternions (hands, feet)",
      cases: r.count,
      outcome: `unusable ones ignored for the frame, warned once per effector (${[...r.causes].sort().join(", ")}); 1e30 and non-unit ones normalised (pose = unit quaternion ${within(r.worst)}), no warning; ${normalAgain(r.back)}`,
    });
  });

  it("effector offsets: NaN, ±∞, ±1e30 on each effector", async () => {
    const r = await runSubs((ik) =>
      effectorsOf(ik).flatMap((e, i) =>
        [...BAD_NUMBERS, 1e30, -1e30].map((v) => ({
          label: `${e.name} positionOffset ${show(v)}`,
          bad: (k: FullBodyBipedIK) => k.solver.effectors[i]!.positionOffset.set(0, v, 0),
          same: () => {},
          cause: Number.isFinite(v) ? `${e.name}:positionOffset-far` : `${e.name}:positionOffset`,
        })),
      ),
    );
    report.add({
      what: "effector positionOffset NaN, ±∞, ±1e30 (each effector)",
      cases: r.count,
      outcome: `ignored for the frame (pose = no offset ${within(r.worst)}), warned once per effector and kind (${[...r.causes].sort().join(", ")}), ${normalAgain(r.back)}`,
    });
  });

  it("weights: NaN and ±∞ (ignored); −0.5, 1.5, 1e30 (clamped) for position, rotation and maintainRelativePosition weights", async () => {
    const r = await runSubs((ik) =>
      [5, 0, 7].flatMap((i) => {
        const e = ik.solver.effectors[i]!;
        return (["positionWeight", "rotationWeight", "maintainRelativePositionWeight"] as const).flatMap((w) =>
          [...BAD_NUMBERS, -0.5, 1.5, 1e30].map((v) => ({
            label: `${e.name} ${w} ${show(v)}`,
            bad: (k: FullBodyBipedIK) => {
              const x = k.solver.effectors[i]!;
              x[w] = v;
              if (w === "rotationWeight") x.rotation.copyFrom(Quaternion.RotationYawPitchRoll(0.3, 0.2, 0.1));
              if (w === "maintainRelativePositionWeight") k.solver.bodyEffector.positionOffset.set(0, -0.05 * 1.75, 0);
            },
            same: (k: FullBodyBipedIK) => {
              const x = k.solver.effectors[i]!;
              x[w] = Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0;
              if (w === "rotationWeight") x.rotation.copyFrom(Quaternion.RotationYawPitchRoll(0.3, 0.2, 0.1));
              if (w === "maintainRelativePositionWeight") k.solver.bodyEffector.positionOffset.set(0, -0.05 * 1.75, 0);
            },
            cause: Number.isFinite(v) ? null : `${e.name}:${w}`,
          })),
        );
      }),
    );
    report.add({
      what: "effector weights NaN, ±∞, −0.5, 1.5, 1e30 (position, rotation, maintainRelativePosition; body, hand, foot)",
      cases: r.count,
      outcome: `non-finite ignored for the frame, warned once per effector and weight; others clamped to [0, 1] without warning (pose equal ${within(r.worst)}); ${normalAgain(r.back)}`,
    });
  });

  it("master weight and iterations: NaN, ±∞, −1, 2, 1e30, 2.5, 11", async () => {
    const r = await runSubs(() => [
      ...[...BAD_NUMBERS, -1, 2, 1e30].map((v) => ({
        label: `ikPositionWeight ${show(v)}`,
        bad: (k: FullBodyBipedIK) => (k.solver.ikPositionWeight = v),
        same: (k: FullBodyBipedIK) => (k.solver.ikPositionWeight = v > 0 ? 1 : 0),
        cause: Number.isNaN(v) ? "ikPositionWeight" : null,
      })),
      ...[...BAD_NUMBERS, -1, 2.5, 11, 1e30].map((v) => ({
        label: `iterations ${show(v)}`,
        bad: (k: FullBodyBipedIK) => (k.solver.iterations = v),
        same: (k: FullBodyBipedIK) =>
          (k.solver.iterations = Number.isFinite(v) ? Math.min(10, Math.max(0, Math.floor(v))) : 4),
        cause: Number.isFinite(v) ? null : "iterations",
      })),
    ]);
    report.add({
      what: "ikPositionWeight and iterations NaN, ±∞, out of range",
      cases: r.count,
      outcome: `NaN master weight: solver off for the frame, warned once; non-finite iterations: the last valid count is kept, warned once; others clamped (weight to [0, 1], iterations to 0…10, floored) without warning (pose equal ${within(r.worst)}); ${normalAgain(r.back)}`,
    });
  });

  it("chain and bend settings: NaN, ±∞ (last valid kept), out of range (clamped); bend goal and direction not finite", async () => {
    const r = await runSubs((ik) => {
      const subs: Sub[] = [];
      ik.solver.limbChains.forEach((_, ci) => {
        const name = ["left arm", "right arm", "left leg", "right leg"][ci]!;
        for (const p of ["pull", "reach", "push", "pushParent"] as const) {
          for (const v of [...BAD_NUMBERS, 3, -3]) {
            const clamp = Number.isFinite(v)
              ? Math.min(1, Math.max(p === "pushParent" ? -1 : 0, v))
              : p === "pull"
                ? 1
                : p === "reach"
                  ? 0.1
                  : 0;
            subs.push({
              label: `${name} ${p} ${show(v)}`,
              bad: (k) => {
                k.solver.limbChains[ci]![p] = v;
                if (p === "push") k.solver.limbChains[ci]!.pushParent = 0.5;
              },
              same: (k) => {
                k.solver.limbChains[ci]![p] = clamp;
                if (p === "push") k.solver.limbChains[ci]!.pushParent = 0.5;
              },
              cause: Number.isFinite(v) ? null : `${name}:${p}`,
            });
          }
        }
        for (const v of [...BAD_NUMBERS, 2]) {
          subs.push({
            label: `${name} bend weight ${show(v)}`,
            bad: (k) => (k.solver.limbChains[ci]!.bendConstraint.weight = v),
            same: (k) => (k.solver.limbChains[ci]!.bendConstraint.weight = Number.isFinite(v) ? 1 : 0),
            cause: Number.isFinite(v) ? null : `${name}:bend weight`,
          });
        }
        subs.push({
          label: `${name} bend direction NaN`,
          bad: (k) => {
            k.solver.limbChains[ci]!.bendConstraint.direction.set(Number.NaN, 0, 0);
            k.solver.limbChains[ci]!.bendConstraint.weight = 1;
          },
          same: (k) => (k.solver.limbChains[ci]!.bendConstraint.weight = 1),
          cause: `${name}:bend-direction`,
        });
        const goal = new TransformNode(`goal ${name}`, ik.scene);
        subs.push({
          label: `${name} bend goal at NaN`,
          bad: (k) => {
            goal.position.set(Number.NaN, 0, 0);
            k.solver.limbChains[ci]!.bendConstraint.bendGoal = goal;
            k.solver.limbChains[ci]!.bendConstraint.weight = 1;
          },
          same: (k) => (k.solver.limbChains[ci]!.bendConstraint.weight = 1),
          cause: `${name}:bend-goal-position`,
        });
      });
      return subs;
    });
    report.add({
      what: "chain pull, reach, push, pushParent, bend weight NaN, ±∞, ±3; bend direction and bend goal not finite (each limb)",
      cases: r.count,
      outcome: `non-finite: the last valid value is kept, warned once per limb and setting; out of range clamped without warning (pose equal ${within(r.worst)}); ${normalAgain(r.back)}`,
    });
  });

  it("spineStiffness, pullBodyVertical, pullBodyHorizontal: NaN, ±∞ (last valid kept)", async () => {
    // each setting made to matter: the body pushed down for the stiffness, the hand out of reach for the pulls
    const setup = (k: FullBodyBipedIK): void => {
      const shoulder = k.solver.leftShoulderEffector.position;
      const hand = k.solver.leftHandEffector.position;
      hand.copyFrom(shoulder.add(hand.subtract(shoulder).scale(3)));
      k.solver.bodyEffector.positionOffset.set(0, -0.1 * 1.75, 0.05 * 1.75);
    };
    const defaults = { spineStiffness: 0.5, pullBodyVertical: 0.5, pullBodyHorizontal: 0 } as const;
    const r = await runSubs(() =>
      (["spineStiffness", "pullBodyVertical", "pullBodyHorizontal"] as const).flatMap((p) =>
        BAD_NUMBERS.map((v) => ({
          label: `${p} ${show(v)}`,
          bad: (k: FullBodyBipedIK) => {
            setup(k);
            k.solver[p] = v;
          },
          same: (k: FullBodyBipedIK) => {
            setup(k);
            k.solver[p] = defaults[p];
          },
          cause: p,
        })),
      ),
    );
    report.add({
      what: "spineStiffness, pullBodyVertical, pullBodyHorizontal NaN, ±∞ (body pushed down, hand out of reach)",
      cases: r.count,
      outcome: `the last valid value is kept (pose equal ${within(r.worst)}), warned once per setting (${[...r.causes].sort().join(", ")}); ${normalAgain(r.back)}`,
    });
  });
});

describe("hard targets", () => {
  /** Runs `frames` frames of `bad` on each subject; checks finite and the next good frame; returns notes. */
  async function hard(
    bad: (ik: FullBodyBipedIK, s: Subject) => void,
    frames = 3,
  ): Promise<{ causes: Set<string>; count: number; reach: number[] }> {
    const causes = new Set<string>();
    const reach: number[] = [];
    let count = 0;
    for (const kind of KINDS) {
      const s = await subject(kind);
      const ik = FullBodyBipedIK.create(s.scene, s.skeleton);
      ik.onWarningObservable.add((w) => causes.add(w.cause.replace(/^[A-Za-z ]+:/, "*:")));
      const good = captureGood(ik, s);
      applyGood(ik, good);
      s.scene.render();
      const goodPose = pose(s);
      for (let f = 0; f < frames; f++) {
        applyGood(ik, good);
        bad(ik, s);
        expect(() => s.scene.render()).not.toThrow();
        expect(bonesFinite(s.skeleton), kind).toBe(true);
        count++;
      }
      reach.push(Vector3.Distance(s.worldPos(ik.references.leftHand), ik.solver.leftHandEffector.position) / s.size);
      applyGood(ik, good);
      s.scene.render();
      expect(poseDiff(goodPose, pose(s), s.size), `${kind}: next good frame`).toBeLessThan(1e-9);
      ik.dispose();
    }
    return { causes, count, reach };
  }
  const words = (c: Set<string>) => (c.size === 0 ? "no warning" : `warns ${[...c].sort().join(", ")}`);

  it("all nine effectors at one point (the pelvis), weights 1", async () => {
    const r = await hard((ik, s) => {
      const p = s.worldPos(ik.references.pelvis);
      for (const e of ik.solver.effectors) {
        e.position.copyFrom(p);
        e.positionWeight = 1;
      }
    });
    report.add({
      what: "all nine effectors at one point (the pelvis), weights 1",
      cases: r.count,
      outcome: `finite, no exception, ${words(r.causes)}; next frame normal`,
    });
  });

  it("a hand target exactly on its shoulder", async () => {
    const r = await hard((ik, s) => {
      ik.solver.leftHandEffector.position.copyFrom(s.worldPos(ik.references.leftUpperArm));
      ik.solver.leftHandEffector.positionWeight = 1;
    });
    report.add({
      what: "a hand target exactly on its shoulder",
      cases: r.count,
      outcome: `finite, no exception, ${words(r.causes)}; the hand stops ${bound(Math.max(...r.reach))} of the size from it (the arm folds as far as it can); next frame normal`,
    });
  });

  it("targets 10 km away (hand alone; all effectors)", async () => {
    const far = new Vector3(7000, 3000, -7000);
    const one = await hard((ik) => {
      ik.solver.leftHandEffector.position.copyFrom(far);
      ik.solver.leftHandEffector.positionWeight = 1;
    });
    const all = await hard((ik) => {
      for (const e of ik.solver.effectors) {
        e.position.copyFrom(far);
        e.positionWeight = 1;
      }
    });
    report.add({
      what: "a hand target 10 km away",
      cases: one.count,
      outcome: `finite, no exception, ${words(one.causes)}; the body is pulled toward it (FinalIK's pull); next frame normal`,
    });
    report.add({
      what: "all effectors 10 km away",
      cases: all.count,
      outcome: `finite, no exception, ${words(all.causes)}; the character follows; next frame normal`,
    });
  });
});

describe("things disposed or removed while in use", () => {
  it("a target TransformNode disposed while an effector follows it", async () => {
    let count = 0;
    for (const kind of KINDS) {
      const s = await subject(kind);
      const ik = FullBodyBipedIK.create(s.scene, s.skeleton);
      const causes: string[] = [];
      ik.onWarningObservable.add((w) => causes.push(w.cause));
      const target = new TransformNode("target", s.scene);
      const shoulder = s.worldPos(ik.references.leftUpperArm);
      target.position.copyFrom(Vector3.Lerp(shoulder, s.worldPos(ik.references.leftHand), 0.6));
      ik.solver.leftHandEffector.target = target;
      ik.solver.leftHandEffector.positionWeight = 1;
      s.scene.render();
      const before = pose(s);
      target.dispose();
      for (let f = 0; f < 3; f++) {
        expect(() => s.scene.render()).not.toThrow();
        expect(bonesFinite(s.skeleton)).toBe(true);
        // the effector keeps the target's last position
        expect(poseDiff(before, pose(s), s.size)).toBeLessThan(1e-9);
        count++;
      }
      expect(causes).toEqual(["LeftHand:target-disposed"]);
      expect(ik.solver.leftHandEffector.target).toBe(null);
      ik.dispose();
    }
    report.add({
      what: "an effector's target TransformNode disposed while in use",
      cases: count,
      outcome:
        "warned once (LeftHand:target-disposed); the target is cleared and the effector keeps its last position; no exception, finite",
    });
  });

  it("a bend goal disposed while in use", async () => {
    let count = 0;
    for (const kind of KINDS) {
      const s = await subject(kind);
      const ik = FullBodyBipedIK.create(s.scene, s.skeleton);
      const causes: string[] = [];
      ik.onWarningObservable.add((w) => causes.push(w.cause));
      const good = captureGood(ik, s);
      applyGood(ik, good);
      const goal = new TransformNode("goal", s.scene);
      goal.position.copyFrom(s.worldPos(ik.references.leftForearm).add(new Vector3(0, 0.3 * s.size, 0)));
      const bend = ik.solver.leftArmChain.bendConstraint;
      bend.bendGoal = goal;
      bend.weight = 1;
      s.scene.render();
      goal.dispose();
      for (let f = 0; f < 3; f++) {
        expect(() => s.scene.render()).not.toThrow();
        expect(bonesFinite(s.skeleton)).toBe(true);
        count++;
      }
      expect(causes).toEqual(["left arm:bend-goal-disposed"]);
      expect(bend.bendGoal).toBe(null);
      ik.dispose();
    }
    report.add({
      what: "a bend goal disposed while in use",
      cases: count,
      outcome:
        "warned once (left arm:bend-goal-disposed); the bend goal is cleared, the last bend direction is kept; no exception, finite",
    });
  });

  it("the skeleton disposed, the meshes disposed, the container removed and added back, the bones unlinked", async () => {
    const outcomes: string[] = [];
    let count = 0;
    for (const what of [
      "skeleton disposed",
      "meshes disposed",
      "container removed and added back",
      "bones unlinked from their nodes (a Ragdoll) and linked back",
    ] as const) {
      const back = what.startsWith("container") || what.startsWith("bones");
      const m = await loadModel("Mannequin");
      open.push(m);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const causes: string[] = [];
      ik.onWarningObservable.add((w) => causes.push(w.cause));
      const s: Subject = {
        kind: "Mannequin",
        scene: m.scene,
        skeleton: m.skeleton,
        worldPos: (b) => boneWorldPosition(b),
        size: 1,
      };
      m.scene.render();
      s.size = characterSize(m.skeleton, s.worldPos);
      const good = captureGood(ik, s);
      applyGood(ik, good);
      m.scene.render();
      const goodPose = pose(s);
      if (what === "skeleton disposed") m.skeleton.dispose();
      if (what === "meshes disposed") for (const mesh of m.scene.meshes.slice()) mesh.dispose();
      if (what === "container removed and added back") m.container.removeAllFromScene();
      const nodes = m.skeleton.bones.map((b) => b.getTransformNode());
      if (what.startsWith("bones")) for (const b of m.skeleton.bones) b.linkTransformNode(null);
      for (let f = 0; f < 3; f++) {
        expect(() => m.scene.render()).not.toThrow();
        expect(() => ik.update()).not.toThrow();
        if (what !== "meshes disposed") expect(bonesFinite(m.skeleton)).toBe(true);
        count++;
      }
      if (back) {
        if (what.startsWith("container")) m.container.addAllToScene();
        else m.skeleton.bones.forEach((b, i) => nodes[i] && b.linkTransformNode(nodes[i]));
        m.scene.render();
        expect(poseDiff(goodPose, pose(s), s.size)).toBeLessThan(1e-9);
      }
      expect(causes.length).toBe(1);
      // disposed for good: the IK disposes itself (nothing keeps it or the character in memory)
      expect(ik.isDisposed).toBe(!back);
      outcomes.push(
        `${what}: warned once (${causes[0]}), ${back ? "frames skipped, solved again once back" : "the IK disposed itself"}`,
      );
      expect(() => ik.dispose()).not.toThrow();
    }
    report.add({
      what:
        "the skeleton or the meshes disposed, the asset container removed, or the bones unlinked from their nodes, " +
        "while the IK is attached (Mannequin)",
      cases: count,
      outcome: `no exception; ${outcomes.join("; ")}`,
    });
  });
});

describe("frame timing", () => {
  it("update() called twice in a frame restarts from the animated pose", async () => {
    let count = 0;
    let worst = 0;
    for (const kind of KINDS) {
      const s = await subject(kind);
      const ik = FullBodyBipedIK.create(s.scene, s.skeleton);
      if (s.model)
        proceduralIdle(
          s.scene,
          ["spine", "upperarm.l", "lowerarm.l", "upperleg.l"].map(
            (n) => s.skeleton.bones.find((b) => b.name === n)!.getTransformNode()!,
          ),
        ).start(true);
      const good = captureGood(ik, s);
      applyGood(ik, good);
      for (let f = 0; f < 10; f++) {
        s.scene.render();
        const once = pose(s);
        ik.update();
        ik.update();
        const d = poseDiff(once, pose(s), s.size);
        worst = Math.max(worst, d);
        expect(d).toBeLessThan(1e-9);
        expect(bonesFinite(s.skeleton)).toBe(true);
        count++;
      }
      ik.dispose();
    }
    report.add({
      what: "update() called two more times in a frame, after the automatic one (Mannequin animated; plain Bones)",
      cases: count,
      outcome: `the same pose as one update (${within(worst)}); finite`,
    });
  });

  it("update() never called (autoUpdate false): the bones are the animation's", async () => {
    const a = await loadModel("Mannequin");
    const b = await loadModel("Mannequin");
    open.push(a, b);
    const nodes = (m: typeof a) =>
      ["spine", "upperarm.l", "lowerarm.l", "upperleg.l"].map(
        (n) => m.skeleton.bones.find((x) => x.name === n)!.getTransformNode()!,
      );
    const ik = FullBodyBipedIK.create(a.scene, a.skeleton, { autoUpdate: false });
    ik.solver.leftHandEffector.positionWeight = 1;
    ik.solver.leftHandEffector.position.y += 0.3;
    proceduralIdle(a.scene, nodes(a)).start(true);
    proceduralIdle(b.scene, nodes(b)).start(true);
    let count = 0;
    for (let f = 0; f < 20; f++) {
      a.scene.render();
      b.scene.render();
      for (let i = 0; i < a.skeleton.bones.length; i++) {
        const x = a.skeleton.bones[i]!.getTransformNode()!.computeWorldMatrix(true).m;
        const y = b.skeleton.bones[i]!.getTransformNode()!.computeWorldMatrix(true).m;
        for (let k = 0; k < 16; k++) expect(x[k]).toBe(y[k]);
      }
      count++;
    }
    ik.dispose();
    report.add({
      what: "update() never called (autoUpdate false, effectors weighted)",
      cases: count,
      outcome: "every bone equals the animation bit for bit",
    });
  });

  it("iterations changed every frame (random 0…10) with a reachable hand target", async () => {
    let count = 0;
    let worst = 0;
    const rng = new Random(77);
    for (const kind of KINDS) {
      const s = await subject(kind);
      const ik = FullBodyBipedIK.create(s.scene, s.skeleton);
      const good = captureGood(ik, s);
      for (let f = 0; f < 200; f++) {
        applyGood(ik, good);
        ik.solver.iterations = rng.int(11);
        s.scene.render();
        expect(bonesFinite(s.skeleton)).toBe(true);
        const d = Vector3.Distance(s.worldPos(ik.references.leftHand), good.hand) / s.size;
        worst = Math.max(worst, d);
        count++;
      }
      expect(worst).toBeLessThan(0.01);
      ik.dispose();
    }
    report.add({
      what: "iterations changed every frame (random 0…10)",
      cases: count,
      outcome: `finite; the hand on its target within ${bound(worst)} of the size at every count`,
    });
  });

  it("enabled toggled every frame", async () => {
    let count = 0;
    let worst = 0;
    let stale = 0;
    for (const kind of KINDS) {
      const s = await subject(kind);
      const ik = FullBodyBipedIK.create(s.scene, s.skeleton);
      const good = captureGood(ik, s);
      applyGood(ik, good);
      s.scene.render();
      const goodPose = pose(s);
      for (let f = 0; f < 100; f++) {
        ik.enabled = f % 2 === 1;
        const before = pose(s);
        s.scene.render();
        expect(bonesFinite(s.skeleton)).toBe(true);
        if (ik.enabled) worst = Math.max(worst, poseDiff(goodPose, pose(s), s.size));
        else stale = Math.max(stale, poseDiff(before, pose(s), s.size));
        count++;
      }
      expect(worst).toBeLessThan(1e-9);
      ik.dispose();
    }
    report.add({
      what: "enabled toggled every frame (no animation)",
      cases: count,
      outcome: `enabled frames solve normally (pose = good pose ${within(worst)}); disabled frames neither fix nor solve, so without animation the bones keep the last pose (${stale === 0 ? "unchanged" : `moved ${bound(stale)}`}), as a disabled FinalIK component leaves them`,
    });
  });
});

/** One bad setting of a lockstep row: set on two frames, then restored to the good value. */
interface LockSub<T> {
  label: string;
  bad: (t: T) => void;
  restore: (t: T) => void;
  cause: string;
}

/**
 * Two identical characters side by side, each with its components (`make`), run in lockstep (`frame`
 * before each render): the bad value goes to one only, on two frames, then it is restored. Every frame
 * the two poses must be equal (the bad value ignored, and nothing of it left once restored) and the bad
 * one finite; each cause is warned exactly once.
 */
async function runLockstep<T>(
  make: (ik: FullBodyBipedIK, s: Subject) => T,
  subs: (t: T) => LockSub<T>[],
  frame: (t: T, s: Subject) => void = () => {},
  /** After settling: checks that the components do move the pose (or the row could not fail). */
  active: (t: T) => void = () => {},
  settle = 60,
): Promise<{ count: number; worst: number; causes: Set<string> }> {
  let count = 0;
  let worst = 0;
  const causes = new Set<string>();
  for (const kind of KINDS) {
    const pair = [];
    for (let k = 0; k < 2; k++) {
      const s = await subject(kind);
      const ik = FullBodyBipedIK.create(s.scene, s.skeleton);
      pair.push({ s, ik, t: make(ik, s) });
    }
    const [a, b] = pair as [(typeof pair)[0], (typeof pair)[0]];
    const seen = new Map<string, number>();
    a.ik.onWarningObservable.add((w) => seen.set(w.cause, (seen.get(w.cause) ?? 0) + 1));
    const step = (where: string): void => {
      for (const x of [a, b]) {
        frame(x.t, x.s);
        expect(() => x.s.scene.render(), where).not.toThrow();
      }
      expect(bonesFinite(a.s.skeleton), where).toBe(true);
      const d = poseDiff(pose(a.s), pose(b.s), a.s.size);
      expect(d, `${where}: the pose differs from the one without the bad value`).toBeLessThan(1e-9);
      worst = Math.max(worst, d);
    };
    for (let f = 0; f < settle; f++) step(`${kind}: settling`);
    active(a.t);
    const expected = new Set<string>();
    for (const sub of subs(a.t)) {
      const where = `${kind}: ${sub.label}`;
      for (let f = 0; f < 2; f++) {
        sub.bad(a.t);
        step(`${where}, bad frame ${f}`);
      }
      sub.restore(a.t);
      for (let f = 0; f < 3; f++) step(`${where}, restored, frame ${f}`);
      expect(seen.has(sub.cause), `${where}: warning ${sub.cause} (seen: ${[...seen.keys()].join(", ")})`).toBe(true);
      expected.add(sub.cause);
      count++;
    }
    for (const [cause, n] of seen) {
      expect(n, `${kind}: cause ${cause} warned ${n} times`).toBe(1);
      expect(expected.has(cause), `${kind}: unexpected warning ${cause}`).toBe(true);
      causes.add(cause.replace(/:.*$/, ":*"));
    }
    for (const x of [a, b]) x.ik.dispose();
  }
  return { count, worst, causes };
}

/** A ground plane through `point` sloping 15° about Z (no meshes), as a grounder raycast. */
function slopeRaycast(point: Vector3): GroundingRaycast {
  const a = (15 * Math.PI) / 180;
  const n = { x: -Math.sin(a), y: Math.cos(a), z: 0 };
  return (origin, direction, maxDistance, out) => {
    const dn = direction.x * n.x + direction.y * n.y + direction.z * n.z;
    if (!(dn < 0)) return false;
    const t = ((point.x - origin.x) * n.x + (point.y - origin.y) * n.y + (point.z - origin.z) * n.z) / dn;
    if (!(t >= 0 && t <= maxDistance)) return false;
    out.point.x = origin.x + direction.x * t;
    out.point.y = origin.y + direction.y * t;
    out.point.z = origin.z + direction.z * t;
    out.normal.x = n.x;
    out.normal.y = n.y;
    out.normal.z = n.z;
    out.distance = t;
    return true;
  };
}

describe("bad settings of the grounder and the offset modifiers", () => {
  it("GrounderFBBIK: every numeric setting of grounder.solver, and weight, spineBend, spineSpeed, spine weights, NaN and ±∞ for two frames", async () => {
    type G = { grounder: GrounderFBBIK; good: Record<string, number> };
    const SOLVER = [
      "maxStep",
      "heightOffset",
      "footSpeed",
      "footRadius",
      "footCenterOffset",
      "prediction",
      "footRotationWeight",
      "footRotationSpeed",
      "maxFootRotationAngle",
      "pelvisSpeed",
      "pelvisDamper",
      "lowerPelvisWeight",
      "liftPelvisWeight",
      "pelvisReachWeight",
      "rootSphereCastRadius",
      "sphereProbeRays",
      "lengthUnit",
    ] as const;
    const OWN = ["weight", "spineBend", "spineSpeed"] as const;
    const r = await runLockstep<G>(
      (ik, s) => {
        const root = ik.rig.characterRoot!;
        root.computeWorldMatrix(true);
        const grounder = GrounderFBBIK.create(ik, {
          raycast: slopeRaycast(root.getAbsolutePosition().clone()),
          // every setting away from 0 so that a bad value of any shows
          liftPelvisWeight: 0.5,
          heightOffset: 0.01 * s.size,
          footCenterOffset: 0.02 * s.size,
          pelvisDamper: 0.2,
          spineBend: 3,
          weight: 0.9,
          spine: [
            new GrounderSpineEffector(FullBodyBipedEffector.LeftShoulder, 1, 0.5),
            new GrounderSpineEffector(FullBodyBipedEffector.RightShoulder, 0.8, 0.3),
          ],
        });
        const good: Record<string, number> = {};
        for (const k of SOLVER) good[k] = grounder.solver[k];
        for (const k of OWN) good[k] = grounder[k];
        return { grounder, good };
      },
      () => [
        ...SOLVER.flatMap((k) =>
          BAD_NUMBERS.map((v) => ({
            label: `grounder.solver.${k} ${show(v)}`,
            bad: (g: G) => (g.grounder.solver[k] = v),
            restore: (g: G) => (g.grounder.solver[k] = g.good[k]!),
            cause: `grounding:${k}`,
          })),
        ),
        ...OWN.flatMap((k) =>
          BAD_NUMBERS.map((v) => ({
            label: `grounder.${k} ${show(v)}`,
            bad: (g: G) => (g.grounder[k] = v),
            restore: (g: G) => (g.grounder[k] = g.good[k]!),
            cause: `grounder:${k}`,
          })),
        ),
        ...BAD_NUMBERS.map((v) => ({
          label: `grounder.solver.worldUp.x ${show(v)}`,
          bad: (g: G) => (g.grounder.solver.worldUp.x = v),
          restore: (g: G) => (g.grounder.solver.worldUp.x = 0),
          cause: "grounding:worldUp",
        })),
        ...(["horizontalWeight", "verticalWeight"] as const).flatMap((k) =>
          BAD_NUMBERS.map((v) => ({
            label: `grounder.spine[0].${k} ${show(v)}`,
            bad: (g: G) => (g.grounder.spine[0]![k] = v),
            restore: (g: G) => (g.grounder.spine[0]![k] = k === "horizontalWeight" ? 1 : 0.5),
            cause: `grounder:spine.${k}`,
          })),
        ),
      ],
      undefined,
      (g) => {
        expect(Math.abs(g.grounder.solver.pelvis.heightOffset)).toBeGreaterThan(1e-4);
        expect(g.grounder.solver.legs.every((l) => Math.abs(l.ikOffset) > 1e-4)).toBe(true);
        expect(g.grounder.spineOffset.length()).toBeGreaterThan(1e-4);
      },
    );
    report.add({
      what: `GrounderFBBIK settings NaN, ±∞ for two frames, then restored: the ${SOLVER.length} numbers of grounder.solver and its worldUp, weight, spineBend, spineSpeed, the spine effectors' weights (on a 15° slope, pelvis, feet and spine moved)`,
      cases: r.count,
      outcome: `the last valid value is kept (pose = without the bad value ${within(r.worst)}), warned once per setting (${[...r.causes].sort().join(", ")}); restored, the grounder goes on as if nothing happened; finite`,
    });
  });

  it("BodyTilt: tiltSensitivity and tiltSpeed NaN and ±∞ for two frames while the character turns", async () => {
    type T = { tilt: BodyTilt };
    const r = await runLockstep<T>(
      (ik, s) => {
        const poseRight = new OffsetPose([
          { effector: FullBodyBipedEffector.Body, offset: { x: 0.1 * s.size, y: -0.02 * s.size, z: 0 } },
        ]);
        const poseLeft = new OffsetPose([
          { effector: FullBodyBipedEffector.Body, offset: { x: -0.1 * s.size, y: -0.02 * s.size, z: 0 } },
        ]);
        return { tilt: new BodyTilt(ik, { poseLeft, poseRight, tiltSensitivity: 0.5 }) };
      },
      () =>
        (["tiltSensitivity", "tiltSpeed"] as const).flatMap((k) =>
          BAD_NUMBERS.map((v) => ({
            label: `BodyTilt.${k} ${show(v)}`,
            bad: (t: T) => (t.tilt[k] = v),
            restore: (t: T) => (t.tilt[k] = k === "tiltSensitivity" ? 0.5 : 6),
            cause: `BodyTilt:${k}`,
          })),
        ),
      // the character turns at 90°/s, so the tilt is not zero
      (t) => {
        const root = t.tilt.ik.rig.characterRoot!;
        root.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), (90 * Math.PI) / 180 / 60).multiply(
          root.rotationQuaternion ?? Quaternion.Identity(),
        );
      },
      (t) => expect(Math.abs(t.tilt.tiltAngle)).toBeGreaterThan(0.1),
    );
    report.add({
      what: "BodyTilt tiltSensitivity, tiltSpeed NaN, ±∞ for two frames while turning, then restored",
      cases: r.count,
      outcome: `the last valid value is kept (pose = without the bad value ${within(r.worst)}), warned once per setting (${[...r.causes].sort().join(", ")}); restored, the tilt goes on as if nothing happened; finite`,
    });
  });
});

describe("docs/ROBUSTNESS.md", () => {
  it('section "input" matches what these tests measured', () => {
    const differences = report.check();
    expect(differences, staleMessage("input", differences)).toEqual([]);
  });
});
