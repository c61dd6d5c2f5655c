/**
 * A journey test's steps, in order inside one test: each step's failure names the step
 * (its message begins `step "NAME":`), and the steps after it do not run on a state the
 * failed step never made. For a file whose tests are one sequence on one chain or network
 * (each step needs what the one before left), rather than separate tests that would run,
 * and fail confusingly, in another order.
 */
export async function step<T>(name: string, run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof Error) e.message = `step "${name}": ${e.message}`;
    throw e;
  }
}
