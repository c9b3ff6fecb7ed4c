import { type Quat, fromBasis } from "../math/quat.js";
import { type ReadonlyVec3, Vec3 } from "../math/vec3.js";
import { planeRotation } from "./plane.js";

const axA = new Vec3();
const ayA = new Vec3();
const azA = new Vec3();
const axB = new Vec3();
const ayB = new Vec3();
const azB = new Vec3();

/**
 * Two {@link planeRotation}s at once, bit for bit: the frames of triangles (a1, a2, a3) into `outA` and (b1, b2, b3)
 * into `outB`. Each frame is a chain of dependent square roots and divisions (lookRotation's Gram–Schmidt, then
 * fromBasis); written side by side, the same operations in the same order, the CPU runs the two chains together
 * instead of one after the other. A triangle that needs one of lookRotation's fallbacks (p1 = p3, a zero or
 * non-finite forward, an up parallel to it) sends both to {@link planeRotation}. `outA` and `outB` must differ
 * from each other and from the points.
 */
export function planeRotationPair(
  outA: Quat,
  a1: ReadonlyVec3,
  a2: ReadonlyVec3,
  a3: ReadonlyVec3,
  outB: Quat,
  b1: ReadonlyVec3,
  b2: ReadonlyVec3,
  b3: ReadonlyVec3,
): void {
  if ((a1.x === a3.x && a1.y === a3.y && a1.z === a3.z) || (b1.x === b3.x && b1.y === b3.y && b1.z === b3.z)) {
    separately(outA, a1, a2, a3, outB, b1, b2, b3);
    return;
  }
  // forward = p2 − p1, up = p3 − p1 (planeRotation's sub)
  const fax = a2.x - a1.x;
  const fay = a2.y - a1.y;
  const faz = a2.z - a1.z;
  const fbx = b2.x - b1.x;
  const fby = b2.y - b1.y;
  const fbz = b2.z - b1.z;
  const uax = a3.x - a1.x;
  const uay = a3.y - a1.y;
  const uaz = a3.z - a1.z;
  const ubx = b3.x - b1.x;
  const uby = b3.y - b1.y;
  const ubz = b3.z - b1.z;
  // lookRotation, step by step for both
  const fla = Math.sqrt(fax * fax + fay * fay + faz * faz);
  const flb = Math.sqrt(fbx * fbx + fby * fby + fbz * fbz);
  if (!(fla > 0) || fla === Infinity || !(flb > 0) || flb === Infinity) {
    separately(outA, a1, a2, a3, outB, b1, b2, b3);
    return;
  }
  const zax = fax / fla;
  const zay = fay / fla;
  const zaz = faz / fla;
  const zbx = fbx / flb;
  const zby = fby / flb;
  const zbz = fbz / flb;
  const cax = uay * zaz - uaz * zay;
  const cay = uaz * zax - uax * zaz;
  const caz = uax * zay - uay * zax;
  const cbx = uby * zbz - ubz * zby;
  const cby = ubz * zbx - ubx * zbz;
  const cbz = ubx * zby - uby * zbx;
  const xla = Math.sqrt(cax * cax + cay * cay + caz * caz);
  const xlb = Math.sqrt(cbx * cbx + cby * cby + cbz * cbz);
  const ula = Math.sqrt(uax * uax + uay * uay + uaz * uaz);
  const ulb = Math.sqrt(ubx * ubx + uby * uby + ubz * ubz);
  if (
    !(xla > 1e-12 * ula) ||
    !(ula > 0) ||
    xla === Infinity ||
    !(xlb > 1e-12 * ulb) ||
    !(ulb > 0) ||
    xlb === Infinity
  ) {
    separately(outA, a1, a2, a3, outB, b1, b2, b3);
    return;
  }
  const pax = cax / xla;
  const pay = cay / xla;
  const paz = caz / xla;
  const pbx = cbx / xlb;
  const pby = cby / xlb;
  const pbz = cbz / xlb;
  // the second Gram–Schmidt pass
  const ka = pax * zax + pay * zay + paz * zaz;
  const kb = pbx * zbx + pby * zby + pbz * zbz;
  const rax = pax - zax * ka;
  const ray = pay - zay * ka;
  const raz = paz - zaz * ka;
  const rbx = pbx - zbx * kb;
  const rby = pby - zby * kb;
  const rbz = pbz - zbz * kb;
  const rla = Math.sqrt(rax * rax + ray * ray + raz * raz);
  const rlb = Math.sqrt(rbx * rbx + rby * rby + rbz * rbz);
  const xax = rax / rla;
  const xay = ray / rla;
  const xaz = raz / rla;
  const xbx = rbx / rlb;
  const xby = rby / rlb;
  const xbz = rbz / rlb;
  axA.x = xax;
  axA.y = xay;
  axA.z = xaz;
  axB.x = xbx;
  axB.y = xby;
  axB.z = xbz;
  azA.x = zax;
  azA.y = zay;
  azA.z = zaz;
  azB.x = zbx;
  azB.y = zby;
  azB.z = zbz;
  // y = z × x
  ayA.x = zay * xaz - zaz * xay;
  ayA.y = zaz * xax - zax * xaz;
  ayA.z = zax * xay - zay * xax;
  ayB.x = zby * xbz - zbz * xby;
  ayB.y = zbz * xbx - zbx * xbz;
  ayB.z = zbx * xby - zby * xbx;
  fromBasis(outA, axA, ayA, azA);
  fromBasis(outB, axB, ayB, azB);
}

/** Both frames one after the other (the fallbacks). */
function separately(
  outA: Quat,
  a1: ReadonlyVec3,
  a2: ReadonlyVec3,
  a3: ReadonlyVec3,
  outB: Quat,
  b1: ReadonlyVec3,
  b2: ReadonlyVec3,
  b3: ReadonlyVec3,
): void {
  planeRotation(outA, a1, a2, a3);
  planeRotation(outB, b1, b2, b3);
}
