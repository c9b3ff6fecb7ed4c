/** Havok's engine for the scenario tests, from @babylonjs/havok's wasm in node_modules (Node has no fetch of it). */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/** Havok's engine, or null with the reason it could not load (the tests that need it skip then). */
export async function loadHavok(): Promise<{ engine: unknown; reason: string }> {
  try {
    const wasm = createRequire(import.meta.url).resolve("@babylonjs/havok/lib/esm/HavokPhysics.wasm");
    const bytes = readFileSync(wasm);
    const wasmBinary = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    // imported here: a missing package skips too
    const { default: HavokPhysics } = await import("@babylonjs/havok");
    const engine = await HavokPhysics({ wasmBinary });
    return { engine, reason: "" };
  } catch (e) {
    return { engine: null, reason: String(e) };
  }
}
