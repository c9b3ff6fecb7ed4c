import type { Vec3 } from "../math/vec3.js";
import type { FBIKChain } from "./chain.js";

/**
 * A distance constraint between the first nodes of two child chains of the same parent
 * (FinalIK's FBIKChain.ChildConstraint): it keeps the torso from collapsing. Elasticity 0 resists
 * fully, 1 not at all; with both elasticities 0 the constraint is rigid and the chains' `pull` decides
 * which end gives way.
 */
export class ChildConstraint {
  /** 0 resists compression fully, 1 lets the nodes come arbitrarily close. */
  pushElasticity = 0;
  /** 0 resists stretching fully, 1 lets the nodes drift arbitrarily far apart. */
  pullElasticity = 0;
  /** Index of the first constrained chain in the solver. */
  readonly chain1Index: number;
  /** Index of the second constrained chain in the solver. */
  readonly chain2Index: number;
  /** Animated distance between the two nodes this frame. */
  nominalDistance = 0;
  /** Both elasticities ≤ 0 this frame. */
  isRigid = false;
  private crossFade = 0.5;
  private inverseCrossFade = 0.5;
  private chain1: FBIKChain | null = null;
  private chain2: FBIKChain | null = null;
  // the two first nodes' positions, cached at initiate for the hot loop
  private p1: Vec3 | null = null;
  private p2: Vec3 | null = null;

  /** Creates a constraint between chains `chain1Index` and `chain2Index`. */
  constructor(chain1Index: number, chain2Index: number, pushElasticity = 0, pullElasticity = 0) {
    this.chain1Index = chain1Index;
    this.chain2Index = chain2Index;
    this.pushElasticity = pushElasticity;
    this.pullElasticity = pullElasticity;
  }

  /** Resolves the chains and reads the nominal distance. */
  initiate(chains: readonly FBIKChain[]): void {
    this.chain1 = chains[this.chain1Index] ?? null;
    this.chain2 = chains[this.chain2Index] ?? null;
    this.p1 = this.chain1?.nodes[0]?.solverPosition ?? null;
    this.p2 = this.chain2?.nodes[0]?.solverPosition ?? null;
    this.onPreSolve();
  }

  /** Re-reads the nominal distance and the rigid cross-fade from the animated pose and the pulls. */
  onPreSolve(): void {
    const c1 = this.chain1;
    const c2 = this.chain2;
    if (c1 === null || c2 === null) return;
    const a = c1.nodes[0]!.bonePosition;
    const b = c2.nodes[0]!.bonePosition;
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const dz = b.z - a.z;
    this.nominalDistance = Math.sqrt(dx * dx + dy * dy + dz * dz);
    this.isRigid = this.pushElasticity <= 0 && this.pullElasticity <= 0;
    // the chain that pulls harder moves less
    this.crossFade = this.isRigid ? 1 - (0.5 + 0.5 * (c1.pull - c2.pull)) : 0.5;
    this.inverseCrossFade = 1 - this.crossFade;
  }

  /** Moves both nodes toward the nominal distance by the elastic force. */
  solve(): void {
    const p1 = this.p1;
    const p2 = this.p2;
    if (p1 === null || p2 === null) return;
    if (this.pushElasticity >= 1 && this.pullElasticity >= 1) return;
    const dx = p2.x - p1.x;
    const dy = p2.y - p1.y;
    const dz = p2.z - p1.z;
    const dSq = dx * dx + dy * dy + dz * dz;
    const nominal = this.nominalDistance;
    // a fully elastic side does nothing: decide it before the square root
    if (dSq > nominal * nominal ? this.pullElasticity >= 1 && !this.isRigid : this.pushElasticity >= 1 && !this.isRigid)
      return;
    const d = Math.sqrt(dSq);
    if (d === nominal || d === 0) return;
    let force = 1;
    if (!this.isRigid) force = 1 - (d > nominal ? this.pullElasticity : this.pushElasticity);
    force *= 1 - nominal / d;
    const a = force * this.crossFade;
    const b = force * this.inverseCrossFade;
    p1.x += dx * a;
    p1.y += dy * a;
    p1.z += dz * a;
    p2.x -= dx * b;
    p2.y -= dy * b;
    p2.z -= dz * b;
  }
}
