/**
 * The DOM panel. On top, always visible: the scenario list, its title and help, IK on/off, the ghost, pause,
 * reset view and reset, the scenario's own controls. Below, collapsible: the model (menu, file picker, clip),
 * the solver's parameters (with the mappings'), one effector and one chain chosen in a list (synced with the
 * handle selected in the free scenario) and the debug views. Values are read from the first IK and written to
 * every IK (the crowd).
 */
import type { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik";
import { checkbox, choice, collapsible, section, slider } from "./controls";
import type { Ctx, ScenarioRun } from "./kit";
import type { ModelEntry } from "./models";
import { SCENARIOS, type ScenarioName, scenarioNamed } from "./scenarios/index";

export interface PanelOptions {
  scenario: ScenarioName;
  ctx: Ctx;
  run: ScenarioRun;
  paused(): boolean;
  setPaused(p: boolean): void;
  views: { skeleton: boolean; nodes: boolean };
  setView(v: "skeleton" | "nodes", on: boolean): void;
  reset(): void;
  switchTo(s: ScenarioName): void;
  /** The loaded model's file name. */
  modelName: string;
  /** The model's own clips. */
  clipNames: string[];
  /** The clip playing (−1: the procedural idle). */
  clip(): number;
  setClip(i: number): void;
  /** Loads a user's model from its files (the file picker; dropping files on the page does the same). */
  loadFiles(files: File[]): void;
  /** The model menu, and the entry loaded (null: a user's file). */
  models: ModelEntry[];
  model: ModelEntry | null;
  chooseModel(m: ModelEntry): void;
  ik(): boolean;
  setIK(on: boolean): void;
  ghost(): boolean;
  setGhost(on: boolean): void;
  /** Back to the scenario's framing. */
  resetView(): void;
}

type Solver = FullBodyBipedIK["solver"];

const EFFECTORS = [
  "body",
  "left shoulder",
  "right shoulder",
  "left thigh",
  "right thigh",
  "left hand",
  "right hand",
  "left foot",
  "right foot",
];
const CHAINS = ["left arm", "right arm", "left leg", "right leg"];
const LIMB_KEYS = ["leftArm", "rightArm", "leftLeg", "rightLeg"];

/** Every parameter the panel edits, for each IK; `restore()` puts them back. */
export function snapshotParameters(iks: readonly FullBodyBipedIK[]): { restore(): void } {
  const snaps = iks.map((ik) => {
    const s = ik.solver;
    return {
      s,
      solver: [
        s.ikPositionWeight,
        s.iterations,
        s.spineStiffness,
        s.pullBodyVertical,
        s.pullBodyHorizontal,
        s.spineMapping.twistWeight,
      ],
      effectors: s.effectors.map((e) => [e.positionWeight, e.rotationWeight, e.maintainRelativePositionWeight]),
      chains: s.limbChains.map((c) => [
        c.pull,
        c.reach,
        c.push,
        c.pushParent,
        c.bendConstraint.weight,
        c.bendConstraint.naturalElbowWeight,
      ]),
      mappings: s.limbMappings.map((m) => m.maintainRotationWeight),
    };
  });
  return {
    restore() {
      for (const x of snaps) {
        const s = x.s;
        [
          s.ikPositionWeight,
          s.iterations,
          s.spineStiffness,
          s.pullBodyVertical,
          s.pullBodyHorizontal,
          s.spineMapping.twistWeight,
        ] = x.solver as [number, number, number, number, number, number];
        s.effectors.forEach(
          (e, i) =>
            ([e.positionWeight, e.rotationWeight, e.maintainRelativePositionWeight] = x.effectors[i] as [
              number,
              number,
              number,
            ]),
        );
        s.limbChains.forEach(
          (c, i) =>
            ([c.pull, c.reach, c.push, c.pushParent, c.bendConstraint.weight, c.bendConstraint.naturalElbowWeight] = x
              .chains[i] as [number, number, number, number, number, number]),
        );
        s.limbMappings.forEach((m, i) => (m.maintainRotationWeight = x.mappings[i]!));
      }
    },
  };
}

/** The effector (null: a bend goal is selected, none) and chain the panel edits (kept across rebuilds). */
const chosen: { effector: number | null; chain: number } = { effector: 6, chain: 1 };

export function buildPanel(o: PanelOptions): void {
  const panel = document.getElementById("panel")!;
  // a rebuild (a scenario loaded, a reset) keeps the keyboard where it was: stepping through the scenario menu
  // with the arrow keys goes on from the new menu, whenever the scenario finished loading between two keys
  const focused =
    document.activeElement instanceof HTMLElement && panel.contains(document.activeElement)
      ? document.activeElement.id
      : "";
  panel.innerHTML = "";
  const top = document.createElement("div");
  top.id = "panel-top";
  const head = document.createElement("div");
  head.className = "head";
  const title = document.createElement("h1");
  title.textContent = "babylon-fbbik";
  const scenario = scenarioNamed(o.scenario)!;
  const pick = choice("", "scenario", [...SCENARIOS], SCENARIOS.indexOf(o.scenario), (i) => o.switchTo(SCENARIOS[i]!));
  // on a narrow window the panel lies under the view: folded to its title, the view takes the whole height
  const fold = document.createElement("button");
  fold.id = "panel-fold";
  const folded = () => panel.classList.contains("folded");
  const label = () => {
    fold.textContent = folded() ? "▴" : "▾";
    fold.title = folded() ? "Show the controls" : "Hide the controls: the view takes the whole height";
  };
  label();
  fold.addEventListener("click", () => {
    panel.classList.toggle("folded");
    label();
  });
  head.append(title, pick.select, fold);
  const h2 = document.createElement("h2");
  h2.id = "scenario-title";
  h2.textContent = scenario.title;
  const help = document.createElement("p");
  help.id = "scenario-help";
  help.className = "help";
  help.textContent = scenario.help;
  // title, help, toggles and buttons stay at the panel's top while the rest scrolls under them: a child of the
  // scrolling panel itself (a sticky box stays only within its parent's box)
  const sticky = document.createElement("div");
  sticky.id = "panel-sticky";
  sticky.append(head, h2, help);

  const toggles = document.createElement("div");
  toggles.className = "row";
  toggles.append(
    checkbox("IK", "ik", o.ik, o.setIK),
    checkbox("ghost", "ghost", o.ghost, o.setGhost),
    checkbox("pause", "pause", o.paused, o.setPaused),
  );
  toggles.title = "IK: every IK component on/off. Ghost: the animation-only pose. Pause: animation and script.";
  const buttons = document.createElement("div");
  buttons.className = "row";
  const resetView = document.createElement("button");
  resetView.id = "reset-view";
  resetView.textContent = "reset view";
  resetView.addEventListener("click", () => o.resetView());
  const reset = document.createElement("button");
  reset.id = "reset";
  reset.textContent = "reset all";
  reset.title = "Every parameter below, and the free scenario's handles, back to where the scenario set them.";
  reset.addEventListener("click", () => o.reset());
  buttons.append(resetView, reset);
  sticky.append(toggles, buttons);
  if (o.run.panel !== undefined) {
    const own = section();
    own.id = "scenario-controls";
    top.append(own);
    o.run.panel(own);
  }
  panel.append(sticky, top);

  const free = o.scenario === "free";
  const model = collapsible("model", "model", false);
  const models = choice(
    "model",
    "model",
    [...o.models.map((m) => m.label), ...(o.model === null ? [o.modelName] : [])],
    o.model === null ? o.models.length : o.models.indexOf(o.model),
    (i) => {
      if (i < o.models.length) o.chooseModel(o.models[i]!);
    },
  );
  const file = document.createElement("label");
  file.append("your model");
  const input = document.createElement("input");
  input.type = "file";
  input.id = "model-file";
  input.multiple = true;
  input.accept = ".glb,.gltf,.bin,.vrm,.babylon,.png,.jpg,.jpeg,.webp,.ktx2";
  input.addEventListener("change", () => {
    const files = Array.from(input.files ?? []);
    if (files.length > 0) o.loadFiles(files);
  });
  file.append(input);
  model.append(models.el, file);
  model.append(
    choice(
      "animation",
      "clip",
      ["procedural idle", ...o.clipNames],
      () => o.clip() + 1,
      (i) => o.setClip(i - 1),
    ).el,
  );
  const dropHint = document.createElement("div");
  dropHint.className = "hint";
  dropHint.textContent =
    "Or drop a humanoid .glb / .vrm / .babylon, or a .gltf with its .bin and textures. A T-posed model " +
    "without clips gets the UAL character's, retargeted (bipedNameMap).";
  model.append(dropHint);
  panel.append(model);

  // FullBodyBipedIK's own sections: a scenario whose characters have another IK (biped) has none
  if (o.ctx.iks.length > 0) panel.append(...fullBodySections(o, free));

  const viewSec = collapsible("views", "views", free);
  viewSec.append(
    checkbox(
      "skeleton",
      "view-skeleton",
      () => o.views.skeleton,
      (v) => o.setView("skeleton", v),
    ),
  );
  // the solver's nodes are FullBodyBipedIK's
  if (o.ctx.iks.length > 0)
    viewSec.append(
      checkbox(
        "solver nodes",
        "view-nodes",
        () => o.views.nodes,
        (v) => o.setView("nodes", v),
      ),
    );
  panel.append(viewSec);
  const hint = document.createElement("div");
  hint.className = "hint foot";
  hint.textContent = "Drag to orbit, wheel to zoom, right-drag to pan.";
  panel.append(hint);
  // another scenario opens at the panel's top, as on a fresh page; a reset keeps the place
  if (panel.dataset.scenario !== o.scenario) panel.scrollTop = 0;
  panel.dataset.scenario = o.scenario;
  if (focused !== "") document.getElementById(focused)?.focus({ preventScroll: true });
}

/**
 * The FullBodyBipedIK sections (solver parameters and mappings, one effector and one chain): values read from the
 * first IK, written to every IK; the free scenario's handle selection synced with the lists.
 */
function fullBodySections(o: PanelOptions, free: boolean): HTMLElement[] {
  const iks = o.ctx.iks;
  const first = iks[0]!.solver;
  const all = (f: (s: Solver) => void) => {
    for (const ik of iks) f(ik.solver);
  };
  const solverSec = collapsible("solver parameters", "solver", false);
  const solver = document.createElement("div");
  solver.append(
    slider(
      "ikPositionWeight",
      0,
      1,
      0.01,
      () => first.ikPositionWeight,
      (v) => all((s) => (s.ikPositionWeight = v)),
      "p-ikPositionWeight",
    ),
    slider(
      "iterations",
      0,
      10,
      1,
      () => first.iterations,
      (v) => all((s) => (s.iterations = v)),
      "p-iterations",
    ),
    slider(
      "spineStiffness",
      0,
      1,
      0.01,
      () => first.spineStiffness,
      (v) => all((s) => (s.spineStiffness = v)),
      "p-spineStiffness",
    ),
    slider(
      "pullBodyVertical",
      -1,
      1,
      0.01,
      () => first.pullBodyVertical,
      (v) => all((s) => (s.pullBodyVertical = v)),
      "p-pullBodyVertical",
    ),
    slider(
      "pullBodyHorizontal",
      -1,
      1,
      0.01,
      () => first.pullBodyHorizontal,
      (v) => all((s) => (s.pullBodyHorizontal = v)),
      "p-pullBodyHorizontal",
    ),
    slider(
      "spine twistWeight",
      0,
      1,
      0.01,
      () => first.spineMapping.twistWeight,
      (v) => all((s) => (s.spineMapping.twistWeight = v)),
      "p-twistWeight",
    ),
  );
  solverSec.append(solver);

  const mappings = section("maintainRotationWeight (mappings)");
  CHAINS.forEach((name, i) => {
    mappings.append(
      slider(
        name,
        0,
        1,
        0.01,
        () => first.limbMappings[i]!.maintainRotationWeight,
        (v) => all((s) => (s.limbMappings[i]!.maintainRotationWeight = v)),
        `m-${LIMB_KEYS[i]}`,
      ),
    );
  });
  solverSec.append(mappings);

  // one effector, one chain: chosen in the lists or by clicking a handle (free scenario)
  // a new panel has no handle selected: a bend goal chosen before gives way to its limb's end effector
  if (chosen.effector === null) chosen.effector = chosen.chain + 5;
  const effSec = collapsible("effector & chain", "effector", free);
  const eff = document.createElement("div");
  const effBody = document.createElement("div");
  const effChoice = choice("effector", "effector", EFFECTORS, chosen.effector ?? -1, (i) => {
    chosen.effector = i;
    fillEffector();
    o.run.select?.({ effector: i, chain: null });
  });
  // a bend goal selected in the scene: the list says so, not the effector selected before it
  const none = document.createElement("option");
  none.value = "-1";
  none.textContent = "none (a bend goal)";
  none.hidden = true;
  effChoice.select.append(none);
  eff.append(effChoice.el, effBody);
  const fillEffector = () => {
    effChoice.select.value = String(chosen.effector ?? -1);
    effBody.innerHTML = "";
    const i = chosen.effector;
    if (i === null) {
      const note = document.createElement("div");
      note.id = "effector-none";
      note.className = "hint";
      const chain = CHAINS[chosen.chain];
      note.textContent = `The ${chain}'s bend goal is selected: its weight is the chain's "bend goal weight".`;
      effBody.append(note);
      return;
    }
    const e = first.effectors[i]!;
    effBody.append(
      slider(
        "positionWeight",
        0,
        1,
        0.01,
        () => e.positionWeight,
        (v) => all((s) => (s.effectors[i]!.positionWeight = v)),
        "e-positionWeight",
      ),
    );
    if (e.isEndEffector) {
      effBody.append(
        slider(
          "rotationWeight",
          0,
          1,
          0.01,
          () => e.rotationWeight,
          (v) => all((s) => (s.effectors[i]!.rotationWeight = v)),
          "e-rotationWeight",
        ),
      );
      const relative = slider(
        "relative position",
        0,
        1,
        0.01,
        () => e.maintainRelativePositionWeight,
        (v) => all((s) => (s.effectors[i]!.maintainRelativePositionWeight = v)),
        "e-maintainRelativePositionWeight",
      );
      // FinalIK's name does not fit the panel's label column; the hover shows it
      relative.querySelector("span")!.title = "maintainRelativePositionWeight";
      effBody.append(relative);
    }
  };
  fillEffector();
  effSec.append(eff);

  const ch = section();
  const chBody = document.createElement("div");
  const chChoice = choice("chain", "chain", CHAINS, chosen.chain, (i) => {
    chosen.chain = i;
    fillChain();
    o.run.select?.({ effector: null, chain: i });
  });
  ch.append(chChoice.el, chBody);
  const fillChain = () => {
    chChoice.select.value = String(chosen.chain);
    chBody.innerHTML = "";
    const i = chosen.chain;
    const c = first.limbChains[i]!;
    const set = (f: (c: Solver["limbChains"][number]) => void) => all((s) => f(s.limbChains[i]!));
    chBody.append(
      slider(
        "pull",
        0,
        1,
        0.01,
        () => c.pull,
        (v) => set((x) => (x.pull = v)),
        "c-pull",
      ),
      slider(
        "reach",
        0,
        1,
        0.01,
        () => c.reach,
        (v) => set((x) => (x.reach = v)),
        "c-reach",
      ),
      slider(
        "push",
        0,
        1,
        0.01,
        () => c.push,
        (v) => set((x) => (x.push = v)),
        "c-push",
      ),
      slider(
        "pushParent",
        -1,
        1,
        0.01,
        () => c.pushParent,
        (v) => set((x) => (x.pushParent = v)),
        "c-pushParent",
      ),
      slider(
        "bend goal weight",
        0,
        1,
        0.01,
        () => c.bendConstraint.weight,
        (v) => set((x) => (x.bendConstraint.weight = v)),
        "c-bendWeight",
      ),
    );
    // the arms only (not in FinalIK); the hand's rotation, where weighted, decides the elbow instead
    if (i < 2) {
      const natural = slider(
        "natural elbow",
        0,
        1,
        0.01,
        () => c.bendConstraint.naturalElbowWeight,
        (v) => set((x) => (x.bendConstraint.naturalElbowWeight = v)),
        "c-naturalElbow",
      );
      natural.title =
        "bendConstraint.naturalElbowWeight: a hand dragged away from the clip's turns its elbow to the side real " +
        "arms take for that reach; the hand's rotationWeight hands it back to the hand's turn";
      chBody.append(natural);
    }
  };
  fillChain();
  effSec.append(ch);

  // a handle clicked in the scene: the lists follow (its effector, none for a bend goal, and its limb's chain)
  o.run.onSelect = (sel) => {
    if (sel.chain !== null) {
      chosen.chain = sel.chain;
      fillChain();
    }
    if (sel.effector !== null || sel.chain !== null) {
      chosen.effector = sel.effector;
      fillEffector();
    }
  };
  return [solverSec, effSec];
}
