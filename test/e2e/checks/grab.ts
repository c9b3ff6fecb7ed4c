import { expect } from "vitest";
import { type CheckContext, type V, dist, pct, sub } from "../harness";

interface PoseRecord {
  phase: string;
  solved: Record<string, V>;
  animated: Record<string, V>;
  cup: V;
  grip: V;
  cupRadius: number;
  height: number;
}

/** Horizontal lean of a bone toward a point: its IK displacement from the animation-only pose, along the way to the point. */
function lean(rec: PoseRecord, bone: string): number {
  const d = sub(rec.solved[bone]!, rec.animated[bone]!);
  const to = sub(rec.cup, rec.animated[bone]!);
  const n = Math.hypot(to[0], to[2]);
  return (d[0] * to[0] + d[2] * to[2]) / n;
}

/** The grab scenario's checks. */
export async function checkGrab({ checks, lines }: CheckContext): Promise<void> {
  const rest = checks.rest as PoseRecord;
  const grasp = checks.grasp as PoseRecord;
  const hold = checks.hold as PoseRecord;
  const h = grasp.height;
  // the grip sits beside the cup, the cup's radius plus 1.5 % of h (the palm) from its axis, half-way up: a
  // wrist within 0.5 % of h of the grip is where it was sent, and so within the radius + 2 % of h of the
  // cup's centre (on the cup)
  for (const [label, rec] of [
    ["grasp", grasp],
    ["hold", hold],
  ] as const) {
    const toCup = dist(rec.solved.rightHand!, rec.cup);
    const toGrip = dist(rec.solved.rightHand!, rec.grip);
    lines.push(
      `${label}: right hand to the grip beside the cup ${pct(toGrip, h)} (tolerance 0.5 %), to the cup's centre ${pct(toCup, h)} (cup radius ${pct(rec.cupRadius, h)})`,
    );
    expect(toGrip / h, `${label}: right hand at the grip`).toBeLessThan(0.005);
  }
  // the body leans in when the cup is far: chest and pelvis moved toward the cup from the animation-only pose
  const lg = lean(grasp, "chest");
  const lp = lean(grasp, "pelvis");
  const lr = lean(rest, "chest");
  const lh = lean(hold, "chest");
  lines.push(
    `lean toward the cup (IK − animation, horizontal): chest ${pct(lg, h)} at the grasp (cup far), ${pct(lh, h)} at the hold (cup lifted, nearer), ${pct(lr, h)} at rest; pelvis ${pct(lp, h)} at the grasp`,
  );
  expect(lg / h, "chest leans toward the far cup").toBeGreaterThan(0.02);
  expect(lg, "leans more for the far cup than for the lifted one").toBeGreaterThan(lh);
  // the other hand stays relaxed: it stays where the animation puts it (its effector has no weight and
  // maintainRelativePositionWeight 0, so the lean does not carry it)
  for (const [label, rec] of [
    ["grasp", grasp],
    ["hold", hold],
  ] as const) {
    const moved = dist(rec.solved.leftHand!, rec.animated.leftHand!);
    const rel = (k: "solved" | "animated") => sub(rec[k].leftHand!, rec[k].leftShoulder!);
    lines.push(
      `${label}: left hand ${pct(moved, h)} from its animated position (tolerance 2 %); relative to its shoulder ${pct(dist(rel("solved"), rel("animated")), h)}`,
    );
    expect(moved / h, `${label}: left hand relaxed`).toBeLessThan(0.02);
  }
}
