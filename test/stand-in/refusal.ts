/**
 * A construct or option the stand-in does not model. The command fails with exit code 1 naming
 * it, so a test never passes on behaviour the stand-in would only pretend to have.
 */
export class Refusal extends Error {
  constructor(construct: string) {
    super(`The Terraform stand-in does not model ${construct}.`);
  }
}
