import { Quaternion } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Scene } from "@babylonjs/core/scene.js";
import { describe, expect, it } from "vitest";
import { GrounderRootTurn } from "../../../src/effectors/grounding/grounder-root-turn.js";

const fields = (q: Quaternion) => [q._x, q._y, q._z, q._w];

describe("GrounderRootTurn: take off and put back (a component created between frames)", () => {
  const scene = new Scene(new NullEngine());
  const root = new TransformNode("root", scene);
  const animated = Quaternion.RotationYawPitchRoll(0.3, 0.1, -0.2);

  function written(): GrounderRootTurn {
    root.rotationQuaternion = animated.clone();
    const turn = new GrounderRootTurn();
    turn.offset.x = 0.1;
    turn.offset.w = Math.sqrt(1 - 0.01);
    turn.frameWeight = 1;
    turn.write(root);
    return turn;
  }

  it("puts the turn back bit for bit, and the next take-off still takes it off", () => {
    const turn = written();
    const shown = fields(root.rotationQuaternion!);
    expect(shown).not.toEqual(fields(animated));
    turn.takeOff(root);
    expect(fields(root.rotationQuaternion!)).toEqual(fields(animated));
    turn.putBack(root);
    expect(fields(root.rotationQuaternion!)).toEqual(shown);
    // once only: a second put-back writes nothing
    root.rotationQuaternion!.copyFrom(animated);
    turn.putBack(root);
    expect(fields(root.rotationQuaternion!)).toEqual(fields(animated));
  });

  it("puts back nothing a take-off did not undo (the root set by its owner since)", () => {
    const turn = written();
    const mine = Quaternion.RotationYawPitchRoll(1, 0, 0);
    root.rotationQuaternion!.copyFrom(mine);
    turn.takeOff(root);
    turn.putBack(root);
    expect(fields(root.rotationQuaternion!)).toEqual(fields(mine));
  });
});
