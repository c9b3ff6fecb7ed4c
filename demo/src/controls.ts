/** The panel's form controls (sliders, checkboxes, selects, sections), for the panel and scenarios' own controls. */
/** A labelled range input (`id` for the test hook and the page's CSS). */
export function slider(
  label: string,
  min: number,
  max: number,
  step: number,
  get: () => number,
  set: (v: number) => void,
  id?: string,
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
  out.textContent = get().toFixed(2);
  span.textContent = label;
  span.title = label;
  input.addEventListener("input", () => {
    set(Number(input.value));
    out.textContent = Number(input.value).toFixed(2);
  });
  l.append(span, input, out);
  return l;
}

/** A labelled checkbox. */
export function checkbox(label: string, id: string, get: () => boolean, set: (v: boolean) => void): HTMLElement {
  const l = document.createElement("label");
  l.append(label);
  const input = document.createElement("input");
  input.type = "checkbox";
  input.id = id;
  input.checked = get();
  input.addEventListener("change", () => set(input.checked));
  l.append(input);
  return l;
}

/** A labelled select; `value` is the chosen index. */
export function choice(
  label: string,
  id: string,
  items: string[],
  value: number,
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
    opt.selected = i === value;
    select.append(opt);
  });
  select.addEventListener("change", () => onChange(Number(select.value)));
  l.append(select);
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
