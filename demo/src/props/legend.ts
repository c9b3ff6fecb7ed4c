/** The panel's colour legend: what each colour of handle or tracker in the scene stands for. */
import type { Color3 } from "@babylonjs/core/Maths/math.color";

/** One line of a legend: a coloured swatch (round for spheres, square for boxes) and what it stands for. */
export interface LegendItem {
  label: string;
  color: Color3;
  shape: "round" | "square";
}

/** The legend's element: one swatch and label per item (`id` for the e2e test). */
export function legend(items: readonly LegendItem[], id = "legend"): HTMLElement {
  const box = document.createElement("div");
  box.id = id;
  box.style.cssText = "display:grid;grid-template-columns:1fr 1fr;gap:2px 8px;margin:4px 0;font-size:12px";
  for (const it of items) {
    const row = document.createElement("div");
    row.className = "legend-item";
    row.style.cssText = "display:flex;align-items:center;gap:5px;white-space:nowrap";
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.dataset.color = it.color.toHexString();
    const radius = it.shape === "round" ? "50%" : "2px";
    sw.style.cssText = `width:11px;height:11px;flex:none;border-radius:${radius};background:${it.color.toHexString()}`;
    row.append(sw, it.label);
    box.append(row);
  }
  return box;
}
