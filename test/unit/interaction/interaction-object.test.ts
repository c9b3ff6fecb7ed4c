import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Curve } from "../../../src/math/curve.js";
import {
  INTERACTION_CURVE_TYPE_COUNT,
  InteractionCurveType,
} from "../../../src/effectors/interaction/interaction-curves.js";
import { InteractionObject, parseEffector } from "../../../src/effectors/interaction/interaction-object.js";
import { InteractionTarget } from "../../../src/effectors/interaction/interaction-target.js";
import { FullBodyBipedEffector } from "../../../src/solver/biped-bones.js";

let engine: NullEngine;
let scene: Scene;
beforeEach(() => {
  engine = new NullEngine();
  scene = new Scene(engine);
});
afterEach(() => {
  scene.dispose();
  engine.dispose();
});

describe("InteractionObject", () => {
  it("length is the latest of the curves' last keys and the events' times", () => {
    const o = new InteractionObject(new TransformNode("o", scene), {
      weightCurves: [
        { type: InteractionCurveType.PositionWeight, curve: Curve.linear(0, 0, 1.2, 1) },
        { type: InteractionCurveType.Pull, curve: Curve.linear(0, 0, 0.7, 1) },
      ],
      events: [{ time: 0.5, message: "x" }],
    });
    expect(o.length).toBe(1.2);
    o.events.push({ time: 2.5, pause: true });
    expect(o.length).toBe(2.5);
    expect(new InteractionObject(new TransformNode("empty", scene)).length).toBe(0);
  });

  it("evaluates curves, then multipliers reusing a curve for another channel; marks the used channels", () => {
    const o = new InteractionObject(new TransformNode("o", scene), {
      weightCurves: [
        { type: InteractionCurveType.PositionWeight, curve: Curve.linear(0, 0, 1, 1) },
        { type: InteractionCurveType.Reach, curve: Curve.constant(0.25) },
      ],
      multipliers: [
        { curve: 0, multiplier: 0.5, result: InteractionCurveType.RotationWeight },
        { curve: 1, result: InteractionCurveType.Push },
        { curve: 7, result: InteractionCurveType.Pull },
      ],
    });
    const out = new Float64Array(INTERACTION_CURVE_TYPE_COUNT).fill(-1);
    o.evaluate(0.4, out);
    expect(out[InteractionCurveType.PositionWeight]).toBeCloseTo(0.4, 12);
    expect(out[InteractionCurveType.RotationWeight]).toBeCloseTo(0.2, 12);
    expect(out[InteractionCurveType.Reach]).toBe(0.25);
    expect(out[InteractionCurveType.Push]).toBe(0.25);
    // a multiplier naming a missing curve is ignored
    expect(out[InteractionCurveType.Pull]).toBe(-1);
    const used = o.getUsedChannels(new Uint8Array(INTERACTION_CURVE_TYPE_COUNT));
    expect([...used]).toEqual([1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0]);
  });

  it("finds targets among its descendants by metadata, glTF extras and names; explicit targets too", () => {
    const root = new TransformNode("door", scene);
    const knob = new TransformNode("knob", scene);
    knob.parent = root;
    const pivot = new TransformNode("knob pivot", scene);
    pivot.parent = knob;
    const a = new TransformNode("a", scene);
    a.parent = pivot;
    a.metadata = {
      interactionTarget: {
        effector: "RightHand",
        pivot: "knob pivot",
        twistWeight: 0.5,
        interactionSpeedMlp: 2,
        twistAxis: [0, 0, 1],
      },
    };
    const b = new TransformNode("b", scene);
    b.parent = root;
    b.metadata = { gltf: { extras: { interactionTarget: { effector: FullBodyBipedEffector.LeftFoot } } } };
    const c = new TransformNode("InteractionTarget.LeftHand", scene);
    c.parent = knob;
    const d = new TransformNode("interaction_target_body", scene);
    d.parent = root;
    const ignored = new TransformNode("InteractionTarget.Nose", scene);
    ignored.parent = root;
    const explicit = new TransformNode("e", scene);
    explicit.parent = root;
    const o = new InteractionObject(root, {
      targets: [new InteractionTarget(FullBodyBipedEffector.RightFoot, explicit)],
    });
    expect(o.targets.length).toBe(5);
    const rh = o.getTarget(FullBodyBipedEffector.RightHand)!;
    expect(rh.node).toBe(a);
    expect(rh.pivot).toBe(pivot);
    expect(rh.twistWeight).toBe(0.5);
    expect(rh.interactionSpeedMlp).toBe(2);
    expect(rh.twistAxis.asArray()).toEqual([0, 0, 1]);
    expect(o.getTarget(FullBodyBipedEffector.LeftFoot)!.node).toBe(b);
    expect(o.getTarget(FullBodyBipedEffector.LeftHand)!.node).toBe(c);
    expect(o.getTarget(FullBodyBipedEffector.Body)!.node).toBe(d);
    expect(o.getTarget(FullBodyBipedEffector.RightFoot)!.node).toBe(explicit);
    expect(o.getTarget(FullBodyBipedEffector.LeftShoulder)).toBeNull();
    // a second search adds nothing new
    expect(o.findTargets()).toBe(0);
    expect(new InteractionObject(root, { findTargets: false }).targets.length).toBe(0);
  });

  it("parses effector names and values", () => {
    expect(parseEffector("LeftHand")).toBe(FullBodyBipedEffector.LeftHand);
    expect(parseEffector("right foot")).toBe(FullBodyBipedEffector.RightFoot);
    expect(parseEffector("left_shoulder")).toBe(FullBodyBipedEffector.LeftShoulder);
    expect(parseEffector(0)).toBe(FullBodyBipedEffector.Body);
    expect(parseEffector(9)).toBeNull();
    expect(parseEffector("tail")).toBeNull();
    expect(parseEffector(null)).toBeNull();
  });

  it("target multipliers default to 1 and can be set per channel", () => {
    const t = new InteractionTarget(FullBodyBipedEffector.LeftHand, new TransformNode("t", scene), {
      multipliers: { [InteractionCurveType.Pull]: 0.5 },
    });
    expect(t.getMultiplier(InteractionCurveType.PositionWeight)).toBe(1);
    expect(t.getMultiplier(InteractionCurveType.Pull)).toBe(0.5);
    t.setMultiplier(InteractionCurveType.Reach, 0);
    expect(t.getMultiplier(InteractionCurveType.Reach)).toBe(0);
  });
});
