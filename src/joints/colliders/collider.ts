import type { CapsuleCollider } from "./capsule-collider.js";
import type { SphereCollider } from "./sphere-collider.js";

/** Any collider a {@link ColliderSet} holds. */
export type Collider = SphereCollider | CapsuleCollider;
