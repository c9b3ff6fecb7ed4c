/**
 * Thrown when the solver is built on a rig that cannot work: a missing, duplicated or misplaced bone
 * reference, or a bone of zero length. The message names the component and every problem found.
 */
export class FBBIKError extends Error {
  /** Each problem in words. */
  readonly problems: readonly string[];
  /** What could not be set up: "FullBodyBipedIK", or the family component ("CCDIK", "FBBIKHeadEffector", …). */
  readonly component: string;

  /** Creates the error from a list of problems met setting up `component` (default "FullBodyBipedIK"). */
  constructor(problems: readonly string[], component = "FullBodyBipedIK") {
    super(
      problems.length === 1
        ? `${component} cannot be set up: ${problems[0]}`
        : `${component} cannot be set up:\n- ${problems.join("\n- ")}`,
    );
    this.name = "FBBIKError";
    this.problems = problems;
    this.component = component;
  }
}

/**
 * Runs `build` (a component's set-up); an {@link FBBIKError} it throws, raised by the solvers and checks it
 * shares with FullBodyBipedIK, is thrown again naming `component`.
 */
export function setUpAs<T>(component: string, build: () => T): T {
  try {
    return build();
  } catch (e) {
    if (e instanceof FBBIKError && e.component !== component) throw new FBBIKError(e.problems, component);
    throw e;
  }
}
