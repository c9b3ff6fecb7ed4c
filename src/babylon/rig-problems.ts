/** The warning (cause, message) for a bone the rig's last read found unusable (see BabylonRig.problem). */
export function rigProblemText(
  kind: "collapsed" | "sheared" | "reparented",
  name: string,
  scale: string,
): readonly [string, string] {
  if (kind === "reparented") {
    return [
      `reparented:${name}`,
      `Bone "${name}" was moved under another bone of the skeleton (or a node hanging from one) after the IK ` +
        "was created: the IK is skipped while it is (the bones keep the animated pose). Create the IK again " +
        "for the new hierarchy.",
    ];
  }
  if (kind === "collapsed") {
    return [
      `scale-collapsed:${name}`,
      `Bone "${name}" is scaled to ${scale}: the bones below it collapse to a point, so the IK is skipped ` +
        "while it is (the bones keep the animated pose).",
    ];
  }
  return [
    `scale-non-uniform:${name}`,
    `Bone "${name}" has the non-uniform scale ${scale}: the bones below it that the IK turns are sheared ` +
      "rather than turned rigidly, so targets are missed by about the scale's unevenness times the limb's " +
      "length. Give bones uniform scales (scale the mesh or the armature instead).",
  ];
}
