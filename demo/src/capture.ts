/** The e2e test's capture: the frame with and without the characters, and where they are on screen. */
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Scene } from "@babylonjs/core/scene";
import { type Character, type Ctx, bonePos } from "./kit";

/**
 * The test hook's images: the canvas with the characters, then without them (same frame, scripted motion
 * frozen, once the scene is ready), and the characters' screen rectangle (their skinned meshes' box, and
 * their bones' shadows on the floor). Render-size pixels; PNG data URLs.
 */
export async function capture(
  ctx: Ctx,
  light: Vector3,
  freeze: (on: boolean) => void,
  renderFrame: (scene: Scene) => void,
): Promise<{ shown: string; hidden: string; rect: number[]; width: number; height: number }> {
  const { scene, engine } = ctx;
  const canvas = engine.getRenderingCanvas()!;
  // every mesh's shaders compiled first (steps that do not draw compile nothing; Babylon skips a mesh that is
  // not ready), then the images in one go: nothing else runs between them
  if (!scene.isReady()) await scene.whenReadyAsync();
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
    const add = (q: Vector3) => {
      const s = Vector3.Project(q, Matrix.IdentityReadOnly, vp, viewport);
      x0 = Math.min(x0, s.x);
      y0 = Math.min(y0, s.y);
      x1 = Math.max(x1, s.x);
      y1 = Math.max(y1, s.y);
    };
    for (const c of ctx.characters) {
      const { lo, hi } = characterBox(c);
      lo.y = Math.max(lo.y, floor);
      for (let k = 0; k < 8; k++) add(new Vector3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z));
      // the shadow: each bone's on the floor, padded for the limbs' thickness (the shadow of the box's corners
      // is a parallelogram far wider than a body's shadow, which thinned the box's fill)
      if (dir.y >= 0) continue;
      const pad = 0.06 * c.h;
      for (const b of c.skeleton.bones) {
        const p = bonePos(b);
        const q = p.add(dir.scale((floor - Math.max(p.y, floor)) / dir.y));
        for (let k = 0; k < 4; k++) add(q.add(new Vector3(k & 1 ? pad : -pad, 0, k & 2 ? pad : -pad)));
      }
    }
    return { shown, hidden, rect: [x0, y0, x1, y1], width: w, height: hgt };
  } finally {
    freeze(false);
    engine.runRenderLoop(() => renderFrame(scene));
  }
}

/**
 * The character's world box as drawn: its meshes' bounds with the skeleton applied (the loaded bounds are the
 * bind pose's), 2 % of the height around them; the bones' box padded by a third of the height if no mesh has
 * finite bounds.
 */
function characterBox(c: Character): { lo: Vector3; hi: Vector3 } {
  const lo = new Vector3(Infinity, Infinity, Infinity);
  const hi = new Vector3(-Infinity, -Infinity, -Infinity);
  for (const m of c.meshes) {
    if (!m.isEnabled() || m.getTotalVertices() === 0) continue;
    m.computeWorldMatrix(true);
    m.refreshBoundingInfo({ applySkeleton: true });
    const box = m.getBoundingInfo().boundingBox;
    lo.minimizeInPlace(box.minimumWorld);
    hi.maximizeInPlace(box.maximumWorld);
  }
  const pad = new Vector3(0.02, 0.02, 0.02).scaleInPlace(c.h);
  if (Number.isFinite(lo.x + hi.x + lo.y + hi.y + lo.z + hi.z)) {
    return { lo: lo.subtractInPlace(pad), hi: hi.addInPlace(pad) };
  }
  const pts = c.skeleton.bones.map(bonePos);
  const blo = pts.reduce((a, p) => Vector3.Minimize(a, p), pts[0]!.clone());
  const bhi = pts.reduce((a, p) => Vector3.Maximize(a, p), pts[0]!.clone());
  pad.scaleInPlace(16);
  return { lo: blo.subtractInPlace(pad), hi: bhi.addInPlace(pad) };
}
