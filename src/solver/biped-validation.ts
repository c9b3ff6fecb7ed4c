import type { BipedBones } from "./biped-bones.js";

/** Problems that make a biped unsolvable: missing (negative or non-integer) ids and duplicated bones. */
export function validateBipedBones(bones: BipedBones, name: (bone: number) => string): string[] {
  const problems: string[] = [];
  const valid = (b: number): boolean => Number.isInteger(b) && b >= 0;
  const named: [string, number][] = [
    ["pelvis", bones.pelvis],
    ["leftThigh", bones.leftThigh],
    ["leftCalf", bones.leftCalf],
    ["leftFoot", bones.leftFoot],
    ["rightThigh", bones.rightThigh],
    ["rightCalf", bones.rightCalf],
    ["rightFoot", bones.rightFoot],
    ["leftUpperArm", bones.leftUpperArm],
    ["leftForearm", bones.leftForearm],
    ["leftHand", bones.leftHand],
    ["rightUpperArm", bones.rightUpperArm],
    ["rightForearm", bones.rightForearm],
    ["rightHand", bones.rightHand],
  ];
  if (!valid(bones.root)) problems.push("root is missing");
  for (const [label, b] of named) if (!valid(b)) problems.push(`${label} is missing`);
  if (bones.spine.length === 0)
    problems.push("there are no spine bones (at least one is needed between the pelvis and the arms)");
  bones.spine.forEach((b, i) => {
    if (!valid(b)) problems.push(`spine[${i}] is missing`);
  });
  const seen = new Map<number, string>();
  const all: [string, number][] = [...named, ...bones.spine.map((b, i): [string, number] => [`spine[${i}]`, b])];
  if (bones.head >= 0) all.push(["head", bones.head]);
  for (const [label, b] of all) {
    if (!valid(b)) continue;
    const other = seen.get(b);
    if (other !== undefined) problems.push(`${label} and ${other} are the same bone (${name(b)})`);
    else seen.set(b, label);
  }
  return problems;
}

/** Why `rootNode` cannot be the body's node (it must be the pelvis or a spine bone), or null. */
export function validateRootNode(bones: BipedBones, rootNode: number, name: (bone: number) => string): string | null {
  if (!(Number.isInteger(rootNode) && rootNode >= 0)) return "no root node could be chosen (no spine bones)";
  if (rootNode !== bones.pelvis && !bones.spine.includes(rootNode)) {
    return `the root node ${name(rootNode)} has to be the pelvis or one of the spine bones`;
  }
  return null;
}
