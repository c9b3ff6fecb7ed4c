/** The DOM panel: scenario, pause, the solver's main parameters, the scenario's own settings. */
import { type Ctx, type ScenarioName, type ScenarioRun, SCENARIOS, slider } from "./scenarios";

export interface PanelOptions {
  scenario: ScenarioName;
  ctx: Ctx;
  run: ScenarioRun;
  paused(): boolean;
  setPaused(p: boolean): void;
  switchTo(s: ScenarioName): void;
}

export function buildPanel(o: PanelOptions): void {
  const panel = document.getElementById("panel")!;
  panel.innerHTML = "";
  const title = document.createElement("h1");
  title.textContent = "babylon-fbbik";
  panel.append(title);

  const sl = document.createElement("label");
  sl.append("scenario");
  const select = document.createElement("select");
  select.id = "scenario";
  for (const s of SCENARIOS) {
    const opt = document.createElement("option");
    opt.value = s;
    opt.textContent = s;
    opt.selected = s === o.scenario;
    select.append(opt);
  }
  select.addEventListener("change", () => o.switchTo(select.value as ScenarioName));
  sl.append(select);
  panel.append(sl);

  const pl = document.createElement("label");
  pl.append("pause animation");
  const pause = document.createElement("input");
  pause.type = "checkbox";
  pause.id = "pause";
  pause.checked = o.paused();
  pause.addEventListener("change", () => o.setPaused(pause.checked));
  pl.append(pause);
  panel.append(pl);

  const solver = document.createElement("div");
  solver.className = "section";
  const iks = o.ctx.iks;
  const first = iks[0]!.solver;
  const all = (f: (s: typeof first) => void) => {
    for (const ik of iks) f(ik.solver);
  };
  solver.append(
    slider("ikPositionWeight", 0, 1, 0.01, () => first.ikPositionWeight, (v) => all((s) => (s.ikPositionWeight = v))),
    slider("iterations", 0, 10, 1, () => first.iterations, (v) => all((s) => (s.iterations = v))),
    slider("spineStiffness", 0, 1, 0.01, () => first.spineStiffness, (v) => all((s) => (s.spineStiffness = v))),
    slider("pullBodyVertical", -1, 1, 0.01, () => first.pullBodyVertical, (v) => all((s) => (s.pullBodyVertical = v))),
    slider("pullBodyHorizontal", -1, 1, 0.01, () => first.pullBodyHorizontal, (v) => all((s) => (s.pullBodyHorizontal = v))),
  );
  panel.append(solver);

  if (o.run.panel !== undefined) {
    const own = document.createElement("div");
    own.className = "section";
    panel.append(own);
    o.run.panel(own);
  }
  const hint = document.createElement("div");
  hint.className = "section hint";
  hint.textContent = "Drag the view to orbit, wheel to zoom. Drop a humanoid .glb on the page to load it.";
  panel.append(hint);
}
