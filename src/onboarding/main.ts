/**
 * The onboarding service's process entry (`npm run onboarding -- …`; flags in
 * src/onboarding/cli.ts): starts the service and closes it (server, then its actors in
 * reverse order, the LevelDB last) on SIGINT or SIGTERM. An actor that gave up (its
 * restarts exceeded) closes the service and the process exits 1.
 */
import { onboardingCommand } from './cli';

const halt = (err: unknown) => {
  process.stderr.write(`error: an onboarding actor gave up: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
};

onboardingCommand(process.argv.slice(2), undefined, halt)
  .then((service) => {
    if (service === undefined) return;
    let closing = false;
    const stop = () => {
      if (closing) return;
      closing = true;
      service.close().then(
        () => process.exit(0),
        (err: unknown) => {
          process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  })
  .catch((err: unknown) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
