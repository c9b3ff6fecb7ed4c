/**
 * A VRM file's humanoid map gives the references where bone names cannot (`vrmHumanoidReferences`): VRM files made
 * from the committed Mannequin (test/helpers/vrm-from-glb.ts) whose nodes keep names detection fails on (MMD's
 * English PMX names: `leg_L` is the thigh) or gets wrong (sides named from the viewer), or that name both sides
 * alike. The glTF JSON comes from the loader's `onParsed`, as a user gets it; the map's references are the source
 * model's, and the IK solves a hand's reach exactly as on the source. The map's problems are FBBIKErrors.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it } from "vitest";
import type { BipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { vrmHumanoidReferences } from "../../src/babylon/vrm-references.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { reachLeftHand } from "../helpers/hand-reach.js";
import { height, worldPos } from "../helpers/scene-probes.js";
import { MANNEQUIN_HUMANOID, PMX_NAMES, sidedNames, vrmFile } from "../helpers/vrm-from-glb.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

const cases = [
  { title: "VRM 0.x with MMD's English names", version: "0.x", rename: PMX_NAMES },
  {
    title: "VRM 1.0 with sides named from the viewer (detection takes the right hand for the left)",
    version: "1.0",
    rename: sidedNames((base, side) => `${base}.${side === "l" ? "r" : "l"}`),
  },
  {
    title: "VRM 1.0 naming both sides alike (the map's nodes told apart by their skin joints)",
    version: "1.0",
    rename: sidedNames((base) => base),
  },
] as const;

/** Every reference bone's world position, by reference. */
function positions(r: BipedReferences): Map<string, Vector3> {
  const out = new Map<string, Vector3>();
  for (const [key, value] of Object.entries(r)) {
    if (key === "root" || value === null) continue;
    const bones = Array.isArray(value) ? value : [value];
    bones.forEach((b, i) => out.set(`${key}${i}`, worldPos(b)));
  }
  return out;
}

/** The Mannequin as a VRM file named by `rename`, and its glTF JSON as the loader's `onParsed` gives it. */
async function loadVrm(version: "0.x" | "1.0", rename: Record<string, string>, rightHanded: boolean) {
  let json: object | undefined;
  const m = await loadModel("Mannequin", {
    rightHanded,
    glb: (b) => vrmFile(b, MANNEQUIN_HUMANOID, rename, version),
    gltfJson: (j) => (json = j),
  });
  open.push(m);
  return { m, json: json! };
}

describe("vrmHumanoidReferences: the references from a VRM file's humanoid map", () => {
  for (const c of cases) {
    for (const rightHanded of [false, true]) {
      it(`${c.title}: the source's references, its reach (${rightHanded ? "right" : "left"}-handed)`, async () => {
        const source = await loadModel("Mannequin", { rightHanded });
        open.push(source);
        const sourceIk = FullBodyBipedIK.create(source.scene, source.skeleton);
        const sourceReach = reachLeftHand(source, sourceIk);
        const { m, json } = await loadVrm(c.version, c.rename, rightHanded);

        const refs = vrmHumanoidReferences(m.skeleton, json);
        const ik = FullBodyBipedIK.create(m.scene, m.skeleton, { references: refs });
        // the source's bones, renamed (both sides alike in the last case: their positions below tell them apart)
        const renamed = (b: { name: string } | null) =>
          b === null ? null : ((c.rename as Record<string, string>)[b.name] ?? b.name);
        const r = ik.references;
        const s = sourceIk.references;
        for (const key of [
          "pelvis",
          "head",
          "leftThigh",
          "rightFoot",
          "leftUpperArm",
          "rightForearm",
          "rightHand",
        ] as const)
          expect(r[key]?.name, key).toBe(renamed(s[key]));
        expect(r.spine.map((b) => b.name)).toEqual(s.spine.map(renamed));

        // and no warning of the detection the map replaced (the PMX names' "thigh is the calf's unnamed parent")
        const messages = (i: FullBodyBipedIK) => i.warningsRaised.map((w) => w.message);
        expect(messages(ik)).toEqual(messages(sourceIk));
        const reach = reachLeftHand(m, ik);
        expect(reach.miss).toBeLessThan(1e-4);
        expect(Vector3.Distance(reach.target, sourceReach.target) / height(m)).toBeLessThan(1e-6);
        const solved = positions(r);
        for (const [key, p] of positions(s))
          expect(Vector3.Distance(p, solved.get(key)!) / height(m), key).toBeLessThan(1e-6);
      });
    }
  }

  it("without the map, detection reads MMD's English names alike but swaps the viewer-named sides", async () => {
    const { m: pmx, json } = await loadVrm("0.x", PMX_NAMES, false);
    const mapped = vrmHumanoidReferences(pmx.skeleton, json);
    const detected = FullBodyBipedIK.create(pmx.scene, pmx.skeleton);
    // leg_L → knee_L → ankle_L: the thigh is named like Mixamo's calf (`LeftLeg`), the knee below says which it is
    for (const key of ["pelvis", "head", "leftThigh", "leftCalf", "rightFoot", "leftUpperArm", "rightHand"] as const)
      expect(detected.references[key], key).toBe(mapped[key]);
    expect(detected.references.spine).toEqual(mapped.spine);
    detected.dispose();
    const viewer = (await loadVrm("1.0", cases[1].rename, false)).m;
    const ik = FullBodyBipedIK.create(viewer.scene, viewer.skeleton);
    // wrist.r is the character's left wrist (named from the viewer): detection calls it the right hand
    expect(ik.references.rightHand.name).toBe("wrist.r");
    expect(worldPos(ik.references.rightHand).x * worldPos(ik.references.leftHand).x).toBeLessThan(0);
    ik.dispose();
  });

  it("a clone from instantiateModelsToScene (its nodes renamed): the clone's bones, and its hand reaches", async () => {
    const { m, json } = await loadVrm("0.x", PMX_NAMES, false);
    const clone = m.container.instantiateModelsToScene((name) => `copy ${name}`);
    const skeleton = clone.skeletons[0]!;
    const refs = vrmHumanoidReferences(skeleton, json);
    expect(refs.leftHand).toBe(skeleton.bones.find((b) => b.name === "wrist_L"));
    expect((refs.leftHand as Bone).getTransformNode()?.name).toBe("copy wrist_L");
    const ik = FullBodyBipedIK.create(m.scene, skeleton, { references: refs });
    expect(reachLeftHand(m, ik).miss).toBeLessThan(1e-4);
    ik.dispose();
    clone.dispose();
  });

  it("a JSON without a VRM humanoid, a map without a hand, a node that is no bone: FBBIKErrors saying so", async () => {
    const { m, json } = await loadVrm("1.0", {}, false);
    const error = (gltf: object): FBBIKError => {
      try {
        vrmHumanoidReferences(m.skeleton, gltf);
      } catch (e) {
        if (e instanceof FBBIKError) return e;
        throw e;
      }
      throw new Error("no FBBIKError");
    };
    type Bones = Record<string, { node: number } | undefined>;
    type Json = { nodes: { name?: string }[]; skins: { joints: number[] }[]; extensions: { VRMC_vrm: unknown } };
    // the loader's JSON is live (its nodes hold the Babylon objects made of them): the parts read, copied
    const { nodes, skins, extensions } = json as Json;
    const edited = (edit: (bones: Bones) => void): Json => {
      const copy = {
        nodes: nodes.map((n) => ({ name: n.name })),
        skins: skins.map((k) => ({ joints: [...k.joints] })),
        extensions: { VRMC_vrm: structuredClone(extensions.VRMC_vrm) },
      };
      edit((copy.extensions.VRMC_vrm as { humanoid: { humanBones: Bones } }).humanoid.humanBones);
      return copy;
    };
    expect(error({ nodes: [] }).message).toMatch(/holds no VRM humanoid/);
    expect(error(edited((b) => delete b.leftHand)).problems).toEqual([
      "the VRM 1.0 humanoid does not map leftHand, which FullBodyBipedIK needs",
    ]);
    const body = nodes.findIndex((n) => n.name === "Mannequin_Medium_Body");
    expect(
      error(
        edited((b) => {
          b.leftHand = { node: body };
        }),
      ).problems,
    ).toEqual([
      `the VRM humanoid's leftHand: node ${body} ("Mannequin_Medium_Body") is not a bone of the skeleton (${m.skeleton.name})`,
    ]);
    expect(error(edited((b) => (b.hips = { node: 999 }))).problems).toEqual([
      "the VRM humanoid maps hips to node 999, which is not a node of the file",
    ]);
  });
});
