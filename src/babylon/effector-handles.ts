import { PointerEventTypes, type PointerInfo, type PointerInfoPre } from "@babylonjs/core/Events/pointerEvents.js";
import { Camera } from "@babylonjs/core/Cameras/camera.js";
// registers scene.pick: deep imports bring none (Babylon's root index does), and a click on a handle picked nothing
import "@babylonjs/core/Culling/ray.js";
import { PositionGizmo } from "@babylonjs/core/Gizmos/positionGizmo.js";
import { RotationGizmo } from "@babylonjs/core/Gizmos/rotationGizmo.js";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { Color3 } from "@babylonjs/core/Maths/math.color.js";
import { Quaternion, type Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Observable, type Observer } from "@babylonjs/core/Misc/observable.js";
import { UtilityLayerRenderer } from "@babylonjs/core/Rendering/utilityLayerRenderer.js";
import { Vec3, copy, projectOnPlane, sub } from "../math/vec3.js";
import type { FullBodyBipedEffector } from "../solver/biped-bones.js";
import { FBBIKError, setUpAs } from "../solver/errors.js";
import type { BabylonBendConstraint, BabylonChain } from "./babylon-chain.js";
import type { BabylonEffector } from "./babylon-effector.js";
import { notifyDisposed } from "./dispose-notice.js";
import type { FullBodyBipedIK } from "./full-body-biped-ik.js";
import { currentWorldMatrix } from "./world-matrix.js";
import { type OptionKinds, checkOptions, warnUnknownOptions } from "./option-check.js";

/** What a handle drives: an effector of each kind, or a limb's bend goal. */
export type EffectorHandleKind = "body" | "shoulder" | "thigh" | "hand" | "foot" | "bendGoal";

/** One draggable handle of {@link EffectorHandles}. */
export interface EffectorHandle {
  /** "body", "left shoulder" … "right foot" for the effectors, "left arm bend goal" … "right leg bend goal". */
  readonly name: string;
  /** What it drives. */
  readonly kind: EffectorHandleKind;
  /** The handle's mesh, in the handles' utility layer scene: the effector's target (or the limb's bend goal). */
  readonly mesh: Mesh;
  /** The effector it is the target of, or null for a bend goal. */
  readonly effector: BabylonEffector | null;
  /** The limb whose bend goal it is, or null for an effector. */
  readonly bendConstraint: BabylonBendConstraint | null;
  /** True when its rotation counts: hands, feet and the body (its rotation turns the pelvis). */
  readonly rotatable: boolean;
  /**
   * Its kind's colour (sRGB), as the handle shows it once it pulls, unselected: what a legend's swatch shows. Its
   * own copy: change it (`copyFrom`) to recolour this handle.
   */
  readonly color: Color3;
}

/** The axes the gizmos show: the world's, or the selected handle's own (its bone's, while it rides). */
export type EffectorHandleAxes = "world" | "local";

/** Options of {@link EffectorHandles.create}. */
export interface EffectorHandlesOptions {
  /** The effectors that get a handle (default: all nine; one handle each, listed twice or not). */
  effectors?: readonly FullBodyBipedEffector[];
  /** A handle for each limb's bend goal (elbows and knees; default true). */
  bendGoals?: boolean;
  /**
   * A handle's diameter on screen, as a fraction of the view's height (default 0.03): handles keep their size on
   * screen at any zoom, as Babylon's gizmos do.
   */
  size?: number;
  /**
   * The layer the handles and their gizmos draw and are picked in (default: a new `UtilityLayerRenderer` over the
   * IK's scene, disposed with the handles). The handles so stay out of the scene's meshes, picks and raycasts.
   */
  utilityLayer?: UtilityLayerRenderer;
}

/** The kinds of {@link EffectorHandlesOptions}, for the check at create. */
export const EFFECTOR_HANDLES_OPTION_KINDS: OptionKinds<EffectorHandlesOptions> = {
  effectors: "array",
  bendGoals: "boolean",
  size: "number",
  utilityLayer: "object",
};

/** The handles' colours by kind (what a legend shows; the demo's does). */
const COLORS: Record<EffectorHandleKind, Color3> = {
  body: new Color3(0.15, 0.3, 1),
  shoulder: new Color3(0, 0.85, 0.8),
  thigh: new Color3(0.7, 0.4, 1),
  hand: new Color3(1, 0.55, 0.1),
  foot: new Color3(1, 0.2, 0.45),
  bendGoal: new Color3(0.35, 1, 0.3),
};

/** Each effector's handle: its name and kind, in {@link FullBodyBipedEffector} order. */
const EFFECTOR_HANDLES: readonly (readonly [string, EffectorHandleKind])[] = [
  ["body", "body"],
  ["left shoulder", "shoulder"],
  ["right shoulder", "shoulder"],
  ["left thigh", "thigh"],
  ["right thigh", "thigh"],
  ["left hand", "hand"],
  ["right hand", "hand"],
  ["left foot", "foot"],
  ["right foot", "foot"],
];

/** How far a bend goal's handle sits from its elbow or knee, as a fraction of the limb's length. */
const BEND_GOAL_DISTANCE = 0.35;

/** What the handles took over, given back by dispose. */
interface Taken {
  effector: BabylonEffector | null;
  target: TransformNode | null;
  positionWeight: number;
  rotationWeight: number;
  chain: BabylonChain | null;
  bendGoal: TransformNode | null;
  bendWeight: number;
}

const upper = new Vec3();
const middle = new Vec3();
const end = new Vec3();
const axis = new Vec3();
const side = new Vec3();
const WHITE = new Color3(1, 1, 1);

/**
 * Draggable handles for a {@link FullBodyBipedIK}: a sphere per effector (a box per bend goal) that is that
 * effector's target, and Babylon's position and rotation gizmos on the handle the user clicks. A handle rides
 * on its bone (or, for a bend goal, beside its elbow or knee, on the side it bends to) while its weight is 0,
 * so nothing moves until it is dragged; the first drag gives it weight 1 (position by the position gizmo,
 * rotation by the rotation gizmo), and from then on the handle is where the effector pulls. A faint handle
 * pulls nothing. The handles live in a utility layer: drawn over the character, picked before the scene, and
 * never hit by the scene's picks or the grounder's raycasts.
 *
 * The handles take the effectors over (targets, weights, bend goals) until {@link dispose}, which gives back
 * what they found; disposing the IK disposes them. Meant for trying an IK out and for editors, as the handles
 * of FinalIK's scene view.
 *
 * ```ts
 * const ik = FullBodyBipedIK.create(scene, skeleton);
 * const handles = EffectorHandles.create(ik);
 * handles.select(handles.find("left hand")); // or click a handle
 * ```
 */
export class EffectorHandles {
  /** The FullBodyBipedIK it drives. */
  readonly ik: FullBodyBipedIK;
  /** The handles, effectors first (in {@link FullBodyBipedEffector} order), then the bend goals. */
  readonly handles: readonly EffectorHandle[];
  /** The layer the handles and gizmos draw in. */
  readonly utilityLayer: UtilityLayerRenderer;
  /** The position gizmo, on the selected handle, along {@link axes}. */
  readonly positionGizmo: PositionGizmo;
  /** The rotation gizmo, on the selected handle when it is {@link EffectorHandle.rotatable}. */
  readonly rotationGizmo: RotationGizmo;
  /** Notified when a handle is selected (a click or {@link select}), with null when the selection is cleared. */
  readonly onSelectObservable = new Observable<EffectorHandle | null>();
  /** Notified when a drag of the selected handle begins, after its weight was given. */
  readonly onGrabObservable = new Observable<EffectorHandle>();
  /** Notified once by {@link dispose}, before it lets go of its state (Babylon's convention). */
  readonly onDisposeObservable = new Observable<EffectorHandles>();
  private readonly taken: Taken[] = [];
  private readonly ownLayer: boolean;
  private selectedHandle: EffectorHandle | null = null;
  private readonly observers: (() => void)[] = [];
  private disposed = false;

  private constructor(ik: FullBodyBipedIK, options: EffectorHandlesOptions) {
    const unknownOptions = checkOptions("EffectorHandles", options, EFFECTOR_HANDLES_OPTION_KINDS);
    this.ik = ik;
    const size = options.size ?? 0.03;
    if (!(size > 0 && size < Infinity)) throw new FBBIKError([`size ${size} is not a positive number`]);
    const solver = ik.solver;
    // checked before anything is made: a throw leaves no layer or mesh behind
    const effectors = [...new Set(options.effectors ?? [0, 1, 2, 3, 4, 5, 6, 7, 8])];
    const unknown = effectors.filter((type) => solver.effectors[type] === undefined);
    if (unknown.length > 0) throw new FBBIKError(unknown.map((t) => `effector ${t} is not a FullBodyBipedEffector`));
    this.ownLayer = options.utilityLayer === undefined;
    const layer = options.utilityLayer ?? new UtilityLayerRenderer(ik.rig.skeleton.getScene());
    this.utilityLayer = layer;
    const scene = layer.utilityLayerScene;
    const handles: EffectorHandle[] = [];
    const material = (name: string, kind: EffectorHandleKind): StandardMaterial => {
      const m = new StandardMaterial(`${name} handle`, scene);
      m.disableLighting = true;
      m.emissiveColor = COLORS[kind].clone();
      // bend goals draw first and leave no depth: an effector's handle behind a box still shows over it
      m.disableDepthWrite = kind === "bendGoal";
      return m;
    };
    for (const type of effectors) {
      const effector = solver.effectors[type]!;
      const [name, kind] = EFFECTOR_HANDLES[type]!;
      const mesh = CreateSphere(`${name} handle`, { diameter: 1, segments: 12 }, scene);
      mesh.material = material(name, kind);
      mesh.rotationQuaternion = new Quaternion();
      mesh.alphaIndex = 1;
      const rotatable = kind === "hand" || kind === "foot" || kind === "body";
      handles.push({ name, kind, mesh, effector, bendConstraint: null, rotatable, color: COLORS[kind].clone() });
      this.taken.push({
        effector,
        target: effector.target,
        positionWeight: effector.positionWeight,
        rotationWeight: effector.rotationWeight,
        chain: null,
        bendGoal: null,
        bendWeight: 0,
      });
    }
    if (options.bendGoals ?? true) {
      for (const chain of solver.limbChains) {
        const name = `${chain.name} bend goal`;
        const mesh = CreateBox(`${name} handle`, { size: 0.8 }, scene);
        mesh.material = material(name, "bendGoal");
        mesh.rotationQuaternion = new Quaternion();
        mesh.alphaIndex = 0;
        const bend = chain.bendConstraint;
        handles.push({
          name,
          kind: "bendGoal",
          mesh,
          effector: null,
          bendConstraint: bend,
          rotatable: false,
          color: COLORS.bendGoal.clone(),
        });
        this.taken.push({
          effector: null,
          target: null,
          positionWeight: 0,
          rotationWeight: 0,
          chain,
          bendGoal: bend.bendGoal,
          bendWeight: bend.weight,
        });
      }
    }
    this.handles = handles;
    this.positionGizmo = new PositionGizmo(layer);
    this.positionGizmo.updateGizmoRotationToMatchAttachedMesh = false;
    this.rotationGizmo = new RotationGizmo(layer);
    this.rotationGizmo.updateGizmoRotationToMatchAttachedMesh = false;
    this.place(true);
    // the handles become the targets only once they stand where the pose is (a weighted effector does not jump)
    for (const h of handles) {
      if (h.effector !== null) h.effector.target = h.mesh;
      else h.bendConstraint!.bendGoal = h.mesh;
    }
    // after the write, not on onPostUpdate: a hook added after the handles (FBBIKColliders) may still move a bone
    this.listen(ik._onWrittenObservable, () => this.place(false));
    this.listen(scene.onBeforeRenderObservable, () => this.resize(size));
    this.effectorsFirst(layer, handles);
    this.listen(scene.onPointerObservable, (info: PointerInfo) => {
      if (info.type !== PointerEventTypes.POINTERDOWN) return;
      const picked = info.pickInfo?.pickedMesh;
      const h = this.handles.find((x) => x.mesh === picked);
      if (h !== undefined) this.select(h);
    });
    this.listen(this.positionGizmo.onDragStartObservable, () => this.grab("position"));
    this.listen(this.rotationGizmo.onDragStartObservable, () => this.grab("rotation"));
    this.listen(ik.onDisposeObservable, () => this.dispose());
    warnUnknownOptions(ik.solver.inner, "EffectorHandles", unknownOptions, EFFECTOR_HANDLES_OPTION_KINDS, { "": this });
  }

  /**
   * Adds handles to `ik` and takes its effectors over (see the class notes). Throws {@link FBBIKError} for an
   * unknown effector or a size that is not a positive number.
   */
  static create(ik: FullBodyBipedIK, options: EffectorHandlesOptions = {}): EffectorHandles {
    return setUpAs("EffectorHandles", () => new EffectorHandles(ik, options));
  }

  /**
   * The axes the gizmos show (default "world"): "local" turns them with the selected handle, which rides with its
   * bone's rotation (on a left hand, the "up" arrow of its bone's axes may point down). Sets both gizmos'
   * `updateGizmoRotationToMatchAttachedMesh`.
   */
  get axes(): EffectorHandleAxes {
    return this.positionGizmo.updateGizmoRotationToMatchAttachedMesh ? "local" : "world";
  }

  set axes(axes: EffectorHandleAxes) {
    const local = axes === "local";
    this.positionGizmo.updateGizmoRotationToMatchAttachedMesh = local;
    this.rotationGizmo.updateGizmoRotationToMatchAttachedMesh = local;
  }

  /** The selected handle (the gizmos are on it), or null. */
  get selected(): EffectorHandle | null {
    return this.selectedHandle;
  }

  /** The handle called `name` ("left hand", "right leg bend goal"); throws a RangeError when there is none. */
  find(name: string): EffectorHandle {
    const h = this.handles.find((x) => x.name === name);
    if (h === undefined)
      throw new RangeError(
        `No handle "${name}"; the handles are ${this.handles.map((x) => `"${x.name}"`).join(", ")}.`,
      );
    return h;
  }

  /** Puts the gizmos on `handle` (the rotation gizmo only when it is rotatable), or takes them off (null). */
  select(handle: EffectorHandle | null): void {
    if (this.disposed || handle === this.selectedHandle) return;
    this.selectedHandle = handle;
    // attachedNode, not attachedMesh: a null mesh leaves Babylon's sub-gizmos on the last node, updating it
    this.positionGizmo.attachedNode = handle?.mesh ?? null;
    this.rotationGizmo.attachedNode = handle?.rotatable ? handle.mesh : null;
    this.paint();
    this.onSelectObservable.notifyObservers(handle);
  }

  /**
   * Gives the selected handle weight, as a drag of it does: `what` "position" sets its effector's position
   * weight (a bend goal's weight) to 1 when it is 0, "rotation" its rotation weight.
   */
  grab(what: "position" | "rotation"): void {
    const h = this.selectedHandle;
    if (this.disposed || h === null) return;
    const e = h.effector;
    if (e !== null) {
      if (what === "position" && e.positionWeight === 0) e.positionWeight = 1;
      if (what === "rotation" && e.rotationWeight === 0) e.rotationWeight = 1;
    } else if (h.bendConstraint!.weight === 0) h.bendConstraint!.weight = 1;
    this.paint();
    this.onGrabObservable.notifyObservers(h);
  }

  /**
   * Back to how the handles started: the weights found at creation, each handle without weight on its bone (a
   * bend goal's beside its limb), each weighted one on the target its effector had at creation (a bend goal's on
   * its limb's bend goal); a weighted effector that had none stays where it is. An app's starting pose is so the
   * targets and weights it sets before creating the handles.
   */
  reset(): void {
    if (this.disposed) return;
    this.handles.forEach((h, i) => {
      const t = this.taken[i]!;
      if (h.effector !== null) {
        h.effector.positionWeight = t.positionWeight;
        h.effector.rotationWeight = t.rotationWeight;
      } else h.bendConstraint!.weight = t.bendWeight;
    });
    this.select(null);
    this.place(true);
  }

  /** True after dispose. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return "EffectorHandles";
  }

  /** Removes the handles and gizmos and gives the effectors back their targets, weights and bend goals. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    notifyDisposed(this.onDisposeObservable, this);
    for (const remove of this.observers) remove();
    this.handles.forEach((h, i) => {
      const t = this.taken[i]!;
      if (t.effector !== null) {
        // a target the handles found is given back only if nothing else replaced the handle meanwhile
        if (t.effector.target === h.mesh) t.effector.target = t.target;
        t.effector.positionWeight = t.positionWeight;
        t.effector.rotationWeight = t.rotationWeight;
      } else {
        const bend = t.chain!.bendConstraint;
        if (bend.bendGoal === h.mesh) bend.bendGoal = t.bendGoal;
        bend.weight = t.bendWeight;
      }
    });
    this.positionGizmo.dispose();
    this.rotationGizmo.dispose();
    for (const h of this.handles) {
      h.mesh.material?.dispose();
      h.mesh.dispose();
    }
    if (this.ownLayer) this.utilityLayer.dispose();
    this.onSelectObservable.clear();
    this.onGrabObservable.clear();
  }

  /** Observes `observable` until dispose. */
  private listen<T>(observable: Observable<T>, callback: (value: T) => void): Observer<T> | null {
    const o: Observer<T> | null = observable.add(callback);
    this.observers.push(() => observable.remove(o));
    return o;
  }

  /**
   * A press on an effector's handle takes it even where a bend goal's box lies nearer the camera (the layer picks
   * the nearest mesh): the boxes stop being pickable for a press that has an effector's handle under it. Runs
   * before the layer's own pick, on the IK's scene.
   */
  private effectorsFirst(layer: UtilityLayerRenderer, handles: readonly EffectorHandle[]): void {
    const goals = handles.filter((h) => h.kind === "bendGoal").map((h) => h.mesh);
    if (goals.length === 0) return;
    const effectors = new Set<AbstractMesh>(handles.filter((h) => h.kind !== "bendGoal").map((h) => h.mesh));
    const onEffector = (m: AbstractMesh): boolean => effectors.has(m) && m.isEnabled() && m.isVisible;
    const main = layer.originalScene;
    const o = this.listen(main.onPrePointerObservable, (info: PointerInfoPre) => {
      const p = info.localPosition;
      const under =
        info.type === PointerEventTypes.POINTERDOWN &&
        layer.utilityLayerScene.pick(p.x, p.y, onEffector, false, layer.getRenderCamera()).hit;
      for (const g of goals) g.isPickable = !under;
    });
    if (o !== null) main.onPrePointerObservable.makeObserverTopPriority(o);
  }

  /**
   * Puts each handle without weight where the pose is: an effector's on its bone (the solved pose, read from the
   * rig once written), a bend goal's beside its elbow or knee. With `all`, weighted effector handles
   * too: on their target, when they had one, else on the effector's world position.
   */
  private place(all: boolean): void {
    const rig = this.ik.rig;
    const dragging = this.positionGizmo.isDragging || this.rotationGizmo.isDragging;
    for (let i = 0; i < this.handles.length; i++) {
      const h = this.handles[i]!;
      if (dragging && h === this.selectedHandle) continue;
      const mesh = h.mesh;
      const e = h.effector;
      if (e !== null) {
        const bone = e.inner.node.bone;
        if (e.positionWeight === 0) rig.getWorldPosition(bone, mesh.position);
        else if (all) weightedPosition(e, this.taken[i]!.target, mesh.position);
        if (e.rotationWeight === 0 || !h.rotatable) rig.getWorldRotation(bone, mesh.rotationQuaternion!);
        else if (all) weightedRotation(e, this.taken[i]!.target, mesh.rotationQuaternion!);
        continue;
      }
      const bend = h.bendConstraint!;
      if (bend.weight !== 0) {
        if (!all) continue;
        const goal = this.taken[i]!.bendGoal;
        if (goal !== null && !goal.isDisposed()) {
          currentWorldMatrix(goal).getTranslationToRef(mesh.position);
          continue;
        }
      }
      // in component space, as the solver has the limb: beside the middle joint, on the side the limb bends to
      const chain = this.taken[i]!.chain!.inner;
      const nodes = chain.nodes;
      rig.getPosition(nodes[0]!.bone, upper);
      rig.getPosition(nodes[1]!.bone, middle);
      rig.getPosition(nodes[2]!.bone, end);
      projectOnPlane(side, sub(side, middle, upper), sub(axis, end, upper));
      // lengths written out: a double returned from a call V8 does not inline is boxed ("Doubles across calls")
      let ll = side.x * side.x + side.y * side.y + side.z * side.z;
      // a straight limb has no bend side: the constraint's own bend direction stands in for it
      if (!(ll > 1e-12 * (axis.x * axis.x + axis.y * axis.y + axis.z * axis.z))) {
        copy(side, bend.inner.direction);
        ll = side.x * side.x + side.y * side.y + side.z * side.z;
      }
      const k = ll > 0 ? (BEND_GOAL_DISTANCE * chain.length) / Math.sqrt(ll) : 0;
      side.x = middle.x + side.x * k;
      side.y = middle.y + side.y * k;
      side.z = middle.z + side.z * k;
      rig.componentToWorldPoint(side, mesh.position);
    }
    this.paint();
  }

  /** Scales each handle so that its diameter is `size` of the view's height, wherever the camera is. */
  private resize(size: number): void {
    const camera = this.utilityLayer.getRenderCamera();
    const eye = camera.globalPosition;
    // world units per view height at distance 1 (perspective), or the view's height (orthographic)
    const ortho = camera.mode === Camera.ORTHOGRAPHIC_CAMERA;
    let view = ortho ? (camera.orthoTop ?? 1) - (camera.orthoBottom ?? -1) : 2 * Math.tan(camera.fov / 2);
    if (!ortho && camera.fovMode === Camera.FOVMODE_HORIZONTAL_FIXED) view /= camera.getEngine().getAspectRatio(camera);
    for (let i = 0; i < this.handles.length; i++) {
      const mesh = this.handles[i]!.mesh;
      const p = mesh.position;
      const d = ortho ? 1 : Math.sqrt((p._x - eye._x) ** 2 + (p._y - eye._y) ** 2 + (p._z - eye._z) ** 2);
      const scaling = mesh.scaling;
      const k = size * view * d;
      scaling._x = k;
      scaling._y = k;
      scaling._z = k;
      scaling._isDirty = true;
    }
  }

  /** Each handle's look: faint without weight, bright with it, whitened when selected. */
  private paint(): void {
    for (const h of this.handles) {
      const m = h.mesh.material as StandardMaterial;
      const w =
        h.effector !== null ? Math.max(h.effector.positionWeight, h.effector.rotationWeight) : h.bendConstraint!.weight;
      // nearly opaque even when faint: at 0.55 the character behind turned the body's blue grey (16° of hue off)
      m.alpha = w > 0 ? 0.95 : 0.85;
      h.color.scaleToRef(w > 0 ? 1 : 0.75, m.emissiveColor);
      if (h === this.selectedHandle) Color3.LerpToRef(m.emissiveColor, WHITE, 0.45, m.emissiveColor);
    }
  }
}

/** Where a weighted effector pulls: its target node's world position, else its world `position`. */
function weightedPosition(e: BabylonEffector, target: TransformNode | null, out: Vector3): void {
  if (target !== null && !target.isDisposed()) currentWorldMatrix(target).getTranslationToRef(out);
  else out.copyFrom(e.position);
}

/** How a weighted effector turns: its target node's world rotation, else its world `rotation`. */
function weightedRotation(e: BabylonEffector, target: TransformNode | null, out: Quaternion): void {
  if (target !== null && !target.isDisposed()) currentWorldMatrix(target).decompose(undefined, out);
  else out.copyFrom(e.rotation);
}
