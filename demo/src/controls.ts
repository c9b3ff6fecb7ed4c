/**
 * The panel's form controls (sliders, checkboxes, selects, sections), for the panel and scenarios' own controls.
 * Sliders and checkboxes follow their value while a script drives it: `refreshControls()` (the shell calls it
 * every 250 ms) re-reads every control on the page that the user is not dragging.
 */

/** Re-readers of the controls on the page; one returns false once its control left the page. */
const live = new Set<() => boolean>();
/** The element under a pressed pointer (a slider being dragged is not refreshed). */
let pressed: EventTarget | null = null;
addEventListener("pointerdown", (e) => (pressed = e.target), true);
addEventListener("pointerup", () => (pressed = null), true);

/** Re-reads every live control's value (skipping one being dragged or typed in). */
export function refreshControls(): void {
  for (const f of live) if (!f()) live.delete(f);
}

/** Whole numbers for a whole step (iterations, counts), two decimals otherwise. */
const byStep =
  (step: number) =>
  (v: number): string =>
    Number.isInteger(step) ? String(Math.round(v)) : v.toFixed(2);

/** A labelled range input (`id` for the test hook and the page's CSS; `format` writes its output). */
export function slider(
  label: string,
  min: number,
  max: number,
  step: number,
  get: () => number,
  set: (v: number) => void,
  id?: string,
  format: (v: number) => string = byStep(step),
): HTMLElement {
  const l = document.createElement("label");
  const span = document.createElement("span");
  const input = document.createElement("input");
  input.type = "range";
  input.min = String(min);
  input.max = String(max);
  input.step = String(step);
  input.value = String(get());
  if (id !== undefined) input.id = id;
  const out = document.createElement("output");
  out.textContent = format(get());
  span.textContent = label;
  span.title = label;
  input.addEventListener("input", () => {
    set(Number(input.value));
    out.textContent = format(Number(input.value));
  });
  l.append(span, input, out);
  let shown = get();
  live.add(() => {
    if (!l.isConnected) return false;
    const v = get();
    if (pressed !== input && v !== shown) {
      shown = v;
      input.value = String(v);
      out.textContent = format(v);
    }
    return true;
  });
  return l;
}

/** A slider bound to the number `obj[key]` (e.g. a solver's weight), `id` for the e2e test. */
export function propSlider<K extends string>(
  obj: Record<K, number>,
  key: K,
  label: string,
  [min, max, step]: readonly [number, number, number],
  id?: string,
): HTMLElement {
  return slider(
    label,
    min,
    max,
    step,
    () => obj[key],
    (v) => (obj[key] = v),
    id,
  );
}

/** A labelled checkbox, following `get` while a script drives it. */
export function checkbox(label: string, id: string, get: () => boolean, set: (v: boolean) => void): HTMLElement {
  const l = document.createElement("label");
  l.append(label);
  const input = document.createElement("input");
  input.type = "checkbox";
  input.id = id;
  input.checked = get();
  input.addEventListener("change", () => set(input.checked));
  l.append(input);
  live.add(() => {
    if (!l.isConnected) return false;
    input.checked = get();
    return true;
  });
  return l;
}

/**
 * A labelled select; `value` is the chosen index, or (a function) read again as the sliders are, so the menu
 * follows a choice made elsewhere (the test hook's `setClip`, a scenario switching its own clip).
 */
export function choice(
  label: string,
  id: string,
  items: string[],
  value: number | (() => number),
  onChange: (i: number) => void,
): { el: HTMLElement; select: HTMLSelectElement } {
  const l = document.createElement("label");
  l.append(label);
  const select = document.createElement("select");
  select.id = id;
  items.forEach((name, i) => {
    const opt = document.createElement("option");
    opt.value = String(i);
    opt.textContent = name;
    opt.selected = i === (typeof value === "number" ? value : value());
    select.append(opt);
  });
  select.addEventListener("change", () => onChange(Number(select.value)));
  l.append(select);
  if (typeof value === "function") {
    live.add(() => {
      if (!l.isConnected) return false;
      const v = String(value());
      // not while the user has the menu open
      if (document.activeElement !== select && select.value !== v) select.value = v;
      return true;
    });
  }
  return { el: l, select };
}

/** A panel section with an optional title. */
export function section(title?: string): HTMLElement {
  const d = document.createElement("div");
  d.className = "section";
  if (title !== undefined) {
    const t = document.createElement("div");
    t.className = "title";
    t.textContent = title;
    d.append(t);
  }
  return d;
}

/** Whether each collapsible section is open, by title (kept across scenarios once the user toggled it). */
const opened = new Map<string, boolean>();

/**
 * A collapsible section (`<details>`): `open` by default or as the user last left it; its content goes in
 * the returned element. `id` names it for the tests (`#sec-<id>`).
 */
export function collapsible(title: string, id: string, open: boolean): HTMLDetailsElement {
  const d = document.createElement("details");
  d.className = "section";
  d.id = `sec-${id}`;
  d.open = opened.get(id) ?? open;
  const s = document.createElement("summary");
  s.textContent = title;
  d.append(s);
  // the user's click (or Enter/Space) on the summary, not `toggle`: that one also fires for the default set
  // above, and the free scenario's open sections would then stay open in every other scenario
  s.addEventListener("click", () => opened.set(id, !d.open));
  return d;
}
