/**
 * The onboarding service's process entry (`npm run onboarding -- …`; flags in
 * src/onboarding/cli.ts): starts the service and closes it (server, then LevelDB) on
 * SIGINT or SIGTERM.
 */
import { onboardingCommand } from './cli';

onboardingCommand(process.argv.slice(2))
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
