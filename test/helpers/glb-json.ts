/** Editing a glTF binary's JSON chunk in tests (the binary chunk kept as it is). */

/**
 * `glb` with its JSON chunk replaced by what `edit` makes of it (`bin`: the binary chunk's data, to read from); the
 * JSON is padded with spaces to 4 bytes.
 */
export function rewriteGlbJson<T>(glb: Uint8Array, edit: (json: T, bin: Uint8Array) => void): Uint8Array {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(Buffer.from(glb.subarray(20, 20 + jsonLength)).toString("utf8")) as T;
  const binStart = 20 + jsonLength;
  const binLength = binStart + 8 <= glb.length ? view.getUint32(binStart, true) : 0;
  edit(json, glb.subarray(binStart + 8, binStart + 8 + binLength));
  let text = JSON.stringify(json);
  text += " ".repeat((4 - (Buffer.byteLength(text) % 4)) % 4);
  const chunk = Buffer.from(text, "utf8");
  const rest = glb.subarray(20 + jsonLength);
  const out = new Uint8Array(20 + chunk.length + rest.length);
  // header and the JSON chunk's type kept; total and chunk lengths rewritten
  out.set(glb.subarray(0, 20));
  out.set(chunk, 20);
  out.set(rest, 20 + chunk.length);
  const head = new DataView(out.buffer);
  head.setUint32(8, out.length, true);
  head.setUint32(12, chunk.length, true);
  return out;
}
