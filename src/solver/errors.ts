/**
 * Thrown when the solver is built on a rig that cannot work: a missing, duplicated or misplaced bone
 * reference, or a bone of zero length. The message names every problem found.
 */
export class FBBIKError extends Error {
  /** Each problem in words. */
  readonly problems: readonly string[];

  /** Creates the error from a list of problems. */
  constructor(problems: readonly string[]) {
    super(
      problems.length === 1
        ? `FullBodyBipedIK cannot be set up: ${problems[0]}`
        : `FullBodyBipedIK cannot be set up:\n- ${problems.join("\n- ")}`,
    );
    this.name = "FBBIKError";
    this.problems = problems;
  }
}
