/**
 * The operator CLI's process entry (`npm run operator -- …`; commands in
 * src/onboarding/operator-cli.ts): one command, one JSON line on stdout; a refusal on
 * stderr (the service's error code and message) and exit code 1.
 */
import { operatorCommand, OperatorRefusal } from './operator-cli';

operatorCommand(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof OperatorRefusal) process.stderr.write(`${JSON.stringify({ status: err.status, error: err.error })}\n`);
  else process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
