/**
 * FullBodyBipedIK's settings in Babylon's Inspector: the Inspector shows a node's (or mesh's)
 * `inspectableCustomProperties` and reads and writes `node[propertyName]`; every entry must resolve on the
 * character's root node, skeleton and skinned mesh, read the solver's value, and write through to the solver.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { InspectableType } from "@babylonjs/core/Misc/iInspectable.js";
import { afterEach, describe, expect, it } from "vitest";
import type { BabylonChain } from "../../../src/babylon/babylon-chain.js";
import type { BabylonEffector } from "../../../src/babylon/babylon-effector.js";
import { AimIK } from "../../../src/babylon/aim-ik.js";
import { CCDIK, FABRIK, FABRIKRoot } from "../../../src/babylon/chain-ik.js";
import { FBBIK_EFFECTOR_KEYS, FBBIK_LIMB_KEYS } from "../../../src/babylon/fbbik-settings.js";
import { FullBodyBipedIK } from "../../../src/babylon/full-body-biped-ik.js";
import { JacobianIK } from "../../../src/babylon/jacobian-ik.js";
import { LimbIK } from "../../../src/babylon/limb-ik.js";
import { LookAtIK } from "../../../src/babylon/look-at-ik.js";
import { TwistRelaxer } from "../../../src/babylon/twist-relaxer.js";
import { type LoadedModel, loadModel } from "../../helpers/babylon-scene.js";
import { worldPos } from "../../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** The effectors and limb chains by the keys their settings are saved and shown under. */
const EFFECTORS = FBBIK_EFFECTOR_KEYS;
const CHAINS = FBBIK_LIMB_KEYS;

/** The entries read and written as properties (the save and load buttons have none: inspector-settings-file.test.ts). */
const isSetting = (e: { type: InspectableType }) =>
  e.type === InspectableType.Slider || e.type === InspectableType.Checkbox;

/** The expected settings, each read and written straight on the solver (by its public names). */
function expected(ik: FullBodyBipedIK): Map<string, { get(): number | boolean; set(v: number | boolean): void }> {
  const s = ik.solver as unknown as Record<string, unknown>;
  const map = new Map<string, { get(): number | boolean; set(v: number | boolean): void }>();
  const on = <T>(o: T, key: keyof T) => ({
    get: () => o[key] as number | boolean,
    set: (v: number | boolean) => {
      (o as Record<keyof T, unknown>)[key] = v;
    },
  });
  map.set("fbbik_enabled", on(ik, "enabled"));
  map.set("fbbik_enableFadeSeconds", on(ik, "enableFadeSeconds"));
  map.set("fbbik_ikPositionWeight", on(ik.solver, "ikPositionWeight"));
  map.set("fbbik_iterations", on(ik.solver, "iterations"));
  for (const e of EFFECTORS) {
    const effector = s[`${e}Effector`] as BabylonEffector;
    map.set(`fbbik_${e}PositionWeight`, on(effector, "positionWeight"));
    map.set(`fbbik_${e}RotationWeight`, on(effector, "rotationWeight"));
    map.set(`fbbik_${e}FadeSeconds`, on(effector, "fadeSeconds"));
  }
  for (const c of CHAINS) {
    const chain = s[`${c}Chain`] as BabylonChain;
    map.set(`fbbik_${c}Pull`, on(chain, "pull"));
    map.set(`fbbik_${c}Reach`, on(chain, "reach"));
  }
  return map;
}

describe("FullBodyBipedIK in Babylon's Inspector", () => {
  it("every inspectable resolves on the root node, skeleton and skinned mesh, reads the solver, writes through", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const mesh = m.scene.meshes.find((x) => x.skeleton === m.skeleton)!;
    const want = expected(ik);
    const names = ik.inspector.inspectables.filter(isSetting).map((e) => e.propertyName);
    expect(names.sort()).toEqual([...want.keys()].sort());
    expect(ik.inspector.attachedTo).toContain(m.root);
    expect(ik.inspector.attachedTo).toContain(mesh);
    expect(ik.inspector.attachedTo).toContain(m.skeleton);
    for (const host of [m.root, mesh, m.skeleton]) {
      const target = host as unknown as Record<string, number | boolean>;
      for (const entry of ik.inspector.inspectables) expect(host.inspectableCustomProperties).toContain(entry);
      for (const entry of host.inspectableCustomProperties.filter(isSetting)) {
        const name = entry.propertyName;
        const direct = want.get(name)!;
        expect(direct, name).toBeDefined();
        expect(name in target, name).toBe(true);
        expect(target[name], name).toBe(direct.get());
        if (entry.type === InspectableType.Checkbox) {
          const before = direct.get() as boolean;
          target[name] = !before;
          expect(direct.get(), name).toBe(!before);
          target[name] = before;
          continue;
        }
        expect(entry.type, name).toBe(InspectableType.Slider);
        expect(entry.min, name).toBe(0);
        // a value inside the slider's range other than the current one, written as the Inspector does
        const next = name === "fbbik_iterations" ? (direct.get() === 3 ? 5 : 3) : direct.get() === 0.25 ? 0.75 : 0.25;
        target[name] = next;
        expect(direct.get(), name).toBe(next);
        expect(target[name], name).toBe(next);
        direct.set(0.5);
        expect(target[name], name).toBe(direct.get());
      }
    }
  });

  it("created before its container's addAllToScene: the settings are on the container's skinned mesh too", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    // the state a container is in before addAllToScene: its meshes and skeleton are in it, not in the scene
    m.container.removeAllFromScene();
    const mesh = m.container.meshes.find((x) => x.skeleton === m.skeleton)!;
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    m.container.addAllToScene();
    // before: on the root and skeleton only (the mesh had 0 entries; 39 when created after addAllToScene)
    expect(ik.inspector.attachedTo).toContain(mesh);
    expect(mesh.inspectableCustomProperties.length).toBe(ik.inspector.inspectables.length);
    (mesh as unknown as Record<string, number>).fbbik_ikPositionWeight = 0.25;
    expect(ik.solver.ikPositionWeight).toBe(0.25);
  });

  it("a weight written through the Inspector's property changes the solve", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    m.scene.render();
    const hand = ik.references.leftHand;
    const rest = worldPos(hand);
    const goal = rest.add(new Vector3(0, 0.1, 0.15));
    ik.solver.leftHandEffector.position.copyFrom(goal);
    const target = m.root as unknown as Record<string, number | boolean>;
    target.fbbik_leftHandPositionWeight = 1;
    m.scene.render();
    // most of the way (the goal may be a little beyond the arm's reach): measured 5 % of the offset left
    expect(Vector3.Distance(worldPos(hand), goal)).toBeLessThan(0.1 * Vector3.Distance(rest, goal));
    target.fbbik_ikPositionWeight = 0;
    m.scene.render();
    expect(Vector3.Distance(worldPos(hand), rest)).toBeLessThan(1e-4);
    target.fbbik_ikPositionWeight = 1;
    target.fbbik_enabled = false;
    m.scene.render();
    expect(Vector3.Distance(worldPos(hand), rest)).toBeLessThan(1e-4);
  });

  it("dispose takes the entries and properties off; inspector: false shows nothing", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    const other = { inspectableCustomProperties: [{ label: "mine", propertyName: "mine", type: 1 }] };
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    ik.inspector.attach(other);
    expect(other.inspectableCustomProperties.length).toBe(1 + ik.inspector.inspectables.length);
    ik.dispose();
    expect(other.inspectableCustomProperties.map((e) => e.propertyName)).toEqual(["mine"]);
    expect("fbbik_ikPositionWeight" in other).toBe(false);
    expect(m.root.inspectableCustomProperties).toEqual([]);
    expect("fbbik_ikPositionWeight" in m.root).toBe(false);
    expect(m.skeleton.inspectableCustomProperties).toEqual([]);
    const quiet = FullBodyBipedIK.create(m.scene, m.skeleton, { inspector: false });
    expect(quiet.inspector.attachedTo).toEqual([]);
    expect(m.root.inspectableCustomProperties).toEqual([]);
  });

  it("detach takes the settings off one host, the others and the host's own entries keep theirs", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    const other = { inspectableCustomProperties: [{ label: "mine", propertyName: "mine", type: 1 }] };
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    ik.inspector.attach(other);
    ik.inspector.detach(other);
    expect(other.inspectableCustomProperties.map((e) => e.propertyName)).toEqual(["mine"]);
    expect("fbbik_ikPositionWeight" in other).toBe(false);
    expect(ik.inspector.attachedTo).not.toContain(other);
    expect(ik.inspector.attachedTo).toContain(m.skeleton);
    expect("fbbik_ikPositionWeight" in m.skeleton).toBe(true);
    // not a host: nothing to do
    ik.inspector.detach(other);
    expect(other.inspectableCustomProperties.length).toBe(1);
  });

  it("a character cloned after its IK was created: the clone's nodes get no entry (no null) and no stale property", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const own = m.root.inspectableCustomProperties.length;
    // Babylon's cloning (DeepCopier) copies the list by each entry's clone(); a plain object became null, and
    // the Inspector's custom pane reads every entry's type: it threw on the clone's root node and meshes
    const clone = m.container.instantiateModelsToScene((n) => `c_${n}`, false, { doNotInstantiate: true });
    await Promise.resolve();
    const hosts = [clone.rootNodes[0]!, ...m.scene.meshes.filter((x) => x.skeleton === clone.skeletons[0])];
    expect(hosts.length).toBeGreaterThan(1);
    for (const host of hosts) {
      expect(host.inspectableCustomProperties ?? []).toEqual([]);
      expect(Object.getOwnPropertyNames(host).filter((k) => k.startsWith("fbbik_"))).toEqual([]);
    }
    expect(m.root.inspectableCustomProperties.length).toBe(own);
    // an IK on the clone shows its own settings, once, written through
    const twin = FullBodyBipedIK.create(m.scene, clone.skeletons[0]!);
    const root = clone.rootNodes[0]! as unknown as Record<string, number>;
    expect(clone.rootNodes[0]!.inspectableCustomProperties.length).toBe(twin.inspector.inspectables.length);
    root.fbbik_ikPositionWeight = 0.25;
    expect(twin.solver.ikPositionWeight).toBe(0.25);
    expect(ik.solver.ikPositionWeight).toBe(1);
  });

  it("the IK family: enabled and weight on the skeleton, one pair per component, written through", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton, { inspector: false });
    const r = ik.references;
    ik.dispose();
    const family = [
      CCDIK.create(m.scene, [r.leftUpperArm, r.leftForearm, r.leftHand]),
      FABRIK.create(m.scene, [r.rightUpperArm, r.rightForearm, r.rightHand]),
      FABRIKRoot.create(m.scene, r.leftUpperArm, [[r.leftForearm, r.leftHand]]),
      LimbIK.create(m.scene, r.leftThigh, r.leftCalf, r.leftFoot),
      AimIK.create(m.scene, [...r.spine, r.head!]),
      LookAtIK.create(m.scene, { spine: r.spine, head: r.head }),
      JacobianIK.create(m.scene, [r.rightThigh, r.rightCalf, r.rightFoot]),
      TwistRelaxer.create(m.scene, r.rightForearm),
    ];
    const skeleton = m.skeleton as unknown as Record<string, number | boolean>;
    const names = m.skeleton.inspectableCustomProperties.filter(isSetting).map((e) => e.propertyName);
    // three settings each (CCDIK, FABRIK and LimbIK four: their rotation weight; TwistRelaxer four: its crossfade),
    // no name twice (two chains on one skeleton do not collide)
    expect(names.length).toBe(3 * family.length + 4);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain(`ccdik_${r.leftUpperArm.name.replace(/[^A-Za-z0-9_]/g, "_")}_weight`);
    for (const c of family) {
      const [enabled, weight] = c.inspector.inspectables;
      expect(skeleton[enabled!.propertyName]).toBe(true);
      skeleton[enabled!.propertyName] = false;
      expect(c.enabled).toBe(false);
      // TwistRelaxer's master weight is FinalIK's `weight`
      const solver = (c as unknown as { solver: Record<string, number> }).solver;
      const key = "ikPositionWeight" in solver ? "ikPositionWeight" : "weight";
      expect(skeleton[weight!.propertyName]).toBe(solver[key]);
      skeleton[weight!.propertyName] = 0.3;
      expect(solver[key]).toBe(0.3);
      const fade = c.inspector.inspectables.filter(isSetting).at(-1)!;
      expect(fade.propertyName).toMatch(/_enableFadeSeconds$/);
      skeleton[fade.propertyName] = 0.4;
      expect(c.enableFadeSeconds).toBe(0.4);
    }
    // LimbIK: "weight" 0 alone left the foot turning to its target (FinalIK's ikRotationWeight defaults to 1)
    const limb = family[3] as LimbIK;
    const rotation = limb.inspector.inspectables[2]!;
    expect(rotation.propertyName).toMatch(/^limbik_.*_rotationWeight$/);
    skeleton[rotation.propertyName] = 0;
    expect(limb.solver.ikRotationWeight).toBe(0);
    // TwistRelaxer: its crossfade beside the weight
    const relax = family[7] as TwistRelaxer;
    const crossfade = relax.inspector.inspectables[2]!;
    expect(crossfade.propertyName).toMatch(/^twistrelaxer_.*_parentChildCrossfade$/);
    skeleton[crossfade.propertyName] = 0.25;
    expect(relax.solver.parentChildCrossfade).toBe(0.25);
    for (const c of family) c.dispose();
    expect(m.skeleton.inspectableCustomProperties).toEqual([]);
    expect(names.some((n) => n in skeleton)).toBe(false);
  });

  it("two chains of one class from one bone: each its own names and label, written through, disposed alone", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton, { inspector: false });
    const r = ik.references;
    ik.dispose();
    const chest = r.spine[r.spine.length - 1]!;
    // the chest to each hand: both were named after the chest, the second's accessors replaced the first's
    const left = CCDIK.create(m.scene, [chest, r.leftUpperArm, r.leftForearm, r.leftHand]);
    const right = CCDIK.create(m.scene, [chest, r.rightUpperArm, r.rightForearm, r.rightHand]);
    const third = CCDIK.create(m.scene, [chest, r.rightUpperArm, r.rightForearm, r.rightHand]);
    const skeleton = m.skeleton as unknown as Record<string, number | boolean>;
    const names = m.skeleton.inspectableCustomProperties.map((e) => e.propertyName);
    expect(new Set(names).size).toBe(names.length);
    const labels = m.skeleton.inspectableCustomProperties.map((e) => e.label);
    expect(new Set(labels).size).toBe(labels.length);
    const clean = (b: { name: string }) => b.name.replace(/[^A-Za-z0-9_]/g, "_");
    expect(right.inspector.inspectables[0]!.propertyName).toBe(`ccdik_${clean(chest)}_${clean(r.rightHand)}_enabled`);
    expect(third.inspector.inspectables[0]!.propertyName).toBe(`ccdik_${clean(chest)}_${clean(r.rightHand)}_2_enabled`);
    skeleton[left.inspector.inspectables[0]!.propertyName] = false;
    expect([left.enabled, right.enabled, third.enabled]).toEqual([false, true, true]);
    right.dispose();
    third.dispose();
    // the first chain's settings stay, still its own
    expect(m.skeleton.inspectableCustomProperties).toEqual(left.inspector.inspectables);
    skeleton[left.inspector.inspectables[1]!.propertyName] = 0.4;
    expect(left.solver.ikPositionWeight).toBe(0.4);
    left.dispose();
  });
});
