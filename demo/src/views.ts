/**
 * Debug views: the skeleton (a line from every bone to its parent) and the solver's nodes (a small sphere
 * at each node's solved position, lines along each chain). Both are updated after the IK solved.
 *
 * The nodes are read through the solver's node accessors: `chainCount`, `getNodeCount`,
 * `getNodeWorldPosition` and `getNodeBoneName` (FinalIK's GetNode, in world space).
 */
import "@babylonjs/core/Meshes/thinInstanceMesh";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector";
import { CreateLineSystem } from "@babylonjs/core/Meshes/Builders/linesBuilder";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import type { LinesMesh } from "@babylonjs/core/Meshes/linesMesh";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import type { Bone } from "@babylonjs/core/Bones/bone";
import type { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik";
import { type Ctx, type Pos, arr, bonePos, worldPos } from "./kit";

/** World positions of an IK's solver nodes (chain by chain), read from the solver after its solve. */
function solverNodePositions(ik: FullBodyBipedIK): Vector3[][] {
  const s = ik.solver;
  const chains: Vector3[][] = [];
  for (let c = 0; c < s.chainCount; c++) {
    const nodes: Vector3[] = [];
    for (let n = 0; n < s.getNodeCount(c); n++) nodes.push(s.getNodeWorldPosition(c, n, new Vector3()));
    chains.push(nodes);
  }
  return chains;
}

/** Number of solver nodes of an IK. */
function nodeCount(ik: FullBodyBipedIK): number {
  let count = 0;
  for (let c = 0; c < ik.solver.chainCount; c++) count += ik.solver.getNodeCount(c);
  return count;
}

export class DebugViews {
  private skeletonLines: LinesMesh | null = null;
  private skeletonPairs: [Bone, Bone][] = [];
  private nodeSpheres: Mesh | null = null;
  private nodeMatrices = new Float32Array(0);
  private nodeLines: LinesMesh | null = null;
  private skeletonOn = false;
  private nodesOn = false;

  constructor(private readonly ctx: Ctx) {}

  setSkeleton(on: boolean): void {
    this.skeletonOn = on;
    if (on && this.skeletonLines === null) {
      for (const c of this.ctx.characters) {
        for (const b of c.skeleton.bones) {
          const p = b.getParent();
          if (p !== null) this.skeletonPairs.push([p, b]);
        }
      }
      this.skeletonLines = CreateLineSystem(
        "skeleton view",
        { lines: this.skeletonLines0(), updatable: true, useVertexAlpha: false },
        this.ctx.scene,
      );
      this.skeletonLines.color = new Color3(0.2, 1, 0.4);
      this.skeletonLines.renderingGroupId = 1;
      this.skeletonLines.isPickable = false;
    }
    this.skeletonLines?.setEnabled(on);
    if (on) this.update();
  }

  setNodes(on: boolean): void {
    this.nodesOn = on;
    // FullBodyBipedIK's nodes: none to show without one (the biped scenario)
    if (on && this.nodeSpheres === null && this.ctx.iks.length > 0) {
      const h = this.ctx.characters[0]?.h ?? 1.7;
      const sphere = CreateSphere("solver nodes view", { diameter: 0.035 * h, segments: 6 }, this.ctx.scene);
      const m = new StandardMaterial("solver nodes", this.ctx.scene);
      m.diffuseColor = new Color3(1, 0.2, 0.8);
      m.emissiveColor = new Color3(0.6, 0.1, 0.45);
      sphere.material = m;
      sphere.renderingGroupId = 1;
      sphere.isPickable = false;
      const count = this.ctx.iks.reduce((a, ik) => a + nodeCount(ik), 0);
      this.nodeMatrices = new Float32Array(16 * count);
      sphere.thinInstanceSetBuffer("matrix", this.nodeMatrices, 16, false);
      this.nodeSpheres = sphere;
      this.nodeLines = CreateLineSystem(
        "solver chains view",
        { lines: this.nodeLines0(this.ctx.iks.map(solverNodePositions)), updatable: true },
        this.ctx.scene,
      );
      this.nodeLines.color = new Color3(1, 0.4, 0.9);
      this.nodeLines.renderingGroupId = 1;
      this.nodeLines.isPickable = false;
    }
    this.nodeSpheres?.setEnabled(on);
    this.nodeLines?.setEnabled(on);
    if (on) this.update();
  }

  private skeletonLines0(): Vector3[][] {
    return this.skeletonPairs.map(([p, b]) => [bonePos(p), bonePos(b)]);
  }

  /**
   * Lines along each chain, and from the body chain's first node to each limb's first node (`nodes`: each
   * IK's {@link solverNodePositions}).
   */
  private nodeLines0(nodes: Vector3[][][]): Vector3[][] {
    const lines: Vector3[][] = [];
    for (const chains of nodes) {
      for (const ch of chains) if (ch.length > 1) lines.push(ch);
      const body = chains[0]?.[0];
      if (body !== undefined) for (const ch of chains.slice(1)) if (ch[0] !== undefined) lines.push([body, ch[0]]);
    }
    return lines;
  }

  /** After the IK solved: move the lines and spheres. */
  update(): void {
    if (this.skeletonOn && this.skeletonLines !== null)
      CreateLineSystem("skeleton view", { lines: this.skeletonLines0(), instance: this.skeletonLines }, this.ctx.scene);
    if (this.nodesOn && this.nodeSpheres !== null && this.nodeLines !== null) {
      const nodes = this.ctx.iks.map(solverNodePositions);
      const buf = this.nodeMatrices;
      let k = 0;
      const m = new Matrix();
      for (const chains of nodes) {
        for (const ch of chains) {
          for (const p of ch) {
            Matrix.TranslationToRef(p.x, p.y, p.z, m);
            m.copyToArray(buf, 16 * k++);
          }
        }
      }
      this.nodeSpheres.thinInstanceBufferUpdated("matrix");
      CreateLineSystem(
        "solver chains view",
        { lines: this.nodeLines0(nodes), instance: this.nodeLines },
        this.ctx.scene,
      );
    }
  }

  /** For the test hook: each solver node's world position next to its bone's. */
  nodeRecords(ik: FullBodyBipedIK): { bone: string; node: Pos; boneWorld: Pos }[] {
    const out: { bone: string; node: Pos; boneWorld: Pos }[] = [];
    const s = ik.solver;
    for (let c = 0; c < s.chainCount; c++) {
      for (let i = 0; i < s.getNodeCount(c); i++) {
        const id = s.getNode(c, i).bone;
        // a glTF rig's non-joint nodes have no bone; a bone-only skeleton's bones have no node
        const tn = ik.rig.nodes[id] ?? null;
        const bone = ik.rig.bones[id] ?? null;
        const p = tn !== null ? worldPos(tn) : bone !== null ? bonePos(bone) : null;
        out.push({
          bone: s.getNodeBoneName(c, i),
          node: arr(s.getNodeWorldPosition(c, i, new Vector3())),
          boneWorld: p === null ? [NaN, NaN, NaN] : arr(p),
        });
      }
    }
    return out;
  }

  dispose(): void {
    this.skeletonLines?.dispose();
    this.nodeSpheres?.dispose();
    this.nodeLines?.dispose();
  }
}
