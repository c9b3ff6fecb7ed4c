/** The e2e test's capture: the frame with and without the characters, and where they are on screen. */
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector";
import { type Ctx, bonePos } from "./kit";

/**
 * The test hook's images: the canvas with the characters, then without them (same frame, scripted motion
 * frozen), and the characters' screen rectangle (bones' box, padded for the mesh, with its shadow on the
 * floor). Render-size pixels; PNG data URLs.
 */
export function capture(
  ctx: Ctx,
  light: Vector3,
  freeze: (on: boolean) => void,
): { shown: string; hidden: string; rect: number[]; width: number; height: number } {
  const { scene, engine } = ctx;
  const canvas = engine.getRenderingCanvas()!;
  freeze(true);
  engine.stopRenderLoop();
  try {
    scene.render();
    const shown = canvas.toDataURL("image/png");
    const meshes = ctx.characters.flatMap((c) => c.meshes);
    const was = meshes.map((m) => m.isEnabled(false));
    for (const m of meshes) m.setEnabled(false);
    scene.render();
    const hidden = canvas.toDataURL("image/png");
    meshes.forEach((m, i) => m.setEnabled(was[i]!));
    scene.render();
    const w = engine.getRenderWidth();
    const hgt = engine.getRenderHeight();
    const viewport = scene.activeCamera!.viewport.toGlobal(w, hgt);
    const vp = scene.getTransformMatrix();
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    const dir = light.normalizeToNew();
    const floor = ctx.ground.position.y;
    for (const c of ctx.characters) {
      const pts = c.skeleton.bones.filter((b) => b.getTransformNode() !== null).map(bonePos);
      const lo = pts.reduce((a, p) => Vector3.Minimize(a, p), pts[0]!.clone());
      const hi = pts.reduce((a, p) => Vector3.Maximize(a, p), pts[0]!.clone());
      // the Mannequin's head (over half its height) and hands reach well past their bones
      const pad = 0.3 * c.h;
      lo.subtractInPlace(new Vector3(pad, 0.06 * c.h, pad));
      hi.addInPlace(new Vector3(pad, 0.8 * c.h, pad));
      lo.y = Math.max(lo.y, floor);
      for (let k = 0; k < 8; k++) {
        const p = new Vector3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z);
        const shadow = dir.y < 0 ? p.add(dir.scale((floor - p.y) / dir.y)) : p;
        for (const q of [p, shadow]) {
          const s = Vector3.Project(q, Matrix.IdentityReadOnly, vp, viewport);
          x0 = Math.min(x0, s.x);
          y0 = Math.min(y0, s.y);
          x1 = Math.max(x1, s.x);
          y1 = Math.max(y1, s.y);
        }
      }
    }
    return { shown, hidden, rect: [x0, y0, x1, y1], width: w, height: hgt };
  } finally {
    freeze(false);
    engine.runRenderLoop(() => scene.render());
  }
}
