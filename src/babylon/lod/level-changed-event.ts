import type { FullBodyBipedIK } from "../full-body-biped-ik.js";
import type { IKLevel } from "./lod-character.js";

/**
 * What `IKLevelOfDetail.onLevelChangedObservable` delivers when a character's level changes. One object, reused
 * for every notification (nothing is allocated per frame): read it in the observer, copy what you keep.
 */
export interface IKLevelChangedEvent {
  /** The character's IK. */
  readonly ik: FullBodyBipedIK;
  /** The level it ran at before the change. */
  readonly previousLevel: IKLevel;
  /** The level it runs at from now on, or fades out toward (Off): `levelOf(ik)`; the cross-fade starts now. */
  readonly level: IKLevel;
}
