/**
 * A Blender Rigify rig as Blender's glTF exporter writes it, built in code from what Rigify's generator does
 * (the hierarchy is data here; where each fact comes from is said beside it):
 *
 * - Rest positions: Rigify's human metarig (`rigify/metarigs/human.py`, written by `rigify.utils.write_metarig`;
 *   the spine's are also `spines/basic_spine.py`'s sample), in metres, Blender Z-up with the character facing −Y
 *   and its left at +X. The glTF exporter's +Y up turns (x, y, z) into (x, z, −y): facing +Z, left at +X.
 * - ORG- bones: the metarig's bones renamed, keeping the metarig's parents (`SimpleChainRig.parent_org_chain` and
 *   `BaseLimbRig.parent_org_chain` leave them); a bone left without a parent goes under `root`
 *   (`generate.py`, `__parent_bones_to_root`).
 * - DEF- bones: a limb's are one connected chain of two segments per limb bone (`DEF-upper_arm.L`,
 *   `DEF-upper_arm.L.001`, … `DEF-hand.L`; `limbs/limb_rigs.py`, `segments` defaults to 2) whose first bone hangs
 *   from the limb's parent ORG bone (`parent_deform_chain`: `set_bone_parent(deform[0], rig_parent_bone)`); the
 *   spine's DEF chain copies ORG-spine's parent, `root` (`chain_rigs.py`, `make_deform_bone`: `parent=True`), and the
 *   neck's joins it (`ConnectingChainRig`, `connect_chain` set on the metarig's `spine.004`); a `super_copy`
 *   bone's DEF copy is the ORG bone's child (`basic/super_copy.py`: "child of original").
 * - Controls and MCH bones (none deform): the limb rig's, with the parents `limbs/limb_rigs.py` gives them; the
 *   spine's `torso`, `hips` and `chest` (`spines/spine_rigs.py`, `basic_spine.py`). The head's and face's are
 *   left out.
 * - "Deform Bones Only": the exporter drops every bone whose `use_deform` is off and hangs its children from the
 *   nearest kept ancestor, or from the armature itself when none is kept (glTF-Blender-IO,
 *   `gltf2_blender_gather_tree.py`, `VExportTree.recursive_filter`). No DEF limb has a DEF ancestor, so each one
 *   becomes a root bone of its own, as users of game exporters report ("Rigify: deform bones … have non-deform
 *   parent bones", blender-to-smf#28; BoneJuice's "not all deform bones are related to each other").
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { type JointSpec, RigSpec } from "../robustness/rig-builder.js";

/** One bone: name, parent name (null: root), head and tail in Blender's Z-up metres, and whether it deforms. */
interface BlenderBone {
  name: string;
  parent: string | null;
  head: [number, number, number];
  tail: [number, number, number];
  deform: boolean;
}

type V = [number, number, number];

/** The human metarig's left-side and central bones (right side mirrored in x). */
const METARIG: Record<string, { head: V; tail: V }> = {
  spine: { head: [0, 0.0552, 1.0099], tail: [0, 0.0172, 1.1573] },
  "spine.001": { head: [0, 0.0172, 1.1573], tail: [0, 0.0004, 1.2929] },
  "spine.002": { head: [0, 0.0004, 1.2929], tail: [0, 0.0059, 1.4657] },
  "spine.003": { head: [0, 0.0059, 1.4657], tail: [0, 0.0114, 1.6582] },
  "spine.004": { head: [0, 0.0114, 1.6582], tail: [0, -0.013, 1.7197] },
  "spine.005": { head: [0, -0.013, 1.7197], tail: [0, -0.0247, 1.7813] },
  "spine.006": { head: [0, -0.0247, 1.7813], tail: [0, -0.0247, 1.9796] },
  "pelvis.L": { head: [0, 0.0552, 1.0099], tail: [0.1112, -0.0451, 1.1533] },
  "thigh.L": { head: [0.098, 0.0124, 1.072], tail: [0.098, -0.0286, 0.5372] },
  "shin.L": { head: [0.098, -0.0286, 0.5372], tail: [0.098, 0.0162, 0.0852] },
  "foot.L": { head: [0.098, 0.0162, 0.0852], tail: [0.098, -0.0934, 0.0167] },
  "toe.L": { head: [0.098, -0.0934, 0.0167], tail: [0.098, -0.1606, 0.0167] },
  "heel.02.L": { head: [0.06, 0.0459, 0], tail: [0.14, 0.0459, 0] },
  "shoulder.L": { head: [0.0183, -0.0684, 1.6051], tail: [0.1694, 0.0205, 1.605] },
  "upper_arm.L": { head: [0.1953, 0.0267, 1.5846], tail: [0.4424, 0.0885, 1.4491] },
  "forearm.L": { head: [0.4424, 0.0885, 1.4491], tail: [0.6594, 0.0492, 1.3061] },
  "hand.L": { head: [0.6594, 0.0492, 1.3061], tail: [0.7234, 0.0412, 1.2585] },
  "palm.01.L": { head: [0.6921, 0.0224, 1.2882], tail: [0.7441, 0.0057, 1.2467] },
  "f_index.01.L": { head: [0.7441, 0.0057, 1.2467], tail: [0.7746, -0.0042, 1.2145] },
  "f_index.02.L": { head: [0.7746, -0.0042, 1.2145], tail: [0.7911, -0.0096, 1.1926] },
  "f_index.03.L": { head: [0.7911, -0.0096, 1.1926], tail: [0.8038, -0.014, 1.1731] },
  "breast.L": { head: [0.1184, 0.0485, 1.4596], tail: [0.1184, -0.0907, 1.4596] },
};

/** The metarig's parents (the same file). */
const METARIG_PARENT: Record<string, string | null> = {
  spine: null,
  "spine.001": "spine",
  "spine.002": "spine.001",
  "spine.003": "spine.002",
  "spine.004": "spine.003",
  "spine.005": "spine.004",
  "spine.006": "spine.005",
  "pelvis.L": "spine",
  "thigh.L": "spine",
  "shin.L": "thigh.L",
  "foot.L": "shin.L",
  "toe.L": "foot.L",
  "heel.02.L": "foot.L",
  "shoulder.L": "spine.003",
  "upper_arm.L": "shoulder.L",
  "forearm.L": "upper_arm.L",
  "hand.L": "forearm.L",
  "palm.01.L": "hand.L",
  "f_index.01.L": "palm.01.L",
  "f_index.02.L": "f_index.01.L",
  "f_index.03.L": "f_index.02.L",
  "breast.L": "spine.003",
};

const mid = (a: V, b: V): V => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2];
const mirror = (p: V): V => [-p[0], p[1], p[2]];
const SIDED = /\.L(?=$|\.)/;
/** The right-side name of a left-side one (`upper_arm.L.001` → `upper_arm.R.001`). */
const toRight = (name: string): string => name.replace(SIDED, ".R");

/** Every bone of the generated rig, left side and centre (the right side is added by mirroring). */
function leftAndCentre(): BlenderBone[] {
  const bones: BlenderBone[] = [{ name: "root", parent: null, head: [0, 0, 0], tail: [0, 0.589, 0], deform: false }];
  const add = (name: string, parent: string | null, head: V, tail: V, deform: boolean): void => {
    bones.push({ name, parent, head, tail, deform });
  };
  const m = (n: string): { head: V; tail: V } => METARIG[n]!;
  // ORG: the metarig's tree under root
  for (const n of Object.keys(METARIG)) {
    const p = METARIG_PARENT[n]!;
    add(`ORG-${n}`, p === null ? "root" : `ORG-${p}`, m(n).head, m(n).tail, false);
  }
  // spine controls: torso (the master) under root, hips and chest under it
  add("torso", "root", mid(m("spine").head, m("spine").tail), m("spine.001").head, false);
  add("hips", "torso", m("spine.001").head, m("spine").head, false);
  add("chest", "torso", m("spine.002").head, m("spine.003").tail, false);
  add("MCH-WGT-hips", "hips", m("spine").head, m("spine").tail, false);
  // DEF spine: under root, one connected chain to the head
  let previous = "root";
  for (const n of ["spine", "spine.001", "spine.002", "spine.003", "spine.004", "spine.005", "spine.006"]) {
    add(`DEF-${n}`, previous, m(n).head, m(n).tail, true);
    previous = `DEF-${n}`;
  }
  // super_copy bones: the DEF copy is the ORG bone's child
  for (const n of ["pelvis.L", "shoulder.L", "breast.L", "palm.01.L"])
    add(`DEF-${n}`, `ORG-${n}`, m(n).head, m(n).tail, true);
  // limbs: DEF chain of two segments per limb bone, the first under the limb's parent ORG bone
  const limb = (upper: string, middle: string, ends: string[], parent: string): void => {
    const [u, f] = [m(upper), m(middle)];
    const chain: [string, V, V][] = [
      [`DEF-${upper}`, u.head, mid(u.head, u.tail)],
      [`DEF-${upper}.001`, mid(u.head, u.tail), u.tail],
      [`DEF-${middle}`, f.head, mid(f.head, f.tail)],
      [`DEF-${middle}.001`, mid(f.head, f.tail), f.tail],
      ...ends.map((e): [string, V, V] => [`DEF-${e}`, m(e).head, m(e).tail]),
    ];
    let p = `ORG-${parent}`;
    for (const [name, head, tail] of chain) {
      add(name, p, head, tail, true);
      p = name;
    }
  };
  limb("upper_arm.L", "forearm.L", ["hand.L"], "shoulder.L");
  limb("thigh.L", "shin.L", ["foot.L", "toe.L"], "spine");
  // fingers: the chain's first DEF bone keeps its ORG bone's parent
  add("DEF-f_index.01.L", "ORG-palm.01.L", m("f_index.01.L").head, m("f_index.01.L").tail, true);
  add("DEF-f_index.02.L", "DEF-f_index.01.L", m("f_index.02.L").head, m("f_index.02.L").tail, true);
  add("DEF-f_index.03.L", "DEF-f_index.02.L", m("f_index.03.L").head, m("f_index.03.L").tail, true);
  // limb controls and mechanism (limbs/limb_rigs.py): parents as that file sets them
  const controls = (upper: string, middle: string, end: string, org: string): void => {
    const [u, f, e] = [m(`${upper}.L`), m(`${middle}.L`), m(`${end}.L`)];
    const L = (n: string): string => `${n}.L`;
    add(L(`${upper}_parent`), org, u.head, u.tail, false);
    add(`MCH-${L(`${upper}_parent`)}`, org, u.head, u.tail, false);
    add(L(`${upper}_fk`), `MCH-${L(`${upper}_parent`)}`, u.head, u.tail, false);
    add(L(`${middle}_fk`), L(`${upper}_fk`), f.head, f.tail, false);
    add(`MCH-${L(`${end}_fk`)}`, L(`${middle}_fk`), e.head, e.tail, false);
    add(L(`${end}_fk`), `MCH-${L(`${end}_fk`)}`, e.head, e.tail, false);
    add(`MCH-${L(`${upper}_ik_swing`)}`, `MCH-${L(`${upper}_parent`)}`, u.head, u.tail, false);
    add(L(`${upper}_ik`), `MCH-${L(`${upper}_ik_swing`)}`, u.head, u.tail, false);
    add(`MCH-${L(`${middle}_ik`)}`, L(`${upper}_ik`), f.head, f.tail, false);
    add(L(`${end}_ik`), "root", e.head, e.tail, false);
    add(`MCH-${L(`${upper}_ik_target`)}`, L(`${end}_ik`), e.head, e.tail, false);
    add(L(`${upper}_ik_target`), "root", f.head, f.tail, false);
    add(`VIS_${L(`${upper}_ik_pole`)}`, "root", f.head, f.tail, false);
    add(`MCH-${L(`${upper}_tweak`)}`, org, u.head, u.tail, false);
    add(L(`${upper}_tweak`), `MCH-${L(`${upper}_tweak`)}`, u.head, u.tail, false);
    add(`MCH-${L(`${middle}_tweak`)}`, `ORG-${L(middle)}`, f.head, f.tail, false);
    add(L(`${middle}_tweak`), `MCH-${L(`${middle}_tweak`)}`, f.head, f.tail, false);
    add(`MCH-${L(`${end}_tweak`)}`, `ORG-${L(end)}`, e.head, e.tail, false);
    add(L(`${end}_tweak`), `MCH-${L(`${end}_tweak`)}`, e.head, e.tail, false);
  };
  controls("upper_arm", "forearm", "hand", "ORG-shoulder.L");
  controls("thigh", "shin", "foot", "ORG-spine");
  return bones;
}

/** The whole generated rig, both sides, parent-first. */
function generatedRig(): BlenderBone[] {
  const bones = leftAndCentre();
  const out: BlenderBone[] = [];
  for (const b of bones) {
    out.push(b);
    if (SIDED.test(b.name)) {
      const parent = b.parent !== null && SIDED.test(b.parent) ? toRight(b.parent) : b.parent;
      out.push({ ...b, name: toRight(b.name), parent, head: mirror(b.head), tail: mirror(b.tail) });
    }
  }
  // parent-first: a bone after its parent (the mirrored ones follow their left twins, whose parents come first)
  return out;
}

/** Blender Z-up to glTF Y-up, as the exporter writes positions. */
const yUp = (p: V): Vector3 => new Vector3(p[0], p[2], -p[1]);

/** A joint's world rotation: its +Y along the bone, as Blender's bone frames are (roll left out). */
function boneRotation(b: BlenderBone): Quaternion {
  const d = yUp(b.tail).subtract(yUp(b.head)).normalize();
  const q = new Quaternion();
  Quaternion.FromUnitVectorsToRef(Vector3.Up(), d, q);
  return q;
}

/** The rig as a joint list; `deformOnly`: as "Deform Bones Only" exports it (non-deforming bones dropped). */
function toSpec(bones: BlenderBone[], deformOnly: boolean): RigSpec {
  const byName = new Map(bones.map((b) => [b.name, b]));
  const kept = deformOnly ? bones.filter((b) => b.deform) : bones;
  const index = new Map<string, number>();
  const joints: JointSpec[] = [];
  for (const b of kept) {
    // the nearest kept ancestor, else none (a root bone under the armature)
    let p = b.parent;
    while (p !== null && !index.has(p)) p = byName.get(p)!.parent;
    index.set(b.name, joints.length);
    joints.push({
      name: b.name,
      parent: p === null ? -1 : index.get(p)!,
      position: yUp(b.head),
      rotation: boneRotation(b),
    });
  }
  // feet to the top of the head (spine.006's tail)
  return new RigSpec(joints, METARIG["spine.006"]!.tail[2]);
}

/** Blender's default glTF export of a generated Rigify rig: every bone (root, ORG-, DEF-, MCH-, controls). */
export function rigifyAllBones(): RigSpec {
  return toSpec(generatedRig(), false);
}

/** The same rig exported with "Deform Bones Only": the DEF- bones, each limb a root bone of its own. */
export function rigifyDeformOnly(): RigSpec {
  return toSpec(generatedRig(), true);
}

/**
 * The deform bones in one hierarchy, as game-rig tools make them before export (GameRig's `clean_def_hierarchy`
 * walks up from a DEF- bone's parent to the first ORG- bone with a DEF- twin and hangs it there), exported with
 * "Deform Bones Only": DEF-upper_arm.L under DEF-shoulder.L, DEF-shoulder.L under DEF-spine.003, DEF-thigh.L under
 * DEF-spine.
 */
export function rigifyGameRig(): RigSpec {
  const bones = generatedRig();
  const byName = new Map(bones.map((b) => [b.name, b]));
  /** The DEF- bone `b` hangs from: its own DEF- parent, else the DEF- twin of the nearest ORG- ancestor that has one. */
  const defParent = (b: BlenderBone): string | null => {
    for (let p = b.parent; p !== null; p = byName.get(p)!.parent) {
      if (p.startsWith("DEF-")) return p;
      const twin = `DEF-${p.slice(4)}`;
      if (p.startsWith("ORG-") && byName.has(twin) && twin !== b.name) return twin;
    }
    return null;
  };
  const relinked = bones.map((b) => (b.deform ? { ...b, parent: defParent(b) } : b));
  // parent-first again: a DEF- bone may now hang from one listed after it
  const ordered: BlenderBone[] = [];
  const placed = new Set<string>();
  const place = (b: BlenderBone): void => {
    if (placed.has(b.name)) return;
    if (b.parent !== null) place(relinked.find((x) => x.name === b.parent)!);
    placed.add(b.name);
    ordered.push(b);
  };
  for (const b of relinked) place(b);
  return toSpec(ordered, true);
}

/** Names of the bones that deform (the DEF- ones), for weighting a mesh. */
export const rigifyDeforms = (name: string): boolean => name.startsWith("DEF-");
